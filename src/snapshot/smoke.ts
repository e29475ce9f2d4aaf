import type { Smoke, TimelineEvent } from './schema.ts';
import { findFirstAgentAudioMs, hasCallerSpoken } from './void-facts.ts';

/** Thresholds of the smoke rubric (scoring.md §10). */
export const SMOKE_LIMITS = { deadAirMaxS: 25, firstAgentAudioMaxMs: 3000 } as const;

interface Interval {
  readonly start: number;
  readonly end: number;
}

function speechIntervals(events: readonly TimelineEvent[], endMs: number): Interval[] {
  const open = new Map<string, number>();
  const out: Interval[] = [];
  for (const e of events) {
    if (e.type === 'speech.started') open.set(`${e.side}:${e.utterance_id}`, e.at_ms);
    if (e.type === 'speech.completed') {
      const key = `${e.side}:${e.utterance_id}`;
      const start = open.get(key);
      if (start !== undefined) out.push({ start, end: e.at_ms });
      open.delete(key);
    }
  }
  for (const start of open.values()) out.push({ start, end: endMs });
  return out.sort((a, b) => a.start - b.start);
}

/** The longest stretch with neither side speaking, from first agent audio to hangup, in ms. */
export function longestDeadAirMs(events: readonly TimelineEvent[], firstAgentAudioMs: number | null, endMs: number): number {
  if (firstAgentAudioMs === null) return 0;
  let cursor = firstAgentAudioMs;
  let longest = 0;
  for (const { start, end } of speechIntervals(events, endMs)) {
    if (end <= cursor) continue;
    if (start > cursor) longest = Math.max(longest, start - cursor);
    cursor = Math.max(cursor, end);
  }
  return Math.max(longest, endMs - cursor);
}

/** Inputs the rubric needs beyond the timeline. */
export interface SmokeInputs {
  readonly events: readonly TimelineEvent[];
  readonly endMs: number;
  readonly firstAgentAudioMs: number | null;
  readonly toolsExpected: boolean | null;
  readonly traceId: string | null;
  readonly telemetryOn: boolean;
  readonly clippingEvents: number;
}

/** Computes the six-check smoke rubric at hangup. */
export function computeSmoke(input: SmokeInputs): Smoke {
  const dropouts = input.events.filter((e) => e.type === 'audio.underrun').length;
  const deadAirMs = longestDeadAirMs(input.events, input.firstAgentAudioMs, input.endMs);
  const toolsRecorded = input.toolsExpected ? input.events.some((e) => e.type === 'tool') : null;
  const traceIdPresent = input.telemetryOn ? input.traceId !== null : null;
  const smoke = {
    // The same "caller spoke" as the caller_never_spoke void (src/snapshot/void-facts.ts).
    both_sides_spoke: hasCallerSpoken(input.events) && findFirstAgentAudioMs(input.events) !== null,
    tools_recorded: toolsRecorded,
    trace_id_present: traceIdPresent,
    dead_air_max_s: Math.round(deadAirMs) / 1000,
    dead_air_ok: deadAirMs <= SMOKE_LIMITS.deadAirMaxS * 1000,
    outbound_dropouts: dropouts,
    clipping_events: input.clippingEvents,
    clean_audio: dropouts === 0 && input.clippingEvents === 0,
    first_agent_audio_ms: input.firstAgentAudioMs,
    first_audio_ok: input.firstAgentAudioMs !== null && input.firstAgentAudioMs <= SMOKE_LIMITS.firstAgentAudioMaxMs,
  };
  const pass = smoke.both_sides_spoke && toolsRecorded !== false && traceIdPresent !== false && smoke.dead_air_ok && smoke.clean_audio && smoke.first_audio_ok;
  return { ...smoke, pass };
}

/** Counts runs of three or more consecutive full-scale samples in a PCM16 buffer. */
export function countClipping(pcm: Buffer): number {
  let run = 0;
  let events = 0;
  for (let i = 0; i + 1 < pcm.length; i += 2) {
    const v = pcm.readInt16LE(i);
    if (v >= 32767 || v <= -32768) {
      run++;
      if (run === 3) events++;
    } else run = 0;
  }
  return events;
}
