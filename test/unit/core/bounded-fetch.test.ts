import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { boundedFetch, OutboundLimitError } from '../../../src/core/index.ts';
import { countingFetch, FLOOD_LIMIT_BYTES, HostileEndpoint, rejectionOf } from '../../support/hostile-endpoint.ts';

const CAP = 256 * 1024;
const SLACK = 64 * 1024;

let endpoint: HostileEndpoint;

beforeAll(async () => {
  endpoint = await HostileEndpoint.start({ kind: 'flood' });
});

afterAll(async () => {
  await endpoint.close();
});

describe('boundedFetch: every outbound exchange has a deadline and a body cap', () => {
  it('stops reading a flooding answer just past the cap, closes the connection, and fails OUTBOUND_BODY_TOO_LARGE', async () => {
    endpoint.next({ kind: 'flood', prefix: '{"text": "' });
    const counter = countingFetch();
    const res = await boundedFetch({ timeoutMs: 30_000, maxBodyBytes: CAP }, counter.fetch)(`${endpoint.baseUrl}/audio/transcriptions`, { method: 'POST', body: '{}' });
    const err = await rejectionOf(res.text(), OutboundLimitError);
    expect(err.code).toBe('OUTBOUND_BODY_TOO_LARGE');
    expect(err.message).toContain(`127.0.0.1:${endpoint.port}/v1/audio/transcriptions`);
    expect(counter.read()).toBeGreaterThan(CAP);
    expect(counter.read()).toBeLessThanOrEqual(CAP + SLACK);
    const exchange = endpoint.exchanges.at(-1);
    await exchange?.closed;
    // The flood ends because the client went away, long before the endpoint's own limit.
    expect(exchange?.written ?? FLOOD_LIMIT_BYTES).toBeLessThan(FLOOD_LIMIT_BYTES / 8);
  });

  it('refuses an answer whose Content-Length is over the cap before reading any of it', async () => {
    endpoint.next({ kind: 'declare' });
    const counter = countingFetch();
    const err = await rejectionOf(boundedFetch({ timeoutMs: 30_000, maxBodyBytes: CAP }, counter.fetch)(`${endpoint.baseUrl}/x`, { method: 'POST', body: '{}' }), OutboundLimitError);
    expect(err.code).toBe('OUTBOUND_BODY_TOO_LARGE');
    expect(counter.read()).toBe(0);
    await endpoint.exchanges.at(-1)?.closed;
  });

  it('does not send a string request over the cap', async () => {
    const before = endpoint.exchanges.length;
    const err = await rejectionOf(boundedFetch({ timeoutMs: 30_000, maxBodyBytes: CAP })(`${endpoint.baseUrl}/x`, { method: 'POST', body: 'b'.repeat(CAP + 1) }), OutboundLimitError);
    expect(err.code).toBe('OUTBOUND_BODY_TOO_LARGE');
    expect(endpoint.exchanges.length).toBe(before);
  });

  it('fails OUTBOUND_TIMEOUT on an endpoint that never answers, and on one that stalls mid-body', async () => {
    endpoint.next({ kind: 'hang' });
    const hung = await rejectionOf(boundedFetch({ timeoutMs: 200, maxBodyBytes: CAP })(`${endpoint.baseUrl}/chat/completions`, { method: 'POST', body: '{}' }), OutboundLimitError);
    expect(hung.code).toBe('OUTBOUND_TIMEOUT');
    endpoint.next({ kind: 'stall', prefix: '{"choices": [' });
    const res = await boundedFetch({ timeoutMs: 300, maxBodyBytes: CAP })(`${endpoint.baseUrl}/chat/completions`, { method: 'POST', body: '{}' });
    expect(res.status).toBe(200);
    const stalled = await rejectionOf(res.text(), OutboundLimitError);
    expect(stalled.code).toBe('OUTBOUND_TIMEOUT');
    await endpoint.exchanges.at(-1)?.closed;
  });

  it('passes an honest answer through unchanged, and the caller\'s own abort as it was', async () => {
    endpoint.next({ kind: 'json', body: { text: 'hello' } });
    const res = await boundedFetch({ timeoutMs: 30_000, maxBodyBytes: CAP })(`${endpoint.baseUrl}/x`, { method: 'POST', body: '{}' });
    expect(await res.json()).toEqual({ text: 'hello' });
    endpoint.next({ kind: 'hang' });
    const mine = new AbortController();
    const pending = boundedFetch({ timeoutMs: 30_000, maxBodyBytes: CAP })(`${endpoint.baseUrl}/x`, { method: 'POST', body: '{}', signal: mine.signal });
    mine.abort(new Error('the call ended'));
    await expect(pending).rejects.toThrow('the call ended');
  });
});
