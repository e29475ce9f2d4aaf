import type { TimelineEvent } from '../snapshot/index.ts';

/** A stretch of sound in one channel of the recording, in ms. */
export type Run = readonly [number, number];

/**
 * Where timeline moments sit in the recording. On a real-time call the timeline's `at_ms` is the
 * recording's own clock, so the map is the identity. On a `--fast` run the agent's audio is not
 * paced: the recorder lays each side's utterances back to back while the timeline keeps the
 * (much shorter) wall-clock times, so the two clocks part. Then each side's utterances are laid
 * out along that side's channel, in order, split by their transcript lengths and snapped to the
 * silences between words, and every other event goes with the agent channel.
 */
export interface MediaMap {
  readonly fast: boolean;
  /** The recording position (ms) of a timeline moment; `side` picks the channel on a fast run. */
  place(atMs: number, side?: 'caller' | 'agent'): number;
}

const IDENTITY: MediaMap = { fast: false, place: (atMs) => atMs };

/** True when the recording is clearly longer than the timeline: the clocks of a `--fast` run. */
export function isFastRecording(events: readonly TimelineEvent[], recordingMs: number): boolean {
  const last = Math.max(0, ...events.map((e) => e.at_ms));
  return recordingMs > last * 1.25 + 500;
}

interface Utterance {
  readonly startMs: number;
  readonly endMs: number;
  readonly weight: number;
}

function utterances(events: readonly TimelineEvent[], side: 'caller' | 'agent'): Utterance[] {
  const open = new Map<string, number>();
  const spans: { startMs: number; endMs: number }[] = [];
  for (const e of events) {
    if (e.type === 'speech.started' && e.side === side) open.set(e.utterance_id, e.at_ms);
    if (e.type === 'speech.completed' && e.side === side) {
      const start = open.get(e.utterance_id);
      open.delete(e.utterance_id);
      if (start !== undefined) spans.push({ startMs: start, endMs: Math.max(start, e.at_ms) });
    }
  }
  for (const start of open.values()) spans.push({ startMs: start, endMs: start });
  spans.sort((a, b) => a.startMs - b.startMs);
  const texts = events.flatMap((e) => (e.type === 'transcript' && e.side === side ? [e.text] : []));
  const byText = texts.length === spans.length;
  return spans.map((s, i) => ({ ...s, weight: byText ? Math.max(1, (texts[i] ?? '').length) : 1 }));
}

/** The silence nearest `target` (the middle of a gap between runs), within `reach` ms; else the target. */
function snap(target: number, runs: readonly Run[], reach: number): number {
  let best = target;
  let bestDist = reach;
  for (let i = 0; i + 1 < runs.length; i++) {
    const mid = ((runs[i] as Run)[1] + (runs[i + 1] as Run)[0]) / 2;
    const d = Math.abs(mid - target);
    if (d < bestDist) {
      bestDist = d;
      best = mid;
    }
  }
  return best;
}

/** Lays a side's utterances over its channel's sound: returns each one's [start, end] in the recording. */
export function layUtterances(list: readonly Utterance[], runs: readonly Run[]): Run[] {
  if (!list.length || !runs.length) return [];
  const from = Math.min((runs[0] as Run)[0], (list[0] as Utterance).startMs);
  const to = (runs[runs.length - 1] as Run)[1];
  const total = list.reduce((s, u) => s + u.weight, 0);
  const out: Run[] = [];
  let at = from;
  let acc = 0;
  for (const [i, u] of list.entries()) {
    acc += u.weight;
    const estimate = from + ((to - from) * acc) / total;
    const end = i === list.length - 1 ? to : Math.max(at, snap(estimate, runs, ((to - from) * u.weight * 0.35) / total));
    out.push([at, end]);
    at = end;
  }
  return out;
}

function mapper(list: readonly Utterance[], laid: readonly Run[]): (atMs: number) => number {
  return (atMs) => {
    if (!laid.length) return atMs;
    for (let i = 0; i < list.length; i++) {
      const u = list[i] as Utterance;
      const [ws, we] = laid[i] as Run;
      if (atMs < u.startMs) return ws;
      if (atMs <= u.endMs) return u.endMs > u.startMs ? ws + ((atMs - u.startMs) / (u.endMs - u.startMs)) * (we - ws) : ws;
    }
    return (laid[laid.length - 1] as Run)[1];
  };
}

/** The map of one conversation: identity on a real-time call, per-channel placement on a fast run. */
export function mediaMap(events: readonly TimelineEvent[] | null, recordingMs: number | null, runs: { readonly left: readonly Run[]; readonly right: readonly Run[] } | null): MediaMap {
  if (!events?.length || recordingMs === null || !runs || !isFastRecording(events, recordingMs)) return IDENTITY;
  const caller = utterances(events, 'caller');
  const agent = utterances(events, 'agent');
  const placeCaller = mapper(caller, layUtterances(caller, runs.left));
  const placeAgent = mapper(agent, layUtterances(agent, runs.right));
  return { fast: true, place: (atMs, side) => Math.max(0, Math.min(recordingMs, side === 'caller' ? placeCaller(atMs) : placeAgent(atMs))) };
}
