import { agentSetupOf, type ToolSpec } from '../conversation/index.ts';
import { toolsOfAgent, type Pack } from '../packs/index.ts';

/** How an episode offers the graph's agents to a policy (docs/rl.md "Handoffs"). */
export type HandoffMode = 'native' | 'soft';
export const HANDOFF_MODES: readonly HandoffMode[] = ['native', 'soft'];

/** The tool a text policy speaks to the caller with; its result is the caller's reply. */
export const SAY_TO_CALLER = 'say_to_caller';

/** say_to_caller as offered to a policy (not a pack tool: the episode answers it, never the engine). */
export const SAY_TO_CALLER_SPEC: ToolSpec = {
  name: SAY_TO_CALLER,
  description:
    'Say something to the caller. Everything the caller hears goes through this tool, one utterance per call. The result is what the caller says back (null when the caller says nothing: still on the line, waiting for you to go on) and whether the caller hung up.',
  parameters: {
    type: 'object',
    properties: { text: { type: 'string', minLength: 1, description: 'What you say, exactly as it should be heard.' } },
    required: ['text'],
    additionalProperties: false,
  },
};

/** The pack's greeting, said for the policy when an episode opens (the voice flow: the agent speaks first). */
export function greetingOf(pack: Pack): string {
  return pack.blueprint.greeting ?? `Thanks for calling ${pack.blueprint.company}. How can I help?`;
}

/** Every tool of the graph, each once, in blueprint order: what a soft-handoff episode offers. */
export function unionTools(pack: Pack): ToolSpec[] {
  const seen = new Map<string, ToolSpec>();
  for (const agent of pack.blueprint.agents) {
    for (const tool of toolsOfAgent(pack, agent.name)) {
      if (!seen.has(tool.name)) seen.set(tool.name, { name: tool.name, description: tool.description, parameters: tool.inputSchema });
    }
  }
  return [...seen.values()];
}

/** The tools a policy sees while `agent` is active: say_to_caller first, then the agent's (native) or the graph's (soft). */
export function offeredTools(pack: Pack, agent: string, mode: HandoffMode): ToolSpec[] {
  const tools = mode === 'soft' ? unionTools(pack) : agentSetupOf(pack, agent).tools;
  return [SAY_TO_CALLER_SPEC, ...tools];
}

/** "Tuesday, October sixth, 2026 at ten a.m." from the pack clock (never the wall clock). */
export function conversationDateTime(pack: Pack): string {
  const now = pack.clock.now();
  const year = now.slice(0, 4);
  const [day = '', at = ''] = pack.clock.spokenDateTime(now).split(' at ');
  return `${day}, ${year} at ${at}`;
}

/**
 * The instructions a policy gets for `agent`: the agent's own (the engine's `agentSetupOf`), then
 * what this conversation is: its date and time from the pack clock, that it runs in text through
 * say_to_caller, that the greeting was already said, and in soft mode that tools work only at
 * the desk that owns them.
 */
export function episodeInstructions(pack: Pack, agent: string, mode: HandoffMode): string {
  const lines = [
    '# THIS CONVERSATION',
    `It is ${conversationDateTime(pack)} (${pack.clock.now()}, ${pack.clock.timezone}).`,
    'This call runs in text. The caller hears only what you pass to say_to_caller, and its result is what the caller says back. Tools you call are not heard.',
    'end_call ends the call at once, so say your farewell before it. After a transfer to a person, say the script the transfer returns: that is your last turn.',
  ];
  if (agent === pack.entryAgent) lines.push(`The call has already opened with your greeting, word for word: "${greetingOf(pack)}". Do not say it again.`);
  else lines.push('You have just taken over this call from another desk; the conversation so far is above.');
  if (mode === 'soft') {
    lines.push('Your tool list holds the tools of every desk. A tool works only at the desk that owns it; from any other desk it is refused, so transfer first.');
  }
  return `${agentSetupOf(pack, agent).instructions.trimEnd()}\n\n${lines.join('\n')}\n`;
}
