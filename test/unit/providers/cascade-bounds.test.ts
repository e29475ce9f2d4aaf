import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config.ts';
import { cascadedTargets, EndpointError, streamChat, streamSpeech, transcribe, type EndpointTarget } from '../../../src/providers/index.ts';
import { HostileEndpoint, rejectionOf } from '../../support/hostile-endpoint.ts';

/**
 * Issue 26: the cascade's STT, LLM and TTS requests are bounded like every outbound client; a
 * broken bound fails as that stage's EndpointError, which ends the call `provider_error`
 * (`cascade_<stage>_failed`, docs/providers.md).
 */
const CAP = 128 * 1024;

let endpoint: HostileEndpoint;

beforeAll(async () => {
  endpoint = await HostileEndpoint.start({ kind: 'hang' });
});

afterAll(async () => {
  await endpoint.close();
});

const target = (timeoutMs = 30_000): EndpointTarget => ({ baseUrl: endpoint.baseUrl, model: 'm', apiKey: undefined, bounds: { timeoutMs, maxBodyBytes: CAP } });

async function drain<T>(source: AsyncIterable<T>): Promise<void> {
  for await (const item of source) void item;
}

describe('the cascade\'s endpoints are bounded in time and size', () => {
  it('STT: a flooding JSON answer, and a flooding SSE stream, fail as stt past the cap', async () => {
    endpoint.next({ kind: 'flood', prefix: '{"text": "' });
    const json = await rejectionOf(transcribe(target(), Buffer.alloc(3_200), 16_000, false, new AbortController().signal), EndpointError);
    expect([json.stage, json.message]).toEqual(['stt', expect.stringContaining(`over the ${CAP}-byte cap`)]);
    endpoint.next({ kind: 'flood', prefix: 'data: {"type": "transcript.text.delta", "delta": "', contentType: 'text/event-stream' });
    const sse = await rejectionOf(transcribe(target(), Buffer.alloc(3_200), 16_000, true, new AbortController().signal), EndpointError);
    expect([sse.stage, sse.message]).toEqual(['stt', expect.stringContaining('byte cap')]);
  });

  it('LLM: an endless SSE line fails as llm past the cap; a stalled stream at the timeout', async () => {
    endpoint.next({ kind: 'flood', prefix: 'data: {"choices": [{"delta": {"content": "', contentType: 'text/event-stream' });
    const flooded = await rejectionOf(drain(streamChat(target(), [{ role: 'user', content: 'hi' }], [], new AbortController().signal)), EndpointError);
    expect([flooded.stage, flooded.message]).toEqual(['llm', expect.stringContaining('byte cap')]);
    endpoint.next({ kind: 'stall', prefix: 'data: {"choices": [{"delta": {"content": "Hi"}}]}\n\n', contentType: 'text/event-stream' });
    const stalled = await rejectionOf(drain(streamChat(target(300), [{ role: 'user', content: 'hi' }], [], new AbortController().signal)), EndpointError);
    expect([stalled.stage, stalled.message]).toEqual(['llm', expect.stringContaining('did not finish within 300 ms')]);
  });

  it('TTS: endless audio fails as tts past the cap; an endpoint that never answers at the timeout', async () => {
    endpoint.next({ kind: 'flood', contentType: 'audio/pcm' });
    const flooded = await rejectionOf(drain(streamSpeech({ ...target(), voice: 'alloy' }, 'Hello.', new AbortController().signal)), EndpointError);
    expect([flooded.stage, flooded.message]).toEqual(['tts', expect.stringContaining('byte cap')]);
    endpoint.next({ kind: 'hang' });
    const hung = await rejectionOf(drain(streamSpeech({ ...target(300), voice: 'alloy' }, 'Hello.', new AbortController().signal)), EndpointError);
    expect([hung.stage, hung.message]).toEqual(['tts', expect.stringContaining('did not finish within 300 ms')]);
  });

  it('takes its bounds from MIVAS_CASCADE_TIMEOUT_S, _MAX_BODY_MB (STT, LLM) and _MAX_AUDIO_MB (TTS)', () => {
    const parsed = loadConfig({ MIVAS_CASCADE_STT_BASE_URL: 'http://s/v1', MIVAS_CASCADE_LLM_BASE_URL: 'http://l/v1', MIVAS_CASCADE_LLM_MODEL: 'm', MIVAS_CASCADE_TTS_BASE_URL: 'http://t/v1', MIVAS_CASCADE_TIMEOUT_S: '9', MIVAS_CASCADE_MAX_BODY_MB: '1', MIVAS_CASCADE_MAX_AUDIO_MB: '16' });
    if (!parsed.ok) throw new Error(parsed.problems.join('\n'));
    const targets = cascadedTargets(parsed.config.providers);
    expect([targets.stt.bounds, targets.llm.bounds, targets.tts.bounds]).toEqual([
      { timeoutMs: 9_000, maxBodyBytes: 1024 * 1024 },
      { timeoutMs: 9_000, maxBodyBytes: 1024 * 1024 },
      { timeoutMs: 9_000, maxBodyBytes: 16 * 1024 * 1024 },
    ]);
  });
});
