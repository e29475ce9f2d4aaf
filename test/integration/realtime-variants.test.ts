import { describe, expect, it } from 'vitest';
import type { CallerReport } from '../../src/caller/index.ts';
import { PRICE_TABLE } from '../../src/providers/index.ts';
import type { Summary, TimelineEvent } from '../../src/snapshot/index.ts';
import { dial, eventsOf, readSnapshot, startRealtimeRig } from '../support/realtime-call.ts';
import { sessionOf, tone, type StandInConnection, type StandInDialect } from '../support/realtime-server.ts';

const GREETING_MS = 500;

interface VariantCall {
  readonly conn: StandInConnection;
  readonly report: CallerReport;
  readonly summary: Summary;
  readonly events: readonly TimelineEvent[];
}

/** A short call through a variant: greet at `outputRateHz`, wait for the caller, end_call, farewell. */
async function variantCall(harness: string, dialect: StandInDialect, outputRateHz: number): Promise<VariantCall> {
  const rig = await startRealtimeRig(harness, {}, {}, dialect);
  try {
    const callId = `rt_${harness.replace(/\W/g, '_')}`;
    const caller = dial(rig, callId);
    const conn = await rig.standIn.nextConnection();
    await conn.next('response.create');
    conn.respond([{ audio: tone(GREETING_MS, outputRateHz), transcript: 'Hello.' }]);
    await conn.waitForCallerSpeech();
    const end = conn.respond([{ call: { name: 'end_call', args: { reason: 'caller_done' } } }]);
    await conn.toolOutput(end.callIds[0] ?? '');
    await conn.next('response.create');
    conn.respond([{ audio: tone(GREETING_MS, outputRateHz), transcript: 'Goodbye.' }]);
    const report = await caller;
    return { conn, report, ...(await readSnapshot(rig.server, callId)) };
  } finally {
    await rig.close();
  }
}

const flatToolNames = (session: Record<string, unknown>): unknown => (Array.isArray(session.tools) ? session.tools.map((t: { name?: unknown }) => t.name) : null);

describe('provider variants through the same adapter (issue 3 acceptance 6)', () => {
  it('azure/realtime: GA endpoint with the deployment as model, api-key header, GA session shape (wire.md §3.1)', async () => {
    const { conn, report, summary } = await variantCall('azure/realtime', 'ga', 24_000);
    expect(conn.url).toBe('/openai/v1/realtime?model=my-realtime');
    expect(conn.headers['api-key']).toBe('az-test');
    expect(conn.headers.authorization).toBeUndefined();
    const session = sessionOf(conn.received('session.update')[0] ?? { type: '' });
    expect(session).toMatchObject({
      type: 'realtime',
      tool_choice: 'auto',
      output_modalities: ['audio'],
      audio: { input: { format: { type: 'audio/pcm', rate: 24000 }, turn_detection: { type: 'semantic_vad', interrupt_response: true } }, output: { format: { type: 'audio/pcm', rate: 24000 }, voice: 'ash' } },
    });
    expect(flatToolNames(session)).toEqual(['transfer_to_scheduler', 'end_call']);
    expect(report.closeCode).toBe(1000);
    // A deployment name is not a price row: the cost is unknown, not zero.
    expect(summary).toMatchObject({ harness: 'azure/realtime', model: 'my-realtime', cost_usd_est: null, price_table_version: PRICE_TABLE.version });
  });

  it('xai/grok-voice: its endpoint, top-level voice and VAD, 16 kHz both ways, per-minute cost (wire.md §3.2)', async () => {
    const { conn, report, summary } = await variantCall('xai/grok-voice', 'ga', 16_000);
    expect(conn.url).toBe('/v1/realtime?model=grok-voice-think-fast-2.0');
    expect(conn.headers.authorization).toBe('Bearer xai-test');
    const session = sessionOf(conn.received('session.update')[0] ?? { type: '' });
    expect(session).toEqual({
      instructions: expect.stringContaining('Maple Lane Repairs'),
      voice: 'eve',
      turn_detection: { type: 'server_vad', threshold: 0.7, silence_duration_ms: 700, prefix_padding_ms: 400 },
      audio: { input: { format: { type: 'audio/pcm', rate: 16000 }, transcription: { model: 'grok-transcribe' } }, output: { format: { type: 'audio/pcm', rate: 16000 } } },
      tools: expect.any(Array),
    });
    expect(flatToolNames(session)).toEqual(['transfer_to_scheduler', 'end_call']);
    // No resampling at 16 kHz: never more bytes than the caller sent (exact ratios: realtime-audio-rates).
    expect(conn.appendedBytes()).toBeLessThanOrEqual(report.callerAudioBytes);
    expect(report.agentAudioBytes).toBe(2 * GREETING_MS * 32);
    expect(summary.cost_usd_est).toBeCloseTo((summary.duration_ms / 60_000) * 0.08, 5);
    expect(summary.model).toBe('grok-voice-think-fast-2.0');
  });

  it('qwen/omni-realtime: beta session shape, nested tools, 16 kHz in, beta events, a seeded first item (wire.md §3.3, §6.27)', async () => {
    const { conn, report, events } = await variantCall('qwen/omni-realtime', 'beta', 24_000);
    expect(conn.url).toBe('/api-ws/v1/realtime?model=qwen3.5-omni-plus-realtime');
    expect(conn.headers.authorization).toBe('Bearer ds-test');
    expect(conn.headers['x-dashscope-workspace']).toBe('ws-test');
    const session = sessionOf(conn.received('session.update')[0] ?? { type: '' });
    expect(session).toMatchObject({
      modalities: ['text', 'audio'],
      voice: 'Tina',
      input_audio_format: 'pcm',
      output_audio_format: 'pcm',
      input_audio_transcription: { model: 'qwen3-asr-flash-realtime' },
      turn_detection: { type: 'server_vad', threshold: 0.5, silence_duration_ms: 800 },
    });
    expect(session.type).toBeUndefined();
    expect(session.tool_choice).toBeUndefined();
    expect(session.tools).toEqual([
      { type: 'function', function: { name: 'transfer_to_scheduler', description: expect.any(String), parameters: expect.any(Object) } },
      { type: 'function', function: { name: 'end_call', description: expect.any(String), parameters: expect.any(Object) } },
    ]);
    const wire = conn.log.filter((e) => e.dir === 'in' && e.type !== 'input_audio_buffer.append');
    const firstCreate = wire.findIndex((e) => e.type === 'response.create');
    expect(wire[firstCreate - 1]?.event).toMatchObject({
      type: 'conversation.item.create',
      item: { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'The caller is connected.' }] },
    });
    expect(wire[firstCreate]?.event).toMatchObject({ response: { modalities: ['audio', 'text'] } });
    expect(conn.received('conversation.item.create').filter((e) => JSON.stringify(e).includes('The caller is connected.'))).toHaveLength(1);
    expect(conn.appendedBytes()).toBeLessThanOrEqual(report.callerAudioBytes);
    // Beta audio events reached the caller, resampled 24 → 16 kHz.
    expect(Math.abs(report.agentAudioBytes - 2 * GREETING_MS * 32)).toBeLessThanOrEqual(640);
    expect(report.closeCode).toBe(1000);
    expect(eventsOf(events, 'item.injected')).toMatchObject([{ role: 'user', text: 'The caller is connected.' }]);
    expect(eventsOf(events, 'transcript').filter((t) => t.side === 'caller')).toEqual([]);
  });
});
