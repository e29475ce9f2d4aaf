import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { gaDialect, MAX_PROVIDER_MESSAGE_BYTES, ProviderConnectError, RealtimeSession, xaiDialect, type AgentSetup, type ModelSession, type ModelSessionEvents, type ProviderFailure } from '../../../src/providers/index.ts';
import { DEFAULT_USAGE, RealtimeStandIn, sessionOf, tone, type StandInConnection } from '../../support/realtime-server.ts';

const AGENT: AgentSetup = {
  name: 'reception',
  instructions: 'Greet the caller.',
  tools: [
    { name: 'transfer_to_scheduler', description: 'Hand the caller to the scheduler.', parameters: { type: 'object', properties: {}, additionalProperties: false } },
    { name: 'end_call', description: 'End the call.', parameters: { type: 'object', properties: { reason: { type: 'string', enum: ['caller_done'] } }, required: ['reason'], additionalProperties: false } },
  ],
};

/** An OpenAI GA session pointed at a base URL (the stand-in's, or a dead one). */
function session(baseUrl: string): RealtimeSession {
  return new RealtimeSession(
    gaDialect({ provider: 'openai', baseUrl, model: 'gpt-realtime-2.1', voice: 'ash', transcriptionModel: 'gpt-4o-mini-transcribe', turnDetection: 'semantic_vad', auth: { kind: 'bearer', key: 'sk-test' } }),
  );
}

function next<K extends keyof ModelSessionEvents>(s: ModelSession, event: K): Promise<ModelSessionEvents[K]> {
  return new Promise((resolve) => {
    const off = s.events.on(event, (...args) => {
      off();
      resolve(args);
    });
  });
}

function record<K extends keyof ModelSessionEvents>(s: ModelSession, event: K): ModelSessionEvents[K][] {
  const seen: ModelSessionEvents[K][] = [];
  s.events.on(event, (...args) => seen.push(args));
  return seen;
}

describe('RealtimeSession against the GA stand-in', () => {
  let standIn: RealtimeStandIn;
  let model: RealtimeSession;
  let conn: StandInConnection;
  let callAbort: AbortController;

  beforeEach(async () => {
    callAbort = new AbortController();
    standIn = await RealtimeStandIn.start();
    model = session(standIn.baseUrl());
    const ready = next(model, 'ready');
    await model.connect(AGENT, callAbort.signal);
    conn = await standIn.nextConnection();
    await ready;
  });

  afterEach(async () => {
    await model.close();
    await standIn.close();
  });

  it('dials <base>/realtime?model= with a bearer key and sends the GA session.update first (wire.md §6.19, §6.25)', () => {
    expect(conn.url).toBe('/v1/realtime?model=gpt-realtime-2.1');
    expect(conn.headers.authorization).toBe('Bearer sk-test');
    expect(conn.headers['openai-beta']).toBeUndefined();
    const first = conn.log.find((e) => e.dir === 'in');
    expect(first?.type).toBe('session.update');
    expect(sessionOf(conn.received('session.update')[0] ?? { type: '' })).toEqual({
      type: 'realtime',
      instructions: 'Greet the caller.',
      tools: AGENT.tools.map((t) => ({ type: 'function', name: t.name, description: t.description, parameters: t.parameters })),
      tool_choice: 'auto',
      output_modalities: ['audio'],
      audio: {
        input: { format: { type: 'audio/pcm', rate: 24000 }, transcription: { model: 'gpt-4o-mini-transcribe' }, turn_detection: { type: 'semantic_vad', interrupt_response: true } },
        output: { format: { type: 'audio/pcm', rate: 24000 }, voice: 'ash' },
      },
      tracing: null,
    });
    expect(model.inputRateHz).toBe(24_000);
    expect(model.outputRateHz).toBe(24_000);
  });

  it('is ready on the first session.updated only; later ones confirm handoffs', async () => {
    const readies = record(model, 'ready');
    model.applyAgent({ ...AGENT, instructions: 'Schedule.' });
    await conn.next('session.update', (e) => sessionOf(e).instructions === 'Schedule.');
    model.requestResponse();
    await conn.next('response.create');
    expect(readies).toHaveLength(0);
    expect(sessionOf(conn.received('session.update')[1] ?? { type: '' })).toEqual({ type: 'realtime', instructions: 'Schedule.', tools: expect.any(Array) });
  });

  it('sends caller audio as base64 appends and tool outputs as function_call_output items', async () => {
    model.sendAudio(tone(20, 24_000));
    model.sendToolOutput('call_9', '{"ok":true}');
    const output = await conn.toolOutput('call_9');
    expect(output).toBe('{"ok":true}');
    expect(conn.appendedBytes()).toBe(960);
  });

  it('dispatches a function call once although both events report it (wire.md §6.23)', async () => {
    const calls = record(model, 'functionCall');
    const done = next(model, 'responseDone');
    conn.respond([{ call: { name: 'end_call', args: { reason: 'caller_done' }, callId: 'call_x' } }]);
    await done;
    expect(calls).toEqual([[{ callId: 'call_x', name: 'end_call', arguments: '{"reason":"caller_done"}' }]]);
  });

  it('takes the function name from output_item.added when arguments.done lacks it', async () => {
    const call = next(model, 'functionCall');
    conn.send({ type: 'response.output_item.added', item: { id: 'it', type: 'function_call', call_id: 'c1', name: 'end_call', arguments: '' } });
    conn.send({ type: 'response.function_call_arguments.done', call_id: 'c1', arguments: '{}' });
    expect((await call)[0]).toEqual({ callId: 'c1', name: 'end_call', arguments: '{}' });
  });

  it('emits audio per item, transcripts, and usage from response.done in the six classes', async () => {
    const audio = record(model, 'audio');
    const transcripts = record(model, 'transcript');
    const done = next(model, 'responseDone');
    const sent = conn.respond([{ audio: tone(100, 24_000), transcript: 'Hello there.', chunkBytes: 1_600 }]);
    const [result] = await done;
    expect(audio.map(([item]) => item)).toEqual([sent.itemIds[0], sent.itemIds[0], sent.itemIds[0]]);
    expect(Buffer.concat(audio.map(([, pcm]) => pcm))).toEqual(tone(100, 24_000));
    expect(transcripts).toEqual([['agent', 'Hello there.', sent.itemIds[0]]]);
    expect(result).toEqual({
      responseId: sent.responseId,
      status: 'completed',
      usage: {
        input_tokens: 200,
        output_tokens: 100,
        total_tokens: 300,
        input_text_tokens: 90,
        input_audio_tokens: 70,
        cached_text_tokens: 30,
        cached_audio_tokens: 10,
        output_text_tokens: 20,
        output_audio_tokens: 80,
      },
    });
    expect(DEFAULT_USAGE.input_tokens).toBe(200);
  });

  it('sends conversation.item.truncate with content_index 0 and whole milliseconds', async () => {
    model.truncate('item_7', 1234.9);
    const event = await conn.next('conversation.item.truncate');
    expect(event).toMatchObject({ item_id: 'item_7', content_index: 0, audio_end_ms: 1234 });
  });

  it('maps error events to non-fatal failures and reports rate-limit remainders', async () => {
    const failure = next(model, 'failure');
    const limits = next(model, 'rateLimits');
    conn.send({ type: 'rate_limits.updated', rate_limits: [{ name: 'tokens', limit: 100, remaining: 90, reset_seconds: 1 }, { name: 'requests', limit: 5 }] });
    conn.send({ type: 'error', error: { type: 'invalid_request_error', code: 'conversation_already_has_active_response', message: 'active response' } });
    expect((await failure)[0]).toEqual({ code: 'conversation_already_has_active_response', message: 'active response', fatal: false });
    expect((await limits)[0]).toEqual([{ name: 'tokens', remaining: 90 }]);
  });

  it('reports a malformed known event as a non-fatal failure and ignores unknown ones', async () => {
    const failures = record(model, 'failure');
    const failure = next(model, 'failure');
    conn.send({ type: 'conversation.item.added', item: {} });
    conn.send({ type: 'response.output_audio.delta', item_id: 3 });
    const [f] = await failure;
    expect(f.fatal).toBe(false);
    expect(f.code).toBe('invalid_event');
    expect(failures).toHaveLength(1);
  });

  it('turns a dropped socket into a fatal failure, but not a close it started', async () => {
    const failure = next(model, 'failure');
    conn.drop();
    const [f]: [ProviderFailure] = await failure;
    expect(f).toMatchObject({ code: 'provider_disconnected', fatal: true });
  });

  it('refuses a message over MAX_PROVIDER_MESSAGE_BYTES: mivas closes 1009 and the session fails fatally (issue 26)', async () => {
    const failure = next(model, 'failure');
    conn.send({ type: 'response.output_audio.delta', response_id: 'r1', item_id: 'i1', delta: 'A'.repeat(MAX_PROVIDER_MESSAGE_BYTES) });
    const [f]: [ProviderFailure] = await failure;
    expect(f).toMatchObject({ code: 'provider_disconnected', fatal: true });
    // mivas tells the endpoint why (1009, message too big) and drops the socket.
    expect((await conn.closed).code).toBe(1009);
  });

  it('sends nothing for the caller\'s CHIRP speech events: its own VAD takes turns (wire.md §6.12)', async () => {
    const before = conn.log.filter((e) => e.dir === 'in').length;
    model.callerSpeech('started');
    model.callerSpeech('completed');
    model.truncate('sync', 0);
    await conn.next('conversation.item.truncate');
    expect(conn.log.filter((e) => e.dir === 'in').length).toBe(before + 1);
  });

  it('closes when the call aborts', async () => {
    callAbort.abort();
    expect((await conn.closed).code).toBe(1000);
  });

  it('sends response.cancel only while a response is in progress', async () => {
    model.cancelResponse();
    const started = next(model, 'responseStarted');
    conn.send({ type: 'response.created', response: { id: 'r1' } });
    await started;
    model.cancelResponse();
    const done = next(model, 'responseDone');
    conn.send({ type: 'response.done', response: { id: 'r1', status: 'cancelled' } });
    await done;
    model.cancelResponse();
    model.requestResponse(); // a marker: every event before it has reached the stand-in
    await conn.next('response.create');
    expect(conn.received('response.cancel')).toEqual([{ type: 'response.cancel' }]);
  });

  it('cancels a live response and closes 1000 without a failure', async () => {
    const failures = record(model, 'failure');
    const started = next(model, 'responseStarted');
    conn.send({ type: 'response.created', response: { id: 'r1' } });
    await started;
    await model.close();
    expect((await conn.closed).code).toBe(1000);
    expect(conn.received('response.cancel')).toHaveLength(1);
    expect(failures).toEqual([]);
  });
});

describe('RealtimeSession connect failures', () => {
  it('rejects and reports a fatal connect_failed when nothing listens', async () => {
    const standIn = await RealtimeStandIn.start();
    const url = standIn.baseUrl();
    await standIn.close();
    const model = session(url);
    const failures = record(model, 'failure');
    await expect(model.connect(AGENT, new AbortController().signal)).rejects.toThrow();
    expect(failures).toMatchObject([[{ code: 'connect_failed', fatal: true }]]);
  });

  it.each([
    [401, 'provider_auth_rejected'],
    [403, 'provider_auth_rejected'],
    [429, 'upgrade_refused'],
  ])('reports a refused upgrade (HTTP %i) as %s with the status and the body, the key blanked out', async (status, code) => {
    const body = JSON.stringify({ error: { message: 'Incorrect API key provided: sk-test.', code: 'invalid_api_key' } });
    const standIn = await RealtimeStandIn.start({ refuseUpgrade: { status, body } });
    try {
      const model = session(standIn.baseUrl());
      const failures = record(model, 'failure');
      const err: unknown = await model.connect(AGENT, new AbortController().signal).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ProviderConnectError);
      expect(err).toMatchObject({ code, status, body: expect.stringContaining('invalid_api_key') });
      expect(failures).toHaveLength(1);
      const failure = failures[0]?.[0];
      expect(failure).toMatchObject({ code, fatal: true });
      expect(failure?.message).toContain(`HTTP ${status}`);
      expect(failure?.message).toContain('Incorrect API key provided');
      expect(failure?.message).not.toContain('sk-test');
      expect(failure?.message).toContain('[redacted]');
    } finally {
      await standIn.close();
    }
  });

  it('fetches the auth headers before each connection, and reports a failing source as auth_unavailable', async () => {
    const standIn = await RealtimeStandIn.start();
    try {
      let calls = 0;
      const dialect = gaDialect({
        provider: 'azure', baseUrl: standIn.baseUrl(), model: 'dep', voice: 'ash', transcriptionModel: null, turnDetection: 'semantic_vad',
        auth: () => (++calls === 1 ? Promise.resolve({ Authorization: `Bearer token-${calls}` }) : Promise.reject(new Error('token command failed'))),
      });
      const first = new RealtimeSession(dialect);
      await first.connect(AGENT, new AbortController().signal);
      const conn = await standIn.nextConnection();
      expect(conn.headers.authorization).toBe('Bearer token-1');
      expect(sessionOf(conn.received('session.update')[0] ?? { type: '' })).not.toHaveProperty('audio.input.transcription');
      await first.close();
      const second = new RealtimeSession(dialect);
      const failures = record(second, 'failure');
      await expect(second.connect(AGENT, new AbortController().signal)).rejects.toMatchObject({ code: 'auth_unavailable' });
      expect(failures).toMatchObject([[{ code: 'auth_unavailable', fatal: true, message: expect.stringContaining('token command failed') }]]);
      expect(standIn.connections).toHaveLength(1);
    } finally {
      await standIn.close();
    }
  });

  it('does not connect once the call has ended', async () => {
    const abort = new AbortController();
    abort.abort();
    await expect(session('ws://127.0.0.1:9/v1').connect(AGENT, abort.signal)).rejects.toThrow(/ended/);
  });
});

describe('variants without conversation.item.truncate (docs/providers.md)', () => {
  it('xAI sends no truncate on barge-in', async () => {
    const standIn = await RealtimeStandIn.start();
    try {
      const model = new RealtimeSession(xaiDialect({ baseUrl: standIn.baseUrl(), model: 'grok-voice-think-fast-2.0', voice: 'eve', apiKey: 'xai-test', transcriptionModel: 'grok-transcribe' }));
      await model.connect(AGENT, new AbortController().signal);
      const conn = await standIn.nextConnection();
      model.truncate('item_1', 500);
      model.requestResponse(); // a marker: every event before it has reached the stand-in
      await conn.next('response.create');
      expect(conn.received('conversation.item.truncate')).toEqual([]);
      await model.close();
    } finally {
      await standIn.close();
    }
  });
});
