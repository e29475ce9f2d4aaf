import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSpeechSynth } from '../../src/audio/index.ts';
import { dialOpeningLine, type CallerReport } from '../../src/caller/index.ts';
import { estimateCost, GEMINI_OPENING_CUE, SEED_HEADING } from '../../src/providers/index.ts';
import type { Summary, TimelineEvent } from '../../src/snapshot/index.ts';
import { GEMINI_USAGE, GeminiLiveStandIn, type GeminiClientMessage, type GeminiConnection } from '../support/gemini-live-server.ts';
import { eventsOf, OPENING_LINE, readSnapshot } from '../support/realtime-call.ts';
import { tone } from '../support/realtime-server.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

const CALL_ID = 'gemini_full_call';
const GREETING = 'Thanks for calling Maple Lane Repairs.';
const FAREWELL = 'You are booked for Wednesday, October seventh. Goodbye.';
/** The longest silence the caller may hear at the handoff against a prompt stand-in (docs/providers.md). */
const HANDOFF_GAP_BOUND_MS = 1_000;

function setupOf(m: GeminiClientMessage | undefined): Record<string, unknown> {
  return (m?.setup ?? {}) as Record<string, unknown>;
}

function toolNames(setup: Record<string, unknown>): string[] {
  const tools = setup.tools as { functionDeclarations: { name: string }[] }[];
  return tools.flatMap((t) => t.functionDeclarations.map((f) => f.name));
}

describe('google/gemini-live: a control-industry call, one stream per specialist (issue 19 acceptance 1, 2)', () => {
  let standIn: GeminiLiveStandIn;
  let server: TestServer;
  let report: CallerReport;
  let reception: GeminiConnection;
  let scheduler: GeminiConnection;
  let seed: string;
  let cue: GeminiClientMessage;
  let bookResponse: { id?: string; name: string; response: Record<string, unknown> }[];
  let summary: Summary;
  let events: readonly TimelineEvent[];

  beforeAll(async () => {
    standIn = await GeminiLiveStandIn.start();
    const synth = await createSpeechSynth(16_000, { preferTones: true });
    server = await startTestServer({ MIVAS_PACK: 'control-industry', ...standIn.env() }, { synth });
    const caller = dialOpeningLine({ url: server.wsUrl, callId: CALL_ID, taskId: null, runId: null, auth: null, openingLine: OPENING_LINE, synth, paced: true, timeoutMs: 60_000 });
    reception = await standIn.nextConnection();
    await reception.next('text');
    reception.speak(tone(800, 24_000), GREETING);
    await reception.waitForCallerSpeech();
    reception.callerSaid(OPENING_LINE);
    // The Live API has been seen to send calls without an id: the harness makes one up.
    reception.callTools([{ name: 'transfer_to_scheduler', args: {}, id: null }]);
    scheduler = await standIn.nextConnection();
    seed = String((setupOf(await scheduler.next('setup')).systemInstruction as { parts: { text: string }[] }).parts[1]?.text);
    cue = await scheduler.next('text');
    scheduler.callTools([{ name: 'book_appointment', args: { date: '2026-10-07' }, id: 'fc_book' }]);
    bookResponse = await scheduler.toolResponses();
    scheduler.speak(tone(600, 24_000, 550), FAREWELL, { turnComplete: false });
    scheduler.callTools([{ name: 'end_call', args: { reason: 'caller_done' }, id: 'fc_end' }]);
    await scheduler.toolResponses();
    scheduler.turnComplete();
    report = await caller;
    ({ summary, events } = await readSnapshot(server, CALL_ID));
  }, 60_000);
  afterAll(async () => {
    await server?.close();
    await standIn?.close();
  });

  it('opens the entry stream through the SDK with the setup the Live API documents, then cues the greeting', () => {
    // The SDK joins its ws base URL (which ends in "/") and "/ws/…": the double slash is its own.
    expect(reception.url).toBe('//ws/google.ai.generativelanguage.v1beta.GenerativeService.BidiGenerateContent?key=gm-test-key');
    const setup = setupOf(reception.received[0]);
    expect(setup).toMatchObject({
      model: 'models/gemini-3.8-live',
      generationConfig: { responseModalities: ['AUDIO'], speechConfig: { voiceConfig: { prebuiltVoiceConfig: { voiceName: 'Puck' } } } },
      realtimeInputConfig: { automaticActivityDetection: { startOfSpeechSensitivity: 'START_SENSITIVITY_HIGH', endOfSpeechSensitivity: 'END_SENSITIVITY_HIGH', silenceDurationMs: 500 } },
      inputAudioTranscription: {},
      outputAudioTranscription: {},
      sessionResumption: {},
      contextWindowCompression: { slidingWindow: {} },
    });
    expect(setup.historyConfig).toBeUndefined();
    expect(toolNames(setup)).toEqual(['transfer_to_scheduler', 'end_call']);
    // An argument-less tool has no parameters (an empty OBJECT is refused); every call is BLOCKING.
    const declarations = (setup.tools as { functionDeclarations: Record<string, unknown>[] }[])[0]?.functionDeclarations ?? [];
    expect(declarations[0]).toEqual({ name: 'transfer_to_scheduler', description: expect.any(String), behavior: 'BLOCKING' });
    expect(declarations.every((d) => d.behavior === 'BLOCKING')).toBe(true);
    expect(JSON.stringify(setup.systemInstruction)).toContain('Maple Lane Repairs');
    expect(reception.of('text')[0]).toEqual({ realtimeInput: { text: GEMINI_OPENING_CUE } });
    const audio = reception.of('audio')[0]?.realtimeInput as { audio: { mimeType: string } } | undefined;
    expect(audio?.audio.mimeType).toBe('audio/pcm;rate=16000');
  });

  it('opens a new stream for the scheduler with its own instructions and tools and the conversation so far in its instructions', () => {
    const setup = setupOf(scheduler.received[0]);
    expect(toolNames(setup)).toEqual(['check_date', 'book_appointment', 'end_call']);
    expect(JSON.stringify(setup.systemInstruction)).toContain('YOUR ROLE: Scheduler');
    // No clientContent: the SDK (3.3) drops historyConfig, without which 3.x models take clientContent only as initial history.
    expect(setup.historyConfig).toBeUndefined();
    expect(scheduler.of('clientContent')).toEqual([]);
    expect(seed.split('\n')).toEqual([SEED_HEADING, `Agent: ${GREETING}`, `Caller: ${OPENING_LINE}`, expect.stringContaining('reception called transfer_to_scheduler with {}; it returned {"assistant":"scheduler"}')]);
    expect(String((cue.realtimeInput as { text: string }).text)).toContain('transferred from reception to you, scheduler');
  });

  it('never answers the handoff on the old stream, and closes it', async () => {
    expect(reception.of('toolResponse')).toEqual([]);
    expect(await reception.closed).toBeGreaterThanOrEqual(1000);
    const hop = eventsOf(events, 'tool').find((e) => e.name === 'transfer_to_scheduler');
    expect(hop?.tool_call_id).toMatch(/^gemini_call_/);
  });

  it('answers the booking by id in one toolResponse and the write lands', () => {
    expect(bookResponse).toEqual([{ id: 'fc_book', name: 'book_appointment', response: expect.objectContaining({ ok: true }) }]);
    expect(eventsOf(events, 'tool').find((e) => e.name === 'book_appointment')?.executed).toBe(true);
    expect(summary.counts.rows_written).toBeGreaterThan(0);
  });

  it('keeps the caller’s silence at the handoff under the stated bound', () => {
    const handoff = eventsOf(events, 'handoff')[0];
    const nextSpeech = eventsOf(events, 'speech.started').find((e) => e.side === 'agent' && e.seq > (handoff?.seq ?? Infinity));
    expect(nextSpeech).toBeDefined();
    expect((nextSpeech?.at_ms ?? Infinity) - (handoff?.at_ms ?? 0)).toBeLessThanOrEqual(HANDOFF_GAP_BOUND_MS);
  });

  it('ends after the farewell with transcripts and usage', () => {
    expect(report.closeCode).toBe(1000);
    expect(summary.end_reason).toBe('agent_end_call');
    expect(summary.void_reason).toBeNull();
    expect(summary.harness).toBe('google/gemini-live');
    expect(eventsOf(events, 'transcript').map((t) => [t.side, t.text])).toEqual([
      ['agent', GREETING],
      ['caller', OPENING_LINE],
      ['agent', FAREWELL],
    ]);
    expect(summary.usage.input_audio_tokens).toBeGreaterThan(0);
    expect(summary.usage.output_audio_tokens).toBeGreaterThan(0);
  });

  it('counts thinking and tool-use prompt tokens in the usage', () => {
    const turns = eventsOf(events, 'response.done').filter((r) => r.usage !== null).length;
    expect(turns).toBeGreaterThan(0);
    expect(summary.usage.output_tokens).toBe(turns * ((GEMINI_USAGE.responseTokenCount ?? 0) + (GEMINI_USAGE.thoughtsTokenCount ?? 0)));
    expect(summary.usage.input_tokens).toBe(turns * ((GEMINI_USAGE.promptTokenCount ?? 0) + (GEMINI_USAGE.toolUsePromptTokenCount ?? 0)));
    expect(summary.usage.output_text_tokens).toBe(turns * (GEMINI_USAGE.thoughtsTokenCount ?? 0));
    // The default model has a price row: the call shows its cost, thinking and tool-use tokens included.
    expect(summary.cost_usd_est).toBeGreaterThan(0);
    expect(summary.cost_usd_est).toBe(estimateCost(summary.model, summary.usage, summary.duration_ms).costUsd);
  });

  it('sent nothing the strict stand-in refused', () => {
    expect([...reception.violations, ...scheduler.violations]).toEqual([]);
  });
});

describe('google/gemini-live: a stream lost at the handoff ends the call with a typed void', () => {
  it('records handoff_stream_lost and ends with provider_error', async () => {
    const standIn = await GeminiLiveStandIn.start();
    standIn.refuse.add(2);
    const synth = await createSpeechSynth(16_000, { preferTones: true });
    const server = await startTestServer({ MIVAS_PACK: 'control-industry', ...standIn.env() }, { synth });
    try {
      const caller = dialOpeningLine({ url: server.wsUrl, callId: 'gemini_lost', taskId: null, runId: null, auth: null, openingLine: OPENING_LINE, synth, paced: true, timeoutMs: 30_000 });
      const reception = await standIn.nextConnection();
      await reception.next('text');
      reception.speak(tone(300, 24_000), GREETING);
      await reception.waitForCallerSpeech();
      reception.callTools([{ name: 'transfer_to_scheduler', args: {} }]);
      const report = await caller;
      expect(report.closeCode).toBe(1011);
      const { summary, events } = await readSnapshot(server, 'gemini_lost');
      expect(summary.end_reason).toBe('provider_error');
      expect(summary.void_reason).toBe('provider_error');
      expect(eventsOf(events, 'provider.error')).toMatchObject([{ code: 'handoff_stream_lost', fatal: true }]);
    } finally {
      await server.close();
      await standIn.close();
    }
  }, 40_000);
});

describe('google/gemini-live: goAway moves the session to a resumed stream', () => {
  it('reopens with the last resumable handle, closes the old stream and keeps the conversation going', async () => {
    const standIn = await GeminiLiveStandIn.start();
    const synth = await createSpeechSynth(16_000, { preferTones: true });
    const server = await startTestServer({ MIVAS_PACK: 'control-industry', ...standIn.env() }, { synth });
    try {
      const caller = dialOpeningLine({ url: server.wsUrl, callId: 'gemini_goaway', taskId: null, runId: null, auth: null, openingLine: OPENING_LINE, synth, paced: true, timeoutMs: 30_000 });
      const first = await standIn.nextConnection();
      await first.next('text');
      first.send({ sessionResumptionUpdate: { newHandle: 'handle-1', resumable: true } });
      first.send({ sessionResumptionUpdate: { newHandle: 'handle-not-resumable', resumable: false } });
      first.send({ goAway: { timeLeft: '10s' } });
      const resumed = await standIn.nextConnection();
      const setup = setupOf(resumed.received[0] ?? (await resumed.next('setup')));
      expect(setup.sessionResumption).toEqual({ handle: 'handle-1' });
      expect(setup.historyConfig).toBeUndefined();
      expect(await first.closed).toBeGreaterThanOrEqual(1000);
      // The resumed stream carries the call: the greeting, the caller's audio, the goodbye.
      resumed.speak(tone(300, 24_000), GREETING);
      await resumed.waitForCallerSpeech();
      resumed.speak(tone(200, 24_000), 'Goodbye.', { turnComplete: false });
      resumed.callTools([{ name: 'end_call', args: { reason: 'caller_done' } }]);
      await resumed.toolResponses();
      resumed.turnComplete();
      const report = await caller;
      expect(report.closeCode).toBe(1000);
      const { summary } = await readSnapshot(server, 'gemini_goaway');
      expect(summary.end_reason).toBe('agent_end_call');
    } finally {
      await server.close();
      await standIn.close();
    }
  }, 40_000);
});
