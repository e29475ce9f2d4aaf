import { callerSeed, CallerLog, chatClient, LlmMind, ScriptedMind, type CallerCache, type CallerMind } from '../caller/index.ts';
import { systemClock, type Clock } from '../core/index.ts';
import { callerScriptOf, openingLineOf, wordsOf, type Pack, type Task } from '../packs/index.ts';

/** What an episode asks for when it needs a caller (architecture.md §17). */
export interface CallerRequest {
  readonly pack: Pack;
  readonly task: Task;
  /** `scripted`, `llm` or `external`. */
  readonly kind: string;
  /** The episode's seed (a seeded caller replays the same conversation for the same seed). */
  readonly seed: number | null;
  readonly episodeId: string;
}

/** Makes the caller mind of one episode, or null when this build has no caller of that kind. */
export type CallerMinds = (request: CallerRequest) => CallerMind | null;

/** The no-key callers: `scripted` (the task's opening line, then silence). */
export const builtInCallers: CallerMinds = (request) => (request.kind === 'scripted' ? new ScriptedMind(request.task) : null);

/** The `llm` caller's endpoint and caps, as the configuration gives them (MIVAS_CALLER_*). */
export interface LlmCallerSettings {
  readonly chat: { readonly baseUrl: string; readonly apiKey: string | undefined; readonly model: string; readonly timeoutMs?: number; readonly maxBodyBytes?: number };
  readonly seedBase: number;
  readonly maxTurns: number;
}

/**
 * The callers of a configured process: `scripted`, and `llm` (the digital human of docs/caller.md
 * on the MIVAS_CALLER_* chat endpoint, seeded per task and episode seed, its requests cached in
 * `cache` when one is given) for text episodes.
 */
export function configuredCallers(settings: LlmCallerSettings, clock: Clock = systemClock(), cache: CallerCache | null = null): CallerMinds {
  return (request) => {
    if (request.kind !== 'llm') return builtInCallers(request);
    return new LlmMind({
      script: callerScriptOf(request.task),
      model: settings.chat.model,
      seed: callerSeed(settings.seedBase, request.task.task_id, request.seed ?? 0),
      chat: chatClient({ baseUrl: settings.chat.baseUrl, apiKey: settings.chat.apiKey, timeoutMs: settings.chat.timeoutMs, maxBodyBytes: settings.chat.maxBodyBytes }, clock),
      cache,
      log: new CallerLog(),
      maxTurns: settings.maxTurns,
    });
  };
}

/**
 * True when a task can pass with a caller that says only its opening line (the `scripted` caller):
 * none of the caller's facts (the task's traits) that its expected tool calls use is left unsaid by
 * the opening line. A fact counts as used when its words appear in an expected call's arguments
 * ("Marcus Webb" in `{full_name: "Marcus Webb"}`). A rule checked on the task's data, not a proof:
 * a fact the agent maps to an id ("Park Avenue" to `loc_park_ave`) is not seen as used, and a
 * choice the intent describes but no trait names is not seen at all, so a listed task may still
 * need the caller's answers; a task left out certainly does.
 */
export function passableByOpeningLine(task: Task): boolean {
  const said = ` ${wordsOf(openingLineOf(task.intent))} `;
  const used = ` ${task.exp_tool_calls.map((c) => wordsOf(JSON.stringify(c.parameters ?? {}))).join(' ')} `;
  return task.traits.every((trait) => {
    const fact = wordsOf(String(trait.value));
    return !fact || !used.includes(` ${fact} `) || said.includes(` ${fact} `);
  });
}

/** The tasks of a pack `passableByOpeningLine`, by id. */
export function openingLineTasks(pack: Pack): string[] {
  return [...pack.tasks.values()].filter(passableByOpeningLine).map((t) => t.task_id).sort();
}

/** What the RL routes say when no caller endpoint is configured (at boot, in `GET /rl`, and refusing `llm`). */
export const NO_CALLER_ENDPOINT =
  'no caller endpoint is configured (MIVAS_CALLER_API_KEY, or MIVAS_CALLER_BASE_URL set to an endpoint of your own; docs/caller.md), so episodes get the scripted caller, which says its opening line and then nothing: only tasks passable by the opening line can pass (docs/rl.md "The caller")';

/** NO_CALLER_ENDPOINT with the pack's tasks passable by the opening line. */
export function noCallerEndpointNotice(pack: Pack): string {
  const tasks = openingLineTasks(pack);
  return `${NO_CALLER_ENDPOINT}. In ${pack.id}: ${tasks.length ? tasks.join(', ') : 'none'}`;
}
