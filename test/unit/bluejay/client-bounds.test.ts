import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BluejayApiError, BluejayClient } from '../../../src/bluejay/index.ts';
import { loadConfig } from '../../../src/config.ts';
import { HostileEndpoint, rejectionOf } from '../../support/hostile-endpoint.ts';

/** Issue 26: the Bluejay REST client is bounded like every outbound client (MIVAS_BLUEJAY_TIMEOUT_S, MIVAS_BLUEJAY_MAX_BODY_MB). */
const CAP = 64 * 1024;

let endpoint: HostileEndpoint;

beforeAll(async () => {
  endpoint = await HostileEndpoint.start({ kind: 'hang' });
});

afterAll(async () => {
  await endpoint.close();
});

describe('the Bluejay client is bounded in time and size', () => {
  it('stops reading a flooding answer at the cap, and gives up on a hung one at the timeout (BLUEJAY_UNREACHABLE)', async () => {
    const client = (timeoutMs: number) => new BluejayClient({ apiUrl: endpoint.baseUrl, apiKey: 'bj-key', bounds: { timeoutMs, maxBodyBytes: CAP } });
    endpoint.next({ kind: 'flood', prefix: '{"results": ["' });
    const flooded = await rejectionOf(client(30_000).retrieveSimulationResults('run_1'), BluejayApiError);
    expect([flooded.code, flooded.message]).toEqual(['BLUEJAY_UNREACHABLE', expect.stringContaining(`over the ${CAP}-byte cap`)]);
    await endpoint.exchanges.at(-1)?.closed;
    expect(endpoint.exchanges.at(-1)?.written ?? Infinity).toBeLessThan(CAP + 32 * 1024 * 1024);
    endpoint.next({ kind: 'hang' });
    const hung = await rejectionOf(client(300).digitalHuman('dh_1'), BluejayApiError);
    expect([hung.code, hung.message]).toEqual(['BLUEJAY_UNREACHABLE', expect.stringContaining('did not finish within 300 ms')]);
  });

  it('reads its bounds from the configuration', () => {
    const parsed = loadConfig({ MIVAS_BLUEJAY_TIMEOUT_S: '5', MIVAS_BLUEJAY_MAX_BODY_MB: '2' });
    if (!parsed.ok) throw new Error(parsed.problems.join('\n'));
    expect(parsed.config.bluejay).toMatchObject({ timeoutMs: 5_000, maxBodyBytes: 2 * 1024 * 1024 });
  });
});
