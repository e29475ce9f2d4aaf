import { beforeAll, describe, expect, it } from 'vitest';
import type { Pack } from '../../../src/packs/index.ts';
import type { TimelineEventInput } from '../../../src/snapshot/index.ts';
import { callFacts, MivasMetrics } from '../../../src/telemetry/index.ts';
import { loadControlPack, sampleEvents, sampleRecord } from '../../support/call-record.ts';
import { parsePrometheus, sumOf } from '../../support/prometheus.ts';

/** The sample call plus what the five newer series are derived from. */
function latencyEvents(): [TimelineEventInput, number][] {
  const events = sampleEvents();
  const [started, ...rest] = events;
  return [
    ...(started ? [started] : []),
    [{ type: 'provider.ready', connect_ms: 180 }, 190],
    [{ type: 'response.first_audio', response_id: 'resp_1', ttft_ms: 420 }, 390],
    ...rest,
    // u_1 played to its end (completed at 2000); u_2 was cut, so it had no mark and its "echo" is not one.
    [{ type: 'mark.echo', name: 'u_000000000001' }, 2_230],
    [{ type: 'mark.echo', name: 'u_000000000001' }, 2_500],
    [{ type: 'mark.echo', name: 'u_000000000002' }, 6_700],
    [{ type: 'audio.clock_reset', utterance_id: 'u_000000000001', behind_ms: 150 }, 1_500],
    [{ type: 'audio.clock_reset', utterance_id: 'u_000000000001', behind_ms: 120 }, 1_800],
  ];
}

/** The mivas families only: a process metric scraped this early can read `Nan`, which is not Prometheus text. */
async function scrapeMivas(metrics: MivasMetrics): Promise<ReturnType<typeof parsePrometheus>> {
  const body = (await metrics.scrape()).body;
  return parsePrometheus(body.split('\n').filter((line) => /^(# (HELP|TYPE) )?mivas_/.test(line)).join('\n'));
}

function newMetrics(): MivasMetrics {
  return new MivasMetrics({ liveCalls: () => 0, maxCalls: () => 5, isDraining: () => false, snapshotBacklog: () => ({ count: 0, oldestMs: 0 }) });
}

describe('latencies and clock resets from a finished record', () => {
  let pack: Pack;
  beforeAll(async () => {
    pack = await loadControlPack();
  });

  it('reads connect, time to first audio, the first echo of each sent mark and the clock resets', () => {
    const record = sampleRecord(pack, '680', latencyEvents());
    const facts = callFacts(record);
    expect({ providerConnectMs: facts.providerConnectMs, ttftMs: facts.ttftMs, markEchoMs: facts.markEchoMs }).toEqual({ providerConnectMs: [180], ttftMs: [420], markEchoMs: [230] });
    expect(facts.clockResets).toBe(2);
  });

  it('exports them with the spec names, types and labels', async () => {
    const metrics = newMetrics();
    metrics.callEnded(sampleRecord(pack, '681', latencyEvents()));
    const { samples, types } = await scrapeMivas(metrics);
    expect(types.get('mivas_pacer_clock_resets_total')).toBe('counter');
    expect(types.get('mivas_mark_echo_seconds')).toBe('histogram');
    expect(types.get('mivas_provider_connect_seconds')).toBe('histogram');
    expect(types.get('mivas_model_ttft_seconds')).toBe('histogram');
    expect(types.get('mivas_rate_limit_remaining')).toBe('gauge');
    expect(sumOf(samples, 'mivas_pacer_clock_resets_total')).toBe(2);
    // The sample record's pacer counted 380 intervals, one of them off by more than 5 ms.
    expect(samples.filter((m) => m.name === 'mivas_pacer_frame_intervals_total').map((m) => [m.labels.off_by, m.value])).toEqual([['within_5ms', 379], ['over_5ms', 1]]);
    expect(sumOf(samples, 'mivas_mark_echo_seconds_count')).toBe(1);
    expect(sumOf(samples, 'mivas_mark_echo_seconds_sum')).toBeCloseTo(0.23);
    expect(sumOf(samples, 'mivas_provider_connect_seconds_sum', { provider: 'scripted' })).toBeCloseTo(0.18);
    expect(sumOf(samples, 'mivas_model_ttft_seconds_sum', { provider: 'scripted', model: 'scripted' })).toBeCloseTo(0.42);
  });

  it('keeps the latest rate-limit remainder per provider and name', async () => {
    const metrics = newMetrics();
    metrics.rateLimitsUpdated('openai/realtime', [{ name: 'tokens', remaining: 900 }, { name: 'requests', remaining: 9 }]);
    metrics.rateLimitsUpdated('openai/realtime', [{ name: 'tokens', remaining: 750 }]);
    const { samples } = await scrapeMivas(metrics);
    expect(sumOf(samples, 'mivas_rate_limit_remaining', { provider: 'openai/realtime', name: 'tokens' })).toBe(750);
    expect(sumOf(samples, 'mivas_rate_limit_remaining', { provider: 'openai/realtime', name: 'requests' })).toBe(9);
  });
});
