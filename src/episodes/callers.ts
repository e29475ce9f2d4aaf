import { callerSeed, CallerLog, chatClient, LlmMind, ScriptedMind, type CallerMind } from '../caller/index.ts';
import { systemClock, type Clock } from '../core/index.ts';
import { callerScriptOf, type Pack, type Task } from '../packs/index.ts';

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
 * on the MIVAS_CALLER_* chat endpoint, seeded per task and episode seed) for text episodes.
 */
export function configuredCallers(settings: LlmCallerSettings, clock: Clock = systemClock()): CallerMinds {
  return (request) => {
    if (request.kind !== 'llm') return builtInCallers(request);
    return new LlmMind({
      script: callerScriptOf(request.task),
      model: settings.chat.model,
      seed: callerSeed(settings.seedBase, request.task.task_id, request.seed ?? 0),
      chat: chatClient({ baseUrl: settings.chat.baseUrl, apiKey: settings.chat.apiKey, timeoutMs: settings.chat.timeoutMs, maxBodyBytes: settings.chat.maxBodyBytes }, clock),
      cache: null,
      log: new CallerLog(),
      maxTurns: settings.maxTurns,
    });
  };
}
