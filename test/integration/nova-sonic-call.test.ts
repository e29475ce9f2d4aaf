import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSpeechSynth } from '../../src/audio/index.ts';
import { dialOpeningLine, type CallerReport } from '../../src/caller/index.ts';
import { NOVA_OPENING_CUE } from '../../src/providers/index.ts';
import type { Summary, TimelineEvent } from '../../src/snapshot/index.ts';
import { NovaBedrockStandIn, type NovaStreamConnection } from '../support/nova-bedrock-server.ts';
import { eventsOf, OPENING_LINE, readSnapshot } from '../support/realtime-call.ts';
import { tone } from '../support/realtime-server.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

const CALL_ID = 'nova_full_call';
const GREETING = 'Thanks for calling Maple Lane Repairs.';
const FAREWELL_PARTS = ['You are booked for Wednesday, October seventh.', 'Goodbye.'];
const FAREWELL = FAREWELL_PARTS.join(' ');
const HANDOFF_GAP_BOUND_MS = 1_000;

/** The SDK's default credential chain reads these; the stand-in does not check the signature. */
function fakeAwsCredentials(): () => void {
  const saved = { id: process.env.AWS_ACCESS_KEY_ID, secret: process.env.AWS_SECRET_ACCESS_KEY };
  process.env.AWS_ACCESS_KEY_ID = 'AKIDSTANDIN';
  process.env.AWS_SECRET_ACCESS_KEY = 'standin-secret';
  return () => {
    if (saved.id === undefined) delete process.env.AWS_ACCESS_KEY_ID;
    else process.env.AWS_ACCESS_KEY_ID = saved.id;
    if (saved.secret === undefined) delete process.env.AWS_SECRET_ACCESS_KEY;
    else process.env.AWS_SECRET_ACCESS_KEY = saved.secret;
  };
}

describe('aws/nova-sonic: a control-industry call through the AWS SDK, one stream per specialist (issue 19 acceptance 1, 2)', () => {
  let restore: () => void;
  let standIn: NovaBedrockStandIn;
  let server: TestServer;
  let report: CallerReport;
  let reception: NovaStreamConnection;
  let scheduler: NovaStreamConnection;
  let bookResult: string;
  let summary: Summary;
  let events: readonly TimelineEvent[];

  beforeAll(async () => {
    restore = fakeAwsCredentials();
    standIn = await NovaBedrockStandIn.start();
    const synth = await createSpeechSynth(16_000, { preferTones: true });
    server = await startTestServer({ MIVAS_PACK: 'control-industry', ...standIn.env() }, { synth });
    const caller = dialOpeningLine({ url: server.wsUrl, callId: CALL_ID, taskId: null, runId: null, auth: null, openingLine: OPENING_LINE, synth, paced: true, timeoutMs: 60_000 });
    reception = await standIn.nextConnection();
    await reception.waitFor(() => reception.textBlocks('USER').includes(NOVA_OPENING_CUE), 'the opening cue');
    reception.speak(tone(800, 24_000), GREETING);
    await reception.waitForCallerSpeech();
    reception.callerSaid(OPENING_LINE);
    reception.useTool('tu_hop', 'transfer_to_scheduler', {});
    scheduler = await standIn.nextConnection();
    await scheduler.waitFor(() => scheduler.textBlocks('USER').some((t) => t.includes('transferred from reception')), 'the handoff cue');
    scheduler.useTool('tu_book', 'book_appointment', { date: '2026-10-07' });
    bookResult = await scheduler.toolResult('tu_book');
    // As Nova orders it: the tool block, its result, then the spoken answer (the goodbye).
    scheduler.useTool('tu_end', 'end_call', { reason: 'caller_done' });
    await scheduler.toolResult('tu_end');
    // The goodbye comes in two parts split by PARTIAL_TURN: still one answer (one response, one utterance).
    scheduler.speakInParts(FAREWELL_PARTS.map((text, i) => ({ pcm: tone(300, 24_000, 550 + 50 * i), text })));
    report = await caller;
    ({ summary, events } = await readSnapshot(server, CALL_ID));
  }, 60_000);
  afterAll(async () => {
    await server?.close();
    await standIn?.close();
    restore?.();
  });

  it('opens the stream in the documented order: session, prompt with 24 kHz audio and tools, system text, then the audio block', () => {
    expect(reception.path).toBe(`/model/${encodeURIComponent('amazon.nova-2-sonic-v1:0')}/invoke-with-bidirectional-stream`);
    expect(String(reception.headers.authorization)).toMatch(/^AWS4-HMAC-SHA256 Credential=AKIDSTANDIN\//);
    const names = reception.received.map((e) => e.name);
    expect(names.slice(0, 6)).toEqual(['sessionStart', 'promptStart', 'contentStart', 'textInput', 'contentEnd', 'contentStart']);
    expect(reception.received[0]?.body).toEqual({ inferenceConfiguration: { maxTokens: 1024, topP: 0.9, temperature: 0.7 }, turnDetectionConfiguration: { endpointingSensitivity: 'MEDIUM' } });
    const prompt = reception.received[1]?.body as { audioOutputConfiguration: unknown; toolConfiguration: { tools: { toolSpec: { name: string; inputSchema: { json: string } } }[] } };
    expect(prompt.audioOutputConfiguration).toMatchObject({ mediaType: 'audio/lpcm', sampleRateHertz: 24000, sampleSizeBits: 16, channelCount: 1, voiceId: 'matthew' });
    expect(prompt.toolConfiguration.tools.map((t) => t.toolSpec.name)).toEqual(['transfer_to_scheduler', 'end_call']);
    expect(typeof prompt.toolConfiguration.tools[0]?.toolSpec.inputSchema.json).toBe('string');
    expect(reception.received[2]?.body).toMatchObject({ type: 'TEXT', role: 'SYSTEM' });
    expect(reception.textBlocks('SYSTEM')[0]).toContain('Maple Lane Repairs');
    expect(reception.received[5]?.body).toMatchObject({ type: 'AUDIO', role: 'USER', interactive: true, audioInputConfiguration: { mediaType: 'audio/lpcm', sampleRateHertz: 16000 } });
  });

  it('seeds the scheduler stream with the history as text, the handoff result included, and never answers the handoff on the old one', async () => {
    const prompt = scheduler.received[1]?.body as { toolConfiguration: { tools: { toolSpec: { name: string } }[] } };
    expect(prompt.toolConfiguration.tools.map((t) => t.toolSpec.name)).toEqual(['check_date', 'book_appointment', 'end_call']);
    expect(scheduler.textBlocks('SYSTEM')[0]).toContain('YOUR ROLE: Scheduler');
    const users = scheduler.textBlocks('USER');
    const assistants = scheduler.textBlocks('ASSISTANT');
    // The seed opens with a USER turn (a placeholder, since the agent spoke first).
    const firstSeed = scheduler.received.find((e) => e.name === 'contentStart' && e.body.type === 'TEXT' && e.body.role !== 'SYSTEM');
    expect(firstSeed?.body.role).toBe('USER');
    expect(users).toContain(OPENING_LINE);
    expect(assistants[0]).toBe(GREETING);
    expect(assistants.join('\n')).toContain('reception called transfer_to_scheduler with {}; it returned {"assistant":"scheduler"}');
    expect(reception.of('toolResult')).toEqual([]);
    expect(reception.of('sessionEnd')).toHaveLength(1);
    await reception.ended;
  });

  it('sends tool results as TOOL blocks and the booking lands', () => {
    expect(JSON.parse(bookResult)).toMatchObject({ ok: true, data: { date: '2026-10-07' } });
    expect(summary.counts.rows_written).toBeGreaterThan(0);
  });

  it('keeps the caller’s silence at the handoff under the stated bound', () => {
    const handoff = eventsOf(events, 'handoff')[0];
    const next = eventsOf(events, 'speech.started').find((e) => e.side === 'agent' && e.seq > (handoff?.seq ?? Infinity));
    expect((next?.at_ms ?? Infinity) - (handoff?.at_ms ?? 0)).toBeLessThanOrEqual(HANDOFF_GAP_BOUND_MS);
  });

  it('ends after the farewell, with transcripts and usage in speech and text classes', () => {
    expect(report.closeCode).toBe(1000);
    expect(summary.end_reason).toBe('agent_end_call');
    expect(summary.void_reason).toBeNull();
    expect(summary.harness).toBe('aws/nova-sonic');
    expect(eventsOf(events, 'transcript').map((t) => [t.side, t.text])).toEqual([
      ['agent', GREETING],
      ['caller', OPENING_LINE],
      ['agent', FAREWELL],
    ]);
    expect(summary.usage).toMatchObject({ input_audio_tokens: 120, input_text_tokens: 80, output_audio_tokens: 90, output_text_tokens: 10 });
  });

  it('sent nothing the strict stand-in refused', () => {
    expect([...reception.violations, ...scheduler.violations]).toEqual([]);
  });

  it('records an answer split by PARTIAL_TURN as one response and one utterance, ended by END_TURN', () => {
    const lastHandoff = eventsOf(events, 'handoff')[0]?.seq ?? Infinity;
    const spoken = eventsOf(events, 'speech.started').filter((e) => e.side === 'agent' && e.seq > lastHandoff);
    expect(spoken).toHaveLength(1);
    const farewell = eventsOf(events, 'transcript').filter((t) => t.side === 'agent').at(-1);
    expect(farewell?.text).toBe(FAREWELL);
    // The response of the goodbye's item is done once, completed, after both parts were played.
    const done = eventsOf(events, 'response.done').filter((r) => r.response_id === farewell?.utterance_id?.replace('_item_', '_resp_'));
    expect(done).toMatchObject([{ status: 'completed' }]);
  });
});

describe('aws/nova-sonic: a stream lost at the handoff ends the call with a typed void', () => {
  it('records handoff_stream_lost and ends with provider_error', async () => {
    const restore = fakeAwsCredentials();
    const standIn = await NovaBedrockStandIn.start();
    standIn.refuse.add(2);
    const synth = await createSpeechSynth(16_000, { preferTones: true });
    const server = await startTestServer({ MIVAS_PACK: 'control-industry', ...standIn.env() }, { synth });
    try {
      const caller = dialOpeningLine({ url: server.wsUrl, callId: 'nova_lost', taskId: null, runId: null, auth: null, openingLine: OPENING_LINE, synth, paced: true, timeoutMs: 30_000 });
      const reception = await standIn.nextConnection();
      await reception.waitFor(() => reception.textBlocks('USER').includes(NOVA_OPENING_CUE), 'the opening cue');
      reception.speak(tone(300, 24_000), GREETING);
      await reception.waitForCallerSpeech();
      reception.useTool('tu_hop', 'transfer_to_scheduler', {});
      const report = await caller;
      expect(report.closeCode).toBe(1011);
      const { summary, events } = await readSnapshot(server, 'nova_lost');
      expect(summary.void_reason).toBe('provider_error');
      expect(eventsOf(events, 'provider.error')).toMatchObject([{ code: 'handoff_stream_lost', fatal: true }]);
    } finally {
      await server.close();
      await standIn.close();
      restore();
    }
  }, 40_000);
});
