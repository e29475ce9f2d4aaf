import { ScriptedMind, type CallerMind } from '../caller/index.ts';
import type { Pack, Task } from '../packs/index.ts';

/** What an episode asks for when it needs a caller (DESIGN.md §17). */
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

/**
 * The callers this build has: `scripted` (the task's opening line, then silence). The `llm` and
 * `external` minds plug in here (the caller branch, issue 16) by wrapping this factory.
 */
export const builtInCallers: CallerMinds = (request) => (request.kind === 'scripted' ? new ScriptedMind(request.task) : null);
