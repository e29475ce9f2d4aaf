import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CallerLog, chatClient, speechEndpointMouth, transcriptionEars, type RetryPolicy } from '../../../src/caller/index.ts';
import { loadConfig } from '../../../src/config.ts';
import { systemClock } from '../../../src/core/index.ts';
import { configuredCallers, scriptedPolicy } from '../../../src/episodes/index.ts';
import { episodePack, playEpisode, routedTask, type EpisodePack } from '../../support/episode-rig.ts';
import { HostileEndpoint, rejectionOf, type HostileExchange } from '../../support/hostile-endpoint.ts';

/**
 * Issue 26: the `llm` caller's own endpoints (chat, transcription, speech) are bounded like the
 * agent's. An answer past its cap is read no further and not retried; one that hangs is given up
 * at MIVAS_CALLER_TIMEOUT_S; the caller then hangs up with `mind_error`, which the scorer voids as
 * `infra_error` (a caller fault, never the agent's failure).
 */
const CAP = 128 * 1024;
/** Past the cap, at most what loopback socket buffers hold before the client's abort lands. */
const STOPPED_BY = CAP + 32 * 1024 * 1024;
const ONCE: RetryPolicy = { attempts: 1, backoffMs: [], timeoutMs: 60_000 };

let endpoint: HostileEndpoint;
let rig: EpisodePack;

beforeAll(async () => {
  endpoint = await HostileEndpoint.start({ kind: 'hang' });
  rig = await episodePack('healthcare');
}, 60_000);

afterAll(async () => {
  rig.close();
  await endpoint.close();
});

const settings = (timeoutMs = 30_000, maxBodyBytes = CAP) => ({ baseUrl: endpoint.baseUrl, apiKey: 'sk-caller', timeoutMs, maxBodyBytes });

/** The message `work` rejects with. */
const rejection = async (work: Promise<unknown>): Promise<string> => (await rejectionOf(work, Error)).message;

/** The exchanges since `before`, each awaited until the client has gone. */
async function since(before: number): Promise<HostileExchange[]> {
  const list = endpoint.exchanges.slice(before);
  await Promise.all(list.map((e) => e.closed));
  return list;
}

describe('the llm caller\'s endpoints are bounded in time and size', () => {
  it('chat: a flooding answer is read to the cap, once (no retry), and the text episode is VOID infra_error', async () => {
    endpoint.useDefault({ kind: 'flood', prefix: '{"choices": [{"message": {"content": "' });
    const before = endpoint.exchanges.length;
    const callers = configuredCallers({ chat: { ...settings(), model: 'caller-1' }, seedBase: 0, maxTurns: 40 });
    const task = routedTask(rig.pack);
    const mind = callers({ pack: rig.pack, task, kind: 'llm', seed: 0, episodeId: 'ep_bounds_chat' });
    if (!mind) throw new Error('no llm caller');
    const result = await playEpisode(rig, scriptedPolicy(), task, { caller: mind });
    expect(result).toMatchObject({ status: 'VOID', valid: false, end_reason: 'internal_error' });
    expect(result.reasons).toContain('void: infra_error');
    const flooded = await since(before);
    expect(flooded).toHaveLength(1);
    expect(flooded[0]?.written ?? Infinity).toBeLessThan(STOPPED_BY);
  });

  it('chat: an endpoint that never answers is given up at the timeout', async () => {
    endpoint.useDefault({ kind: 'hang' });
    const chat = chatClient(settings(300), systemClock(), ONCE);
    const message = await rejection(chat.complete({ model: 'caller-1', messages: [{ role: 'user', content: 'hi' }], tools: [], tool_choice: 'auto', temperature: 0, seed: 1, max_tokens: 50, n: 1, stream: false }));
    expect(message).toContain('did not finish within 300 ms');
  });

  it('ears: a flooding transcription is read to the cap and fails; a hung one fails at the timeout', async () => {
    const pcm = Buffer.alloc(3_200, 1);
    endpoint.useDefault({ kind: 'flood', prefix: '{"text": "' });
    const before = endpoint.exchanges.length;
    const ears = transcriptionEars({ endpoint: settings(), model: 'stt-1', clock: systemClock(), cache: null, log: new CallerLog(), retry: ONCE });
    expect(await rejection(ears.hear(pcm, 0))).toContain(`over the ${CAP}-byte cap`);
    const flooded = await since(before);
    expect(flooded).toHaveLength(1);
    expect(flooded[0]?.written ?? Infinity).toBeLessThan(STOPPED_BY);

    endpoint.useDefault({ kind: 'hang' });
    const slow = transcriptionEars({ endpoint: settings(300), model: 'stt-1', clock: systemClock(), cache: null, log: new CallerLog(), retry: ONCE });
    expect(await rejection(slow.hear(pcm, 1))).toContain('did not finish within 300 ms');
  });

  it('mouth: endless speech audio is read to the audio cap and fails; speech that stalls fails at the timeout', async () => {
    endpoint.useDefault({ kind: 'flood', contentType: 'audio/pcm' });
    const before = endpoint.exchanges.length;
    const mouth = speechEndpointMouth({ endpoint: settings(30_000, 4 * CAP), model: 'tts-1', voice: 'alloy', rateHz: 24_000, clock: systemClock(), log: new CallerLog(), retry: ONCE });
    expect(await rejection(mouth.synthesize('Hello there.'))).toContain(`over the ${4 * CAP}-byte cap`);
    const flooded = await since(before);
    expect(flooded).toHaveLength(1);
    expect(flooded[0]?.written ?? Infinity).toBeLessThan(4 * CAP + 32 * 1024 * 1024);

    endpoint.useDefault({ kind: 'stall', prefix: 'PCM!', contentType: 'audio/pcm' });
    const stalled = speechEndpointMouth({ endpoint: settings(300, 4 * CAP), model: 'tts-1', voice: 'alloy', rateHz: 24_000, clock: systemClock(), log: new CallerLog(), retry: ONCE });
    expect(await rejection(stalled.synthesize('Are you there?'))).toContain('did not finish within 300 ms');
  });

  it('takes its caps from MIVAS_CALLER_MAX_BODY_MB (chat, transcription) and MIVAS_CALLER_MAX_AUDIO_MB (speech)', () => {
    const parsed = loadConfig({ MIVAS_CALLER_MAX_BODY_MB: '0.5', MIVAS_CALLER_MAX_AUDIO_MB: '2', MIVAS_CALLER_TIMEOUT_S: '7' });
    const defaults = loadConfig({});
    if (!parsed.ok || !defaults.ok) throw new Error('config');
    const c = parsed.config.caller;
    expect([c.chat.maxBodyBytes, c.stt.maxBodyBytes, c.tts.maxBodyBytes, c.chat.timeoutMs, c.tts.timeoutMs]).toEqual([512 * 1024, 512 * 1024, 2 * 1024 * 1024, 7_000, 7_000]);
    const d = defaults.config.caller;
    expect([d.chat.maxBodyBytes, d.tts.maxBodyBytes]).toEqual([4 * 1024 * 1024, 32 * 1024 * 1024]);
  });
});
