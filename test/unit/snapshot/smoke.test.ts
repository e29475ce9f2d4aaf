import { describe, expect, it } from 'vitest';
import { computeSmoke, countClipping, longestDeadAirMs, SMOKE_LIMITS, type SmokeInputs } from '../../../src/snapshot/smoke.ts';
import { Timeline, type TimelineEvent } from '../../../src/snapshot/index.ts';

/** Builds a timeline from [at_ms, event] pairs. */
function timeline(entries: [number, Parameters<Timeline['add']>[0]][]): readonly TimelineEvent[] {
  const t = new Timeline(() => 0);
  for (const [at, e] of entries) t.add(e, at);
  return t.events();
}

const speech = (side: 'caller' | 'agent', id: string, start: number, end: number): [number, Parameters<Timeline['add']>[0]][] => [
  [start, { type: 'speech.started', side, utterance_id: id }],
  [end, { type: 'speech.completed', side, utterance_id: id, interrupted: false }],
];

const tool: [number, Parameters<Timeline['add']>[0]] = [
  5_000,
  { type: 'tool', kind: 'industry', name: 'book_appointment', agent: 'scheduler', tool_call_id: 'c1', arguments: {}, canonical_arguments: {}, output: { ok: true }, duration_ms: 1, executed: true, refusal: null, internal_fault: null },
];

function inputs(overrides: Partial<SmokeInputs> = {}): SmokeInputs {
  return {
    events: timeline([...speech('agent', 'u_1', 500, 3_000), ...speech('caller', 'c_1', 3_500, 6_000), tool, ...speech('agent', 'u_2', 6_200, 9_000)]),
    endMs: 9_100,
    firstAgentAudioMs: 500,
    toolsExpected: true,
    traceId: null,
    telemetryOn: false,
    clippingEvents: 0,
    ...overrides,
  };
}

describe('computeSmoke', () => {
  it('passes a clean call and reports each check', () => {
    expect(computeSmoke(inputs())).toEqual({
      both_sides_spoke: true,
      tools_recorded: true,
      trace_id_present: null,
      dead_air_max_s: 0.5,
      dead_air_ok: true,
      outbound_dropouts: 0,
      clipping_events: 0,
      clean_audio: true,
      first_agent_audio_ms: 500,
      first_audio_ok: true,
      pass: true,
    });
  });

  it('fails when the caller never spoke', () => {
    const smoke = computeSmoke(inputs({ events: timeline([...speech('agent', 'u_1', 500, 3_000), tool]), endMs: 3_100 }));
    expect(smoke.both_sides_spoke).toBe(false);
    expect(smoke.pass).toBe(false);
  });

  it('counts a lone caller speech.completed as the caller speaking, as the void check does', () => {
    const events = timeline([...speech('agent', 'u_1', 500, 3_000), [3_500, { type: 'speech.completed', side: 'caller', utterance_id: 'c_1', interrupted: false }], tool]);
    expect(computeSmoke(inputs({ events, endMs: 3_600 })).both_sides_spoke).toBe(true);
  });

  it('fails when tools were expected and none ran; skips the check when none were expected', () => {
    const noTools = inputs().events.filter((e) => e.type !== 'tool');
    expect(computeSmoke(inputs({ events: noTools })).tools_recorded).toBe(false);
    expect(computeSmoke(inputs({ events: noTools })).pass).toBe(false);
    expect(computeSmoke(inputs({ events: noTools, toolsExpected: null })).tools_recorded).toBeNull();
    expect(computeSmoke(inputs({ events: noTools, toolsExpected: null })).pass).toBe(true);
  });

  it('fails on long dead air, at the limit and not below it', () => {
    const limit = SMOKE_LIMITS.deadAirMaxS * 1000;
    const at = (gap: number) =>
      computeSmoke(inputs({ events: timeline([...speech('agent', 'u_1', 500, 1_000), ...speech('caller', 'c_1', 1_000 + gap, 2_000 + gap), tool]), endMs: 2_000 + gap }));
    expect(at(limit).dead_air_ok).toBe(true);
    expect(at(limit + 1).dead_air_ok).toBe(false);
    expect(at(limit + 1).pass).toBe(false);
    expect(at(limit + 1).dead_air_max_s).toBe((limit + 1) / 1000);
  });

  it('counts underruns and clipping as unclean audio', () => {
    const underrun = computeSmoke(inputs({ events: [...inputs().events, { seq: 99, at_ms: 7_000, type: 'audio.underrun', utterance_id: 'u_2', gap_ms: 150 }] }));
    expect([underrun.outbound_dropouts, underrun.clean_audio, underrun.pass]).toEqual([1, false, false]);
    const clipped = computeSmoke(inputs({ clippingEvents: 2 }));
    expect([clipped.clipping_events, clipped.clean_audio, clipped.pass]).toEqual([2, false, false]);
  });

  it('fails a late or missing first agent audio', () => {
    expect(computeSmoke(inputs({ firstAgentAudioMs: SMOKE_LIMITS.firstAgentAudioMaxMs })).first_audio_ok).toBe(true);
    expect(computeSmoke(inputs({ firstAgentAudioMs: SMOKE_LIMITS.firstAgentAudioMaxMs + 1 })).pass).toBe(false);
    expect(computeSmoke(inputs({ firstAgentAudioMs: null })).first_audio_ok).toBe(false);
  });

  it('checks the trace id only when telemetry is on', () => {
    expect(computeSmoke(inputs({ telemetryOn: true, traceId: null })).trace_id_present).toBe(false);
    expect(computeSmoke(inputs({ telemetryOn: true, traceId: null })).pass).toBe(false);
    expect(computeSmoke(inputs({ telemetryOn: true, traceId: '0'.repeat(32) })).trace_id_present).toBe(true);
  });
});

describe('longestDeadAirMs', () => {
  it('measures from the first agent audio, merges overlaps and counts the tail to hangup', () => {
    const events = timeline([...speech('agent', 'u_1', 100, 1_000), ...speech('caller', 'c_1', 800, 1_500), ...speech('agent', 'u_2', 2_700, 3_000)]);
    expect(longestDeadAirMs(events, 100, 3_100)).toBe(1_200);
    expect(longestDeadAirMs(events, 100, 6_000)).toBe(3_000);
    expect(longestDeadAirMs(events, null, 6_000)).toBe(0);
  });

  it('treats an utterance still open at hangup as running to the end', () => {
    const events = timeline([[100, { type: 'speech.started', side: 'agent', utterance_id: 'u_1' }]]);
    expect(longestDeadAirMs(events, 100, 10_000)).toBe(0);
  });
});

describe('countClipping', () => {
  it('counts runs of three or more full-scale samples once each', () => {
    const pcm = (values: number[]) => {
      const b = Buffer.alloc(values.length * 2);
      values.forEach((v, i) => b.writeInt16LE(v, i * 2));
      return b;
    };
    expect(countClipping(pcm([32767, 32767, 0, -32768, -32768]))).toBe(0);
    expect(countClipping(pcm([32767, 32767, 32767]))).toBe(1);
    expect(countClipping(pcm([32767, 32767, 32767, 32767, 32767, 0, -32768, -32768, -32768]))).toBe(2);
    expect(countClipping(pcm([32766, 32766, 32766]))).toBe(0);
  });
});
