import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Summary, TimelineEvent } from '../../src/snapshot/index.ts';
import { RawChirpClient, type CloseInfo } from '../support/chirp-client.ts';
import { eventsOf, readSnapshot, startRealtimeRig, type RealtimeRig } from '../support/realtime-call.ts';
import { RealtimeStandIn, tone } from '../support/realtime-server.ts';

/** Connects a raw CHIRP caller, lets the call run, and returns how it ended plus its snapshot. */
async function endedCall(rig: RealtimeRig, callId: string, duringCall: (client: RawChirpClient) => Promise<void>) {
  const client = await RawChirpClient.connect(rig.server.wsUrl, { 'X-Simulation-Result-Id': callId });
  const session = rig.server.ctx.registry.get(callId);
  await duringCall(client);
  const closed: CloseInfo = await client.closed;
  await session?.finished();
  const snapshot = await readSnapshot(rig.server, callId);
  return { client, closed, ...snapshot };
}

describe('a provider that drops mid-call (issue 3 acceptance 5, wire.md §6.15)', () => {
  let rig: RealtimeRig;
  let result: Awaited<ReturnType<typeof endedCall>>;

  beforeAll(async () => {
    rig = await startRealtimeRig('openai/realtime');
    result = await endedCall(rig, 'rt_drop', async (client) => {
      const conn = await rig.standIn.nextConnection();
      await conn.next('response.create');
      conn.respond([{ audio: tone(300, 24_000), transcript: 'Hello.' }]);
      await client.waitForType('speech.completed');
      conn.drop();
    });
  });
  afterAll(async () => {
    await rig?.close();
  });

  it('sends session.error, then closes the CHIRP socket with 1011', () => {
    expect(result.closed.code).toBe(1011);
    const last = result.client.texts().at(-1);
    expect(last?.decoded).toMatchObject({ ok: true, frame: { type: 'session.error', code: 'INTERNAL_ERROR' } });
  });

  it('ends the call with provider_error and still writes a complete snapshot', () => {
    const summary: Summary = result.summary;
    const events: readonly TimelineEvent[] = result.events;
    expect(summary).toMatchObject({ end_reason: 'provider_error', close_code: 1011, void_reason: 'provider_error' });
    expect(eventsOf(events, 'provider.error')).toMatchObject([{ code: 'provider_disconnected', fatal: true }]);
    expect(eventsOf(events, 'call.ended')).toMatchObject([{ end_reason: 'provider_error', close_code: 1011 }]);
    expect(summary.usage.total_tokens).toBe(300);
  });
});

describe('a provider that cannot be reached', () => {
  it('ends the call at once with provider_error and 1011', async () => {
    const dead = await RealtimeStandIn.start();
    const deadUrl = dead.baseUrl('/v1');
    await dead.close();
    const rig = await startRealtimeRig('openai/realtime', { MIVAS_OPENAI_BASE_URL: deadUrl });
    try {
      const { closed, summary } = await endedCall(rig, 'rt_unreachable', async () => undefined);
      expect(closed.code).toBe(1011);
      expect(summary.end_reason).toBe('provider_error');
      expect(rig.standIn.connections).toHaveLength(0);
    } finally {
      await rig.close();
    }
  });
});
