// Request-level tests of src/server/rl-routes.ts: the RL gate (bearer or URL token), the NeMo Gym
// resources-server routes with their cookie, and OpenEnv's stateless HTTP routes (docs/rl.md).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, expectProblem } from '../../support/route-requests.ts';
import { startTestServer, type TestServer } from '../../support/server.ts';

const TOKEN = 'rl-routes-token';
const PACK = 'control-industry';

describe('rl-routes.ts', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ MIVAS_PACK: PACK, MIVAS_RL: '1', MIVAS_RL_TOKEN: TOKEN });
  }, 120_000);
  afterAll(async () => server.close());

  const inject = (method: 'GET' | 'POST', url: string, headers: Record<string, string> = bearer(TOKEN), payload?: unknown) =>
    server.app.inject({ method, url, headers, ...(payload === undefined ? {} : { payload: payload as object }) });

  it('refuses a missing or wrong token with 401 RL_UNAUTHORIZED, a Bearer challenge and Connection: close', async () => {
    for (const res of [await inject('GET', '/rl', {}), await inject('GET', '/rl', bearer('nope')), await inject('GET', '/rl/~nope/control-industry/openenv/health', {})]) {
      expectProblem(res, 'RL_UNAUTHORIZED');
      expect(res.headers['www-authenticate']).toBe('Bearer realm="mivas-rl"');
    }
  });

  it('takes the token as a bearer header, a /rl/~<token>/ path segment or a ?token= query', async () => {
    for (const res of [await inject('GET', '/rl'), await inject('GET', `/rl/~${TOKEN}`, {}), await inject('GET', `/rl?token=${TOKEN}`, {})]) {
      expect(res.statusCode).toBe(200);
      expect(res.json()).toMatchObject({ packs: [PACK], live_episodes: 0 });
    }
  });

  it('seeds a NeMo Gym episode with its cookie, runs a tool by the cookie, and verifies it with a reward', async () => {
    const seeded = await inject('POST', `/rl/${PACK}/seed_session`, bearer(TOKEN), { task_id: 'S-E1' });
    expect(seeded.statusCode).toBe(200);
    const { episode_id: id } = seeded.json() as { episode_id: string };
    expect(id).toMatch(/^ep_[0-9a-f]{24}$/);
    expect(seeded.headers['set-cookie']).toBe(`mivas_episode=${id}; Path=/; HttpOnly; SameSite=Lax`);
    const withCookie = { ...bearer(TOKEN), cookie: `mivas_episode=${id}` };
    const step = await inject('POST', `/rl/${PACK}/transfer_to_scheduler`, withCookie, {});
    expect(step.statusCode).toBe(200);
    expect(step.json()).toMatchObject({ assistant: 'scheduler' });
    expect(step.headers['set-cookie']).toContain(id);
    // The desk holds the id in the app's one owner of ids: no call or scratch conversation may take it.
    expect(server.ctx.callIds.useOf(id)).toBe('used');
    const verified = await inject('POST', `/rl/${PACK}/verify`, withCookie, { response: { output: [] } });
    expect(verified.statusCode).toBe(200);
    expect(verified.json()).toMatchObject({ reward: expect.any(Number), pass: expect.any(Boolean) });
    expectProblem(await inject('POST', `/rl/${PACK}/transfer_to_scheduler`, withCookie, {}), 'EPISODE_ENDED');
  });

  it('refuses NeMo Gym requests it cannot run with catalogued problems', async () => {
    expectProblem(await inject('POST', `/rl/${PACK}/seed_session`, bearer(TOKEN), [1]), 'BODY_NOT_OBJECT');
    expectProblem(await inject('POST', `/rl/${PACK}/seed_session`, bearer(TOKEN), { pack: 'another' }), 'EPISODE_INVALID');
    expectProblem(await inject('POST', `/rl/${PACK}/check_date`, bearer(TOKEN), { date: '2026-10-07' }), 'EPISODE_NOT_FOUND');
    expectProblem(await inject('POST', `/rl/${PACK}/check_date`, { ...bearer(TOKEN), cookie: 'mivas_episode=../x' }, {}), 'EPISODE_NOT_FOUND');
  });

  it("answers OpenEnv's stateless HTTP routes, and refuses a call_tool step over HTTP", async () => {
    expect((await inject('GET', `/rl/${PACK}/openenv/health`)).json()).toEqual({ status: 'healthy' });
    const step = await inject('POST', `/rl/${PACK}/openenv/step`, bearer(TOKEN), { action: { type: 'call_tool', tool_name: 'check_date', arguments: {} } });
    expectProblem(step, 'EPISODE_NOT_FOUND');
    expectProblem(await inject('POST', `/rl/${PACK}/openenv/step`, bearer(TOKEN), { action: { type: 'nonsense' } }), 'VALIDATION_ERROR');
  });
});
