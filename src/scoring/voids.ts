import type { Summary, TimelineEvent, VoidReason } from '../snapshot/index.ts';

/** Caller-platform statuses meaning the call never connected (scoring.md §3). */
export const NEVER_CONNECTED = ['NO_ANSWER', 'NO_CONNECTION', 'CANCELLED', 'SYSTEM_ERROR'] as const;

/** Close codes that count as an abnormal caller close (1006, 1011–1014). */
const ABNORMAL_CLOSE = new Set([1006, 1011, 1012, 1013, 1014]);

/** What void detection reads: the parts that loaded, the summary, the timeline and the platform status. */
export interface VoidInput {
  /** Problems with required parts (`missing:timeline.json`, `unreadable:final.json`, `table_absent:x`). */
  readonly snapshotProblems: readonly string[];
  readonly summary: Summary | null;
  readonly events: readonly TimelineEvent[] | null;
  readonly platformStatus: string | null;
  /** A caller close sooner than this after the first agent audio is an early drop (0 in --fast). */
  readonly minCallMs: number;
}

/** The first void in table order, the rest in detail; reason null when the conversation is measurable. */
export interface VoidFinding {
  readonly reason: VoidReason | null;
  readonly detail: readonly string[];
}

type Check = (input: VoidInput, facts: TimelineFacts) => string[] | null;

interface TimelineFacts {
  readonly ended: Extract<TimelineEvent, { type: 'call.ended' }> | undefined;
  readonly endReason: string | null;
  readonly firstAgentAudioMs: number | null;
  readonly callerSpoke: boolean;
}

function factsOf(input: VoidInput): TimelineFacts {
  const events = [...(input.events ?? [])].sort((a, b) => a.seq - b.seq);
  const ended = events.find((e): e is Extract<TimelineEvent, { type: 'call.ended' }> => e.type === 'call.ended');
  const agentAudio = events.find((e) => e.type === 'speech.started' && e.side === 'agent');
  return {
    ended,
    endReason: ended?.end_reason ?? input.summary?.end_reason ?? null,
    firstAgentAudioMs: agentAudio ? agentAudio.at_ms : null,
    callerSpoke: events.some((e) => (e.type === 'speech.started' || e.type === 'speech.completed') && e.side === 'caller'),
  };
}

function isNeverConnected(status: string | null): boolean {
  return status !== null && (NEVER_CONNECTED as readonly string[]).includes(status);
}

const snapshotMissing: Check = (input, facts) => {
  if (isNeverConnected(input.platformStatus)) return null;
  const found = [...input.snapshotProblems];
  if (input.summary?.truncated) found.push('truncated:summary');
  if (input.events && !facts.ended) found.push('truncated:no_call_ended');
  return found.length ? found : null;
};

const infraError: Check = (input, facts) => {
  const found: string[] = [];
  if (isNeverConnected(input.platformStatus)) found.push(`caller_platform:${input.platformStatus}`);
  for (const reason of new Set([facts.endReason, input.summary?.end_reason])) {
    if (reason === 'internal_error' || reason === 'drain_deadline') found.push(`end_reason:${reason}`);
  }
  for (const e of input.events ?? []) if (e.type === 'tool' && e.internal_fault !== null) found.push(`internal_fault:${e.name}@${e.seq}`);
  return found.length ? found : null;
};

const providerError: Check = (input, facts) => {
  const found: string[] = [];
  if (facts.endReason === 'provider_error' || input.summary?.end_reason === 'provider_error') found.push('end_reason:provider_error');
  for (const e of input.events ?? []) if (e.type === 'provider.error' && e.fatal) found.push(`provider.error:${e.code}@${e.seq}`);
  return found.length ? found : null;
};

const noAgentAudio: Check = (input, facts) => (input.events && facts.firstAgentAudioMs === null ? [] : null);

const callerNeverSpoke: Check = (input, facts) => (input.events && facts.firstAgentAudioMs !== null && !facts.callerSpoke ? [] : null);

const callerDroppedEarly: Check = (input, facts) => {
  if (!input.events || facts.endReason !== 'caller_hangup') return null;
  const closeCode = facts.ended?.close_code ?? input.summary?.close_code ?? null;
  if (closeCode !== null && ABNORMAL_CLOSE.has(closeCode)) return [`close_code:${closeCode}`];
  if (facts.ended && facts.firstAgentAudioMs !== null) {
    const heldMs = facts.ended.at_ms - facts.firstAgentAudioMs;
    if (heldMs < input.minCallMs) return [`closed_after_ms:${heldMs}`];
  }
  return null;
};

const CHECKS: readonly (readonly [VoidReason, Check])[] = [
  ['snapshot_missing', snapshotMissing],
  ['infra_error', infraError],
  ['provider_error', providerError],
  ['no_agent_audio', noAgentAudio],
  ['caller_never_spoke', callerNeverSpoke],
  ['caller_dropped_early', callerDroppedEarly],
];

/**
 * Re-derives every void condition of scoring.md §3 from the timeline (the summary only for end
 * reasons); the first in table order is the reason, its details and the other reasons the detail.
 */
export function detectVoids(input: VoidInput): VoidFinding {
  const facts = factsOf(input);
  const hits = CHECKS.flatMap(([reason, check]) => {
    const found = check(input, facts);
    return found ? [{ reason, found }] : [];
  });
  const [first, ...rest] = hits;
  if (!first) return { reason: null, detail: [] };
  return { reason: first.reason, detail: [...first.found, ...rest.map((h) => h.reason)] };
}
