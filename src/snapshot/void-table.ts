import type { CallerFile } from './caller-file.ts';
import type { Summary, TimelineEvent, VoidReason } from './schema.ts';
import { deriveVoidFacts, findFatalProviderErrors, findInternalFaults, isInfraEndReason, type VoidFacts } from './void-facts.ts';

/**
 * The one void-reason table of scoring.md §3, in its order: the scorer's verdict
 * (`src/scoring/voids.ts`, which adds `caller_deviation` last) and the server's advisory
 * `void_reason` (`evidence.ts`) both read it, over the shared void facts.
 */

/** Caller-platform statuses meaning the call never connected (scoring.md §3). */
export const NEVER_CONNECTED = ['NO_ANSWER', 'NO_CONNECTION', 'CANCELLED', 'SYSTEM_ERROR'] as const;

/** What void detection reads: the parts that loaded, the summary, the timeline and the platform status. */
export interface VoidTableInput {
  /** Problems with required parts (`missing:timeline.json`, `unreadable:final.json`, `table_absent:x`). */
  readonly snapshotProblems: readonly string[];
  /** The summary's end (the timeline is believed first), or the live record's before a summary exists. */
  readonly summary: Pick<Summary, 'truncated' | 'end_reason' | 'close_code'> | null;
  readonly events: readonly TimelineEvent[] | null;
  readonly platformStatus: string | null;
  /** A caller close sooner than this after the first agent audio is an early drop (0 in --fast). */
  readonly minCallMs: number;
  /** The caller's own record (`caller.json`): a caller whose own endpoint failed is an infra void. */
  readonly caller?: CallerFile | null;
}

/** The first void in table order, the rest in detail; reason null when the conversation is measurable. */
export interface VoidFinding {
  readonly reason: VoidReason | null;
  readonly detail: readonly string[];
}

/** One row of the table: its details when the void applies, else null. */
export type VoidCheck<I extends VoidTableInput = VoidTableInput> = (input: I, facts: VoidFacts) => string[] | null;

/** The shared void facts, the summary as the fallback end. */
function factsOf(input: VoidTableInput): VoidFacts {
  return deriveVoidFacts(input.events ?? [], { endReason: input.summary?.end_reason ?? null, closeCode: input.summary?.close_code ?? null });
}

function isNeverConnected(status: string | null): boolean {
  return status !== null && (NEVER_CONNECTED as readonly string[]).includes(status);
}

const snapshotMissing: VoidCheck = (input, facts) => {
  if (isNeverConnected(input.platformStatus)) return null;
  const found = [...input.snapshotProblems];
  if (input.summary?.truncated) found.push('truncated:summary');
  if (input.events && !facts.ended) found.push('truncated:no_call_ended');
  return found.length ? found : null;
};

/** How a caller mind ends when its own endpoint failed (docs/caller.md). */
const CALLER_FAILURES = new Set(['mind_error', 'cache_miss']);

const infraError: VoidCheck = (input, facts) => {
  const found: string[] = [];
  if (isNeverConnected(input.platformStatus)) found.push(`caller_platform:${input.platformStatus}`);
  for (const reason of new Set([facts.endReason, input.summary?.end_reason])) {
    if (isInfraEndReason(reason)) found.push(`end_reason:${reason}`);
  }
  for (const e of findInternalFaults(input.events ?? [])) found.push(`internal_fault:${e.name}@${e.seq}`);
  // The simulated caller's own endpoint failing is the environment's fault, not a caller deviation.
  if (input.caller?.end_reason && CALLER_FAILURES.has(input.caller.end_reason)) found.push(`caller:${input.caller.end_reason}`);
  return found.length ? found : null;
};

const providerError: VoidCheck = (input, facts) => {
  const found: string[] = [];
  if (facts.endReason === 'provider_error' || input.summary?.end_reason === 'provider_error') found.push('end_reason:provider_error');
  for (const e of findFatalProviderErrors(input.events ?? [])) found.push(`provider.error:${e.code}@${e.seq}`);
  return found.length ? found : null;
};

const noAgentAudio: VoidCheck = (input, facts) => (input.events && facts.firstAgentAudioMs === null ? [] : null);

const callerNeverSpoke: VoidCheck = (input, facts) => (input.events && facts.firstAgentAudioMs !== null && !facts.callerSpoke ? [] : null);

const callerDroppedEarly: VoidCheck = (input, facts) => {
  if (!input.events || facts.endReason !== 'caller_hangup') return null;
  if (facts.abnormalCallerClose) return [`close_code:${facts.closeCode}`];
  if (facts.ended && facts.firstAgentAudioMs !== null) {
    const heldMs = facts.ended.at_ms - facts.firstAgentAudioMs;
    if (heldMs < input.minCallMs) return [`closed_after_ms:${heldMs}`];
  }
  return null;
};

const CHECKS: readonly (readonly [VoidReason, VoidCheck])[] = [
  ['snapshot_missing', snapshotMissing],
  ['infra_error', infraError],
  ['provider_error', providerError],
  ['no_agent_audio', noAgentAudio],
  ['caller_never_spoke', callerNeverSpoke],
  ['caller_dropped_early', callerDroppedEarly],
];

/**
 * Every void condition of the table, then `later` (checks a reader adds at the end); the first
 * that applies is the reason, its details and the other reasons the detail.
 */
export function findVoids<I extends VoidTableInput>(input: I, later: readonly (readonly [VoidReason, VoidCheck<I>])[] = []): VoidFinding {
  const facts = factsOf(input);
  const hits = [...CHECKS, ...later].flatMap(([reason, check]) => {
    const found = (check as VoidCheck<I>)(input, facts);
    return found ? [{ reason, found }] : [];
  });
  const [first, ...rest] = hits;
  if (!first) return { reason: null, detail: [] };
  return { reason: first.reason, detail: [...first.found, ...rest.map((h) => h.reason)] };
}
