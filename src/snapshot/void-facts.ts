import type { EndReason, TimelineEvent } from './schema.ts';

/**
 * The facts a void decision rests on (scoring.md §3), derived one way for both readers: the
 * server's advisory `void_reason` (`src/snapshot/evidence.ts`) and the scorer's
 * (`src/scoring/voids.ts`). Pure functions over the timeline, with the end reason and close code
 * the summary (or the live call) recorded as the fallback when the timeline has no `call.ended`.
 */

type CallEnded = Extract<TimelineEvent, { type: 'call.ended' }>;

/**
 * Close codes that mean the caller's side broke rather than hung up: 1006 (no close frame; a
 * peer terminated after a missed ping also records 1006) and 1011–1014.
 */
export const ABNORMAL_CLOSE_CODES: readonly number[] = [1006, 1011, 1012, 1013, 1014];

/**
 * End reasons meaning the call could not measure the agent (infra_error): it ended on our side
 * (`internal_error`, `drain_deadline`), or the caller's platform broke the wire's real-time
 * contract (`caller_flood`: audio far ahead of real time, or a storm of text frames), as a caller
 * platform that never connects does.
 */
const INFRA_END_REASONS: readonly EndReason[] = ['internal_error', 'drain_deadline', 'caller_flood'];

/** The end reason and close code recorded outside the timeline (the summary, or the live call). */
export interface RecordedEnd {
  readonly endReason: EndReason | null;
  readonly closeCode: number | null;
}

/** What both void readers derive from one call. */
export interface VoidFacts {
  /** The timeline's `call.ended`, or null when the timeline stops short of it. */
  readonly ended: CallEnded | null;
  /** From `call.ended`, else as recorded. */
  readonly endReason: EndReason | null;
  /** From `call.ended` when it has one, else as recorded. */
  readonly closeCode: number | null;
  /** Media offset of the first agent utterance; null when no agent audio reached the caller. */
  readonly firstAgentAudioMs: number | null;
  /** A caller speech segment was recorded during the call. */
  readonly callerSpoke: boolean;
  /** The caller closed the socket (`caller_hangup`) with an abnormal close code. */
  readonly abnormalCallerClose: boolean;
}

/** Events in seq order, up to and including `call.ended`: what happened after the call is not part of it. */
export function selectCallEvents(events: readonly TimelineEvent[]): TimelineEvent[] {
  const ordered = [...events].sort((a, b) => a.seq - b.seq);
  const end = ordered.findIndex((e) => e.type === 'call.ended');
  return end < 0 ? ordered : ordered.slice(0, end + 1);
}

/**
 * True when the caller spoke during the call: a caller `speech.started` or `speech.completed`
 * before `call.ended`. Either one marks a segment, since Bluejay's events are not strictly
 * bracketed (wire.md §1.4); speech recorded after the call ended does not count.
 */
export function hasCallerSpoken(events: readonly TimelineEvent[]): boolean {
  return callerSpokeIn(selectCallEvents(events));
}

/** Media offset of the first agent `speech.started` during the call, or null when the agent never spoke. */
export function findFirstAgentAudioMs(events: readonly TimelineEvent[]): number | null {
  return firstAgentAudioIn(selectCallEvents(events));
}

function callerSpokeIn(call: readonly TimelineEvent[]): boolean {
  return call.some((e) => (e.type === 'speech.started' || e.type === 'speech.completed') && e.side === 'caller');
}

function firstAgentAudioIn(call: readonly TimelineEvent[]): number | null {
  return call.find((e) => e.type === 'speech.started' && e.side === 'agent')?.at_ms ?? null;
}

/** True for a caller hang-up (`caller_hangup`) whose close code is abnormal. */
export function isAbnormalCallerClose(endReason: EndReason | null, closeCode: number | null): boolean {
  return endReason === 'caller_hangup' && closeCode !== null && ABNORMAL_CLOSE_CODES.includes(closeCode);
}

/** True for the end reasons that void a call as infra_error (our side, or a flooding caller platform). */
export function isInfraEndReason(endReason: EndReason | null | undefined): boolean {
  return endReason != null && INFRA_END_REASONS.includes(endReason);
}

/** Tool events marked as an internal fault (pack code threw instead of refusing). */
export function findInternalFaults(events: readonly TimelineEvent[]): Extract<TimelineEvent, { type: 'tool' }>[] {
  return events.filter((e): e is Extract<TimelineEvent, { type: 'tool' }> => e.type === 'tool' && e.internal_fault !== null);
}

/** Provider errors that ended the model connection. */
export function findFatalProviderErrors(events: readonly TimelineEvent[]): Extract<TimelineEvent, { type: 'provider.error' }>[] {
  return events.filter((e): e is Extract<TimelineEvent, { type: 'provider.error' }> => e.type === 'provider.error' && e.fatal);
}

/** Derives the void facts of one call; `call.ended` wins over the recorded end where it says something. */
export function deriveVoidFacts(events: readonly TimelineEvent[], recorded: RecordedEnd): VoidFacts {
  const call = selectCallEvents(events);
  const last = call.at(-1);
  const ended = last?.type === 'call.ended' ? last : null;
  const endReason = ended?.end_reason ?? recorded.endReason;
  const closeCode = ended?.close_code ?? recorded.closeCode;
  return {
    ended,
    endReason,
    closeCode,
    firstAgentAudioMs: firstAgentAudioIn(call),
    callerSpoke: callerSpokeIn(call),
    abnormalCallerClose: isAbnormalCallerClose(endReason, closeCode),
  };
}
