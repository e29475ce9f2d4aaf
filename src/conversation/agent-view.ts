import { timeInWords, toolsOfAgent, type JsonSchema, type Pack } from '../packs/index.ts';

/** A tool as offered to the model: name, description and JSON Schema parameters. */
export interface ToolSpec {
  readonly name: string;
  readonly description: string;
  readonly parameters: JsonSchema;
}

/** The active agent as the model sees it (applied with session.update on a handoff). */
export interface AgentSetup {
  readonly name: string;
  readonly instructions: string;
  readonly tools: readonly ToolSpec[];
}

/**
 * The conversation's date and time from the pack clock, as a deployment would tell its model:
 * tasks grade dates the caller says as weekdays ("Tuesday, October 13"), which a model cannot
 * resolve without knowing today.
 */
export function conversationDateLine(pack: Pack): string {
  const now = pack.clock.now();
  const today = pack.clock.today();
  return `Today is ${pack.clock.spokenDate(today)}, ${today.slice(0, 4)} (${today}); the local time is ${timeInWords(now.slice(11, 16) || '00:00')} (${pack.clock.timezone}).`;
}

/** Instructions and tools an agent offers the model; pure, so `mivas check` can show them without a call. */
export function agentSetupOf(pack: Pack, agent: string): AgentSetup {
  const prompt = `${(pack.prompts.get(agent) ?? '').trimEnd()}\n\n${conversationDateLine(pack)}\n`;
  const greeting = pack.blueprint.greeting;
  const instructions = agent === pack.entryAgent && greeting ? `${prompt.trimEnd()}\n\nOpen the call with exactly these words: "${greeting}"\n` : prompt;
  const tools = toolsOfAgent(pack, agent).map((t) => ({ name: t.name, description: t.description, parameters: t.inputSchema }));
  return { name: agent, instructions, tools };
}
