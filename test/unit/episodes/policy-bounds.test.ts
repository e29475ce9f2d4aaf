import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config.ts';
import { openAiChatPolicy } from '../../../src/episodes/index.ts';
import { summarySchema } from '../../../src/snapshot/index.ts';
import { episodePack, playEpisode, routedTask, type EpisodePack } from '../../support/episode-rig.ts';
import { countingFetch, HostileEndpoint } from '../../support/hostile-endpoint.ts';

/**
 * Issue 26: the text policy's endpoint is not trusted. One that floods its answer is read up to
 * the cap and no further, one that hangs is given up at the timeout; either way the episode is
 * VOID provider_error and nothing it sent enters the conversation.
 */
const CAP = 256 * 1024;

let rig: EpisodePack;
let endpoint: HostileEndpoint;

beforeAll(async () => {
  rig = await episodePack('healthcare');
  endpoint = await HostileEndpoint.start({ kind: 'json', body: { choices: [{ message: { role: 'assistant', content: null } }] } });
}, 60_000);

afterAll(async () => {
  rig.close();
  await endpoint.close();
});

const policy = (timeoutMs = 30_000, fetch?: typeof globalThis.fetch) => openAiChatPolicy({ baseUrl: endpoint.baseUrl, model: 'hostile-1', timeoutMs, maxBodyBytes: CAP, ...(fetch ? { fetch } : {}) });

function endDetail(result: { snapshot: string }): string {
  return summarySchema.parse(JSON.parse(String(rig.stored.get(result.snapshot)?.get('summary.json')))).end_detail ?? '';
}

describe('the text/openai-chat policy is bounded in time and size', () => {
  it('reads a flooding answer only up to the cap, voids the episode provider_error, and sends no inflated request after it', async () => {
    const task = routedTask(rig.pack);
    endpoint.next({ kind: 'flood', prefix: '{"choices": [{"message": {"role": "assistant", "content": "' });
    const before = endpoint.exchanges.length;
    const counter = countingFetch();
    const result = await playEpisode(rig, policy(30_000, counter.fetch), task);
    expect(result).toMatchObject({ status: 'VOID', valid: false, end_reason: 'provider_error' });
    expect(endDetail(result)).toContain(`over the ${CAP}-byte cap`);
    // What the policy read off the socket: the cap and at most one more 64 KiB chunk.
    expect(counter.read()).toBeGreaterThan(CAP);
    expect(counter.read()).toBeLessThanOrEqual(CAP + 64 * 1024);
    const flooded = endpoint.exchanges.slice(before);
    expect(flooded).toHaveLength(1);
    expect(flooded[0]).toMatchObject({ method: 'POST', path: '/v1/chat/completions' });
    await flooded[0]?.closed;
    // The endpoint stopped because mivas hung up on it: a few socket buffers past the cap at most.
    expect(flooded[0]?.written ?? Infinity).toBeLessThan(CAP + 32 * 1024 * 1024);

    // The next request the endpoint gets (a new episode of the same task) is the same size as the first was.
    const next = await playEpisode(rig, policy(), task);
    expect(next.truncated).toBe('policy_stopped');
    expect(endpoint.exchanges.slice(before + 1).map((e) => e.requestBytes)).toEqual([flooded[0]?.requestBytes]);
  });

  it('never sends a request over the cap: answers under it that pile up in the conversation void the episode before they are sent back', async () => {
    const talkative = { kind: 'json', body: { choices: [{ message: { role: 'assistant', content: 'word '.repeat(20_000) } }] } } as const;
    endpoint.next(talkative, talkative, talkative, talkative);
    const before = endpoint.exchanges.length;
    const result = await playEpisode(rig, policy(), routedTask(rig.pack));
    expect(result).toMatchObject({ status: 'VOID', end_reason: 'provider_error' });
    expect(endDetail(result)).toContain('the request to');
    const sent = endpoint.exchanges.slice(before).map((e) => e.requestBytes);
    expect(sent.length).toBeGreaterThanOrEqual(2);
    expect(Math.max(...sent)).toBeLessThanOrEqual(CAP);
  });

  it('gives up on an endpoint that never answers at the configured timeout and voids the episode provider_error', async () => {
    endpoint.next({ kind: 'hang' });
    const started = Date.now();
    const result = await playEpisode(rig, policy(300), routedTask(rig.pack));
    expect(result).toMatchObject({ status: 'VOID', valid: false, end_reason: 'provider_error' });
    expect(endDetail(result)).toContain('did not finish within 300 ms');
    expect(Date.now() - started).toBeLessThan(20_000);
  });

  it('gives up on an endpoint that stalls in the middle of its answer', async () => {
    endpoint.next({ kind: 'stall', prefix: '{"choices": [{"message": {"content": "Hel' });
    const result = await playEpisode(rig, policy(300), routedTask(rig.pack));
    expect(result).toMatchObject({ status: 'VOID', end_reason: 'provider_error' });
    expect(endDetail(result)).toContain('did not finish within 300 ms');
  });

  it('takes its bounds from MIVAS_POLICY_TIMEOUT_S and MIVAS_POLICY_MAX_BODY_MB, with safe defaults', () => {
    const defaults = loadConfig({});
    const set = loadConfig({ MIVAS_POLICY_TIMEOUT_S: '2.5', MIVAS_POLICY_MAX_BODY_MB: '0.25' });
    if (!defaults.ok || !set.ok) throw new Error('config');
    expect(defaults.config.policy).toMatchObject({ timeoutMs: 60_000, maxBodyBytes: 4 * 1024 * 1024 });
    expect(set.config.policy).toMatchObject({ timeoutMs: 2_500, maxBodyBytes: 256 * 1024 });
    expect(loadConfig({ MIVAS_POLICY_MAX_BODY_MB: '0' }).ok).toBe(false);
  });
});
