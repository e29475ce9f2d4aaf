import type { Task } from '../packs/index.ts';
import { findVoids, type VoidCheck, type VoidFinding, type VoidTableInput } from '../snapshot/index.ts';
import { detectCallerDeviations } from './caller-deviation.ts';

export { NEVER_CONNECTED, type VoidFinding } from '../snapshot/index.ts';

/** What void detection reads: the table's input, and the conversation's task for the caller-deviation check (absent: not checked). */
export interface VoidInput extends VoidTableInput {
  readonly task?: Task | null;
}

/** The simulated caller broke its task (src/scoring/caller-deviation.ts): a simulator fault, never the agent's. */
const callerDeviation: VoidCheck<VoidInput> = (input) => {
  if (!input.task || !input.events) return null;
  const found = detectCallerDeviations({ task: input.task, events: input.events, caller: input.caller ?? null });
  return found.length ? found.map((d) => `${d.kind}:${d.evidence}`) : null;
};

/**
 * Re-derives every void condition of scoring.md §3 from the timeline (the summary only for end
 * reasons): the one table (`src/snapshot/void-table.ts`), then `caller_deviation` last.
 */
export function detectVoids(input: VoidInput): VoidFinding {
  return findVoids(input, [['caller_deviation', callerDeviation]]);
}
