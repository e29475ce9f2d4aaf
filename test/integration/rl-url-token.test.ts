import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routedTask } from '../support/episode-rig.ts';
import { capturedLog } from '../support/log-capture.ts';
import { OpenEnvClient, request } from '../support/rl-clients.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

/**
 * The RL token for clients that cannot send headers (OpenEnv's `EnvClient` opens its WebSocket with
 * no header; huggingface/OpenEnv 385de5e `src/openenv/core/env_client.py` `connect`): in a path
 * segment `/rl/~<token>/…` or the query `?token=`, checked by the same gate as the bearer header.
 */

const TOKEN = 'url-token-7f3a9c';
let server: TestServer;
const captured = capturedLog('trace');

beforeAll(async () => {
  server = await startTestServer({ MIVAS_PACK: 'healthcare', MIVAS_RL: '1', MIVAS_RL_TOKEN: TOKEN }, { log: captured.log });
}, 120_000);

afterAll(async () => {
  await server.close();
});

describe('the RL token in the URL', () => {
  it('opens every kind of RL route with the token in a path segment or the query, and refuses a wrong or missing one', async () => {
    const base = server.httpUrl;
    expect((await request(`${base}/rl`)).status).toBe(401);
    expect((await request(`${base}/rl/~wrong-token`)).status).toBe(401);
    expect((await request(`${base}/rl?token=wrong-token`)).status).toBe(401);
    expect((await request(`${base}/rl/~${TOKEN}`)).body).toMatchObject({ packs: ['healthcare'] });
    expect((await request(`${base}/rl?token=${TOKEN}`)).body).toMatchObject({ packs: ['healthcare'] });
    expect((await request(`${base}/rl/~${TOKEN}/healthcare/openenv/health`)).body).toEqual({ status: 'healthy' });
    const seeded = await request(`${base}/rl/healthcare/seed_session?token=${TOKEN}`, { task_id: routedTask(server.ctx.pack).task_id });
    expect(seeded.status).toBe(200);
    const cookie = (seeded.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
    const hop = await request(`${base}/rl/~${TOKEN}/healthcare/transfer_to_coverage`, {}, { cookie });
    expect(hop.body).toMatchObject({ assistant: 'coverage' });
    expect((await request(`${base}/rl/healthcare/verify`, { response: { output: [] } }, { cookie })).status).toBe(401);
    expect((await request(`${base}/rl/healthcare/verify`, { response: { output: [] } }, { cookie, authorization: `Bearer ${TOKEN}` })).status).toBe(200);
  });

  it('opens the OpenEnv WebSocket with the token in the base URL, as a client that appends /ws to it', async () => {
    const pack = server.ctx.pack;
    const task = routedTask(pack);
    const wsBase = `${server.wsUrl}rl/~${TOKEN}/healthcare/openenv`;
    const client = await OpenEnvClient.connect(`${wsBase}/ws`, pack, task);
    expect(await client.send({ type: 'reset', data: { task_id: task.task_id } })).toMatchObject({ type: 'observation' });
    client.close();
    await client.closed;
    await expect(OpenEnvClient.connect(`${server.wsUrl}rl/~nope/healthcare/openenv/ws`, pack, task)).rejects.toThrow('401');
  });

  it('keeps the token out of routed URLs, messages and logs', async () => {
    const missing = await request(`${server.httpUrl}/rl/~${TOKEN}/healthcare/openenv/nothing/here?token=${TOKEN}&x=1`, {});
    expect(missing.status).toBe(404);
    expect(JSON.stringify(missing.body)).not.toContain(TOKEN);
    expect(JSON.stringify(missing.body)).toContain('/rl/healthcare/openenv/nothing/here');
    expect(captured.lines.length).toBeGreaterThan(0);
    expect(captured.lines.join('')).not.toContain(TOKEN);
  });
});
