import { MediaModality } from '@google/genai';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { GeminiLiveSession, geminiTools, usageFromGemini, type AgentSetup, type FunctionCall, type ProviderFailure } from '../../../src/providers/index.ts';
import { GeminiLiveStandIn, messageProblem, type GeminiConnection } from '../../support/gemini-live-server.ts';

/**
 * The Gemini Live harness through Google's SDK against the strict stand-in (every client message
 * checked against the SDK's wire types), and the stand-in's own strictness.
 */

const RECEPTION: AgentSetup = {
  name: 'reception',
  instructions: 'Greet the caller.',
  tools: [
    { name: 'transfer_to_scheduler', description: 'Hand the call to the scheduler.', parameters: { type: 'object', properties: {}, additionalProperties: false } },
    { name: 'book_appointment', description: 'Book a visit.', parameters: { type: 'object', properties: { date: { type: 'string' }, note: { type: 'string', minLength: 1, maxLength: 200 } }, required: ['date'] } },
  ],
};
const SCHEDULER: AgentSetup = { name: 'scheduler', instructions: 'Book visits.', tools: [{ name: 'end_call', description: 'End the call.', parameters: { type: 'object', properties: {} } }] };

const SETUP = { model: 'models/gemini-3.8-live', generationConfig: { responseModalities: ['AUDIO'] } };
const SPEECH = Buffer.alloc(3_200, 7);

describe('the strict Gemini stand-in', () => {
  it('refuses an OBJECT schema with empty properties, as the Gemini API does', () => {
    const tools = [{ functionDeclarations: [{ name: 'transfer_to_scheduler', parameters: { type: 'OBJECT', properties: {} } }] }];
    expect(messageProblem({ setup: { ...SETUP, tools } })).toContain('should be non-empty for OBJECT type');
  });

  it('refuses fields the SDK types do not have and missing ones the API needs', () => {
    expect(messageProblem({ setup: { ...SETUP, bogus: true } })).toContain('bogus');
    expect(messageProblem({ setup: { generationConfig: { responseModalities: ['AUDIO'] } } })).toContain('model');
    expect(messageProblem({ toolResponse: { functionResponses: [{ name: 'book_appointment', response: {} }] } })).toContain('id');
    expect(messageProblem({ realtimeInput: { audio: { data: 'AAAA' } } })).toContain('mimeType');
    expect(messageProblem({ setup: SETUP, realtimeInput: { text: 'hi' } })).toContain('exactly one message field');
  });

  it('takes what the harness declares: argument-less tools without parameters, every function BLOCKING', () => {
    const tools = geminiTools(RECEPTION);
    expect(messageProblem({ setup: { ...SETUP, tools } })).toBeNull();
    expect(tools[0]?.functionDeclarations?.[0]).toEqual({ name: 'transfer_to_scheduler', description: 'Hand the call to the scheduler.', behavior: 'BLOCKING' });
    // Length bounds are strings in the SDK's Schema (int64 in the API's JSON).
    expect(tools[0]?.functionDeclarations?.[1]).toMatchObject({ behavior: 'BLOCKING', parameters: { type: 'OBJECT', properties: { date: { type: 'STRING' }, note: { type: 'STRING', minLength: '1', maxLength: '200' } }, required: ['date'] } });
  });
});

describe('usageFromGemini', () => {
  it('counts thinking tokens as output text and tool-use prompt tokens as input, and prices tokens the details leave out as text', () => {
    const usage = usageFromGemini({
      promptTokenCount: 522,
      responseTokenCount: 42,
      thoughtsTokenCount: 136,
      toolUsePromptTokenCount: 30,
      totalTokenCount: 730,
      promptTokensDetails: [
        { modality: MediaModality.TEXT, tokenCount: 332 },
        { modality: MediaModality.AUDIO, tokenCount: 165 },
      ],
      toolUsePromptTokensDetails: [{ modality: MediaModality.TEXT, tokenCount: 30 }],
      responseTokensDetails: [{ modality: MediaModality.AUDIO, tokenCount: 42 }],
    });
    expect(usage).toEqual({
      input_tokens: 552,
      output_tokens: 178,
      total_tokens: 730,
      // 332 text + 25 the details leave out + 30 tool results
      input_text_tokens: 387,
      input_audio_tokens: 165,
      cached_text_tokens: 0,
      cached_audio_tokens: 0,
      output_text_tokens: 136,
      output_audio_tokens: 42,
    });
  });
});

describe('GeminiLiveSession through the SDK', () => {
  let standIn: GeminiLiveStandIn;
  let session: GeminiLiveSession;
  const calls: FunctionCall[] = [];
  const failures: ProviderFailure[] = [];

  beforeEach(async () => {
    standIn = await GeminiLiveStandIn.start();
    session = new GeminiLiveSession({ apiKey: 'gm-test-key', baseUrl: `http://127.0.0.1:${standIn.port}`, model: 'gemini-3.8-live', voice: 'Puck', silenceMs: 500 });
    calls.length = 0;
    failures.length = 0;
    session.events.on('functionCall', (c) => calls.push(c));
    session.events.on('failure', (f) => failures.push(f));
    await session.connect(RECEPTION, new AbortController().signal);
  });
  afterEach(async () => {
    await session.close();
    await standIn.close();
  });

  async function audioOf(conn: GeminiConnection, count: number): Promise<void> {
    await conn.waitFor(() => conn.of('audio').length >= count, `${count} audio messages`);
  }

  it('sends no caller audio to a stream from its transfer call on, and none while the next one opens', async () => {
    const reception = await standIn.nextConnection();
    session.sendAudio(SPEECH);
    await audioOf(reception, 1);
    // As the turn driver does: at the transfer call, apply the next agent and answer the call; caller audio keeps coming.
    session.events.on('functionCall', (c) => {
      if (c.name !== 'transfer_to_scheduler') return;
      session.applyAgent(SCHEDULER);
      session.sendToolOutput(c.callId, '{"assistant":"scheduler"}');
      session.sendAudio(SPEECH);
    });
    reception.callTools([{ name: 'transfer_to_scheduler', id: 'fc_hop' }]);
    const scheduler = await standIn.nextConnection();
    session.sendAudio(SPEECH);
    // The turn driver asks for the next response once the transfer's response is done.
    session.requestResponse();
    await scheduler.next('text');
    await reception.closed;
    expect(reception.of('audio')).toHaveLength(1);
    expect(reception.of('toolResponse')).toEqual([]);
    expect(scheduler.of('audio')).toEqual([]);
    // Once the next specialist is cued, caller audio flows to it.
    session.sendAudio(SPEECH);
    await audioOf(scheduler, 1);
    expect([...reception.violations, ...scheduler.violations]).toEqual([]);
  });

  it('records a toolCallCancellation and never answers the cancelled call', async () => {
    const reception = await standIn.nextConnection();
    reception.callTools([{ name: 'book_appointment', args: { date: '2026-10-07' }, id: 'fc_cancelled' }]);
    await expect.poll(() => calls.length).toBe(1);
    reception.cancelTools(['fc_cancelled']);
    await expect.poll(() => failures.length).toBe(1);
    expect(failures[0]).toMatchObject({ code: 'tool_call_cancelled', fatal: false });
    expect(failures[0]?.message).toContain('book_appointment (fc_cancelled)');
    // The engine's (late) result for the cancelled call goes nowhere; the next call is answered alone.
    session.sendToolOutput(calls[0]?.callId ?? '', '{"ok":true}');
    reception.callTools([{ name: 'book_appointment', args: { date: '2026-10-08' }, id: 'fc_next' }]);
    await expect.poll(() => calls.length).toBe(2);
    session.sendToolOutput(calls[1]?.callId ?? '', '{"ok":true}');
    expect(await reception.toolResponses()).toEqual([{ id: 'fc_next', name: 'book_appointment', response: { ok: true } }]);
    expect(reception.violations).toEqual([]);
  });

  it('records a call without an id as unanswerable: the SDK sends results only by their call id', async () => {
    const reception = await standIn.nextConnection();
    reception.callTools([{ name: 'book_appointment', args: { date: '2026-10-07' }, id: null }]);
    await expect.poll(() => calls.length).toBe(1);
    session.sendToolOutput(calls[0]?.callId ?? '', '{"ok":true}');
    expect(failures).toMatchObject([{ code: 'tool_call_without_id', fatal: false }]);
    // Nothing went out for it: the next call's response is the stream's first.
    reception.callTools([{ name: 'book_appointment', args: { date: '2026-10-08' }, id: 'fc_next' }]);
    await expect.poll(() => calls.length).toBe(2);
    session.sendToolOutput(calls[1]?.callId ?? '', '{"ok":true}');
    expect(await reception.toolResponses()).toEqual([{ id: 'fc_next', name: 'book_appointment', response: { ok: true } }]);
    expect(reception.of('toolResponse')).toHaveLength(1);
  });
});
