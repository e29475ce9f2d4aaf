import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/core/index.ts';
import { RawChirpClient, tryUpgrade } from '../support/chirp-client.ts';
import { parsePrometheus, sumOf } from '../support/prometheus.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

async function metrics(server: TestServer) {
  const res = await fetch(`${server.httpUrl}/metrics`);
  return parsePrometheus(await res.text()).samples;
}

describe('back-pressure: MIVAS_MAX_CALLS=2 (acceptance 2)', () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer({ MIVAS_FAST: '1', MIVAS_MAX_CALLS: '2' });
  });
  afterAll(async () => {
    await server?.close();
  });

  it('a third concurrent upgrade gets 503 with Retry-After and no 101; the probe is still answered', async () => {
    const held = await Promise.all(
      ['cap_one', 'cap_two'].map((id) => RawChirpClient.connect(server.wsUrl, { 'X-Simulation-Result-Id': id, 'X-Mivas-Task-Id': 'S-E3' })),
    );
    await Promise.all(held.map((c) => c.waitForType('speech.started')));
    const third = await tryUpgrade(server.wsUrl, { 'X-Simulation-Result-Id': 'cap_three', 'X-Mivas-Task-Id': 'S-E3' });
    expect(third.upgraded).toBe(false);
    expect(third.status).toBe(503);
    expect(Number(third.headers['retry-after'])).toBeGreaterThan(0);
    expect(JSON.parse(third.body)).toMatchObject({ error: { code: 'AT_CAPACITY' } });

    const probe = await RawChirpClient.connect(`${server.wsUrl}probe`, {});
    expect((await probe.closed).code).toBe(1000);
    expect(probe.ofType('probe.ok')).toHaveLength(1);

    const samples = await metrics(server);
    expect(sumOf(samples, 'mivas_calls_active')).toBe(2);
    expect(sumOf(samples, 'mivas_calls_max')).toBe(2);
    expect(sumOf(samples, 'mivas_upgrade_rejections_total', { reason: 'capacity' })).toBe(1);
    expect(sumOf(samples, 'mivas_probes_total')).toBe(1);

    for (const c of held) c.close(1000);
    await Promise.all(held.map((c) => c.closed));
    await server.ctx.registry.whenIdle();
    const after = await tryUpgrade(server.wsUrl, { 'X-Simulation-Result-Id': 'cap_four', 'X-Mivas-Task-Id': 'S-E3' });
    expect(after.status).toBe(101);
  });

  it('counts a bad id (400) and a duplicate (409) by reason', async () => {
    await tryUpgrade(server.wsUrl, { 'X-Simulation-Result-Id': '../x' });
    await tryUpgrade(server.wsUrl, { 'X-Simulation-Result-Id': 'cap_one' });
    const samples = await metrics(server);
    expect(sumOf(samples, 'mivas_upgrade_rejections_total', { reason: 'bad_id' })).toBe(1);
    expect(sumOf(samples, 'mivas_upgrade_rejections_total', { reason: 'duplicate' })).toBe(1);
  });
});

const AUTH = { Authorization: `Basic ${Buffer.from('u:p').toString('base64')}` };

describe('watchdogs end calls with typed reasons (injected clock)', () => {
  it('no inbound audio for MIVAS_CALLER_SILENCE_S ends the call with caller_silence and close 1000', async () => {
    const clock = new ManualClock();
    const server = await startTestServer({ MIVAS_MAX_CALL_S: '600', MIVAS_CALLER_SILENCE_S: '5', CHIRP_USER: 'u', CHIRP_PASS: 'p' }, { clock });
    try {
      const client = await RawChirpClient.connect(server.wsUrl, { ...AUTH, 'X-Simulation-Result-Id': 'silent_1', 'X-Mivas-Task-Id': 'S-E3' });
      const session = server.ctx.registry.get('silent_1');
      expect(session).toBeDefined();
      for (let i = 0; i < 5; i++) clock.advance(1000);
      expect((await client.closed).code).toBe(1000);
      expect((await session?.finished())?.endReason).toBe('caller_silence');
      await tryUpgrade(server.wsUrl, { 'X-Simulation-Result-Id': 'no_auth' });
      const samples = await metrics(server);
      expect(sumOf(samples, 'mivas_calls_total', { end_reason: 'caller_silence' })).toBe(1);
      expect(sumOf(samples, 'mivas_upgrade_rejections_total', { reason: 'auth' })).toBe(1);
    } finally {
      await server.close();
    }
  });

  it('a call ends at MIVAS_MAX_CALL_S with max_duration and close 1000', async () => {
    const clock = new ManualClock();
    const server = await startTestServer({ MIVAS_MAX_CALL_S: '30', MIVAS_CALLER_SILENCE_S: '600', CHIRP_USER: 'u', CHIRP_PASS: 'p' }, { clock });
    try {
      const client = await RawChirpClient.connect(server.wsUrl, { ...AUTH, 'X-Simulation-Result-Id': 'long_1', 'X-Mivas-Task-Id': 'S-E3' });
      const session = server.ctx.registry.get('long_1');
      clock.advance(30_000);
      expect((await client.closed).code).toBe(1000);
      expect((await session?.finished())?.endReason).toBe('max_duration');
      expect(sumOf(await metrics(server), 'mivas_calls_total', { end_reason: 'max_duration' })).toBe(1);
    } finally {
      await server.close();
    }
  });
});
