// src/server/observability.ts registers no route of its own: what it builds (the app's metrics,
// the call observer, the audio counter) is read through GET /metrics. Here, one call of the
// scripted harness, and what /metrics says of it once it has hung up.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dialOpeningLine } from '../../../src/caller/index.ts';
import { openingLineOf } from '../../../src/packs/index.ts';
import { startTestServer, type TestServer } from '../../support/server.ts';

describe('observability.ts (through GET /metrics)', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ MIVAS_PACK: 'control-industry', MIVAS_FAST: '1' });
  });
  afterAll(async () => server.close());

  const metric = async (pattern: RegExp): Promise<number | null> => {
    const body = (await server.app.inject({ method: 'GET', url: '/metrics' })).body;
    const line = body.split('\n').find((l) => pattern.test(l));
    return line ? Number(line.slice(line.lastIndexOf(' ') + 1)) : null;
  };

  it('counts a finished call by its end reason, and its audio both ways', async () => {
    expect(await metric(/^mivas_calls_total\{/)).toBeNull();
    const task = server.ctx.pack.tasks.get('S-E1');
    const report = await dialOpeningLine({ url: server.wsUrl, callId: 'obs_call', taskId: 'S-E1', runId: null, auth: null, openingLine: openingLineOf(task?.intent ?? ''), synth: server.ctx.synth, paced: false, timeoutMs: 60_000 });
    expect(report.refusedStatus ?? null).toBeNull();
    await server.ctx.registry.whenIdle();
    expect(await metric(/^mivas_calls_total\{[^}]*harness="scripted"[^}]*\}/)).toBe(1);
    expect(await metric(/^mivas_audio_bytes_total\{direction="inbound"\}/)).toBeGreaterThan(0);
    expect(await metric(/^mivas_audio_bytes_total\{direction="outbound"\}/)).toBeGreaterThan(0);
    expect(await metric(/^mivas_calls_active /)).toBe(0);
  }, 90_000);
});
