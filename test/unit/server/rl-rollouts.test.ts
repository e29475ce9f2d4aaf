// Request-level tests of src/server/rl-rollouts.ts: POST /rl/rollouts and GET /rl/rollouts/:id
// inside the RL gate (docs/rl.md "Speech rollouts"). The whole spoken rollout against a policy
// stand-in is test/integration/rl-speech-rollout.test.ts; here, the route's answers.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, expectProblem } from '../../support/route-requests.ts';
import { startTestServer, type TestServer } from '../../support/server.ts';

const TOKEN = 'rl-rollouts-token';
/** A policy endpoint nothing listens on (port 9, discard): the rollout's call cannot reach its agent. */
const NOWHERE = 'ws://127.0.0.1:9/v1';

describe('rl-rollouts.ts', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ MIVAS_PACK: 'control-industry', MIVAS_RL: '1', MIVAS_RL_TOKEN: TOKEN, MIVAS_FAST: '1' });
  }, 120_000);
  afterAll(async () => server.close());

  const post = (payload: unknown, headers: Record<string, string> = bearer(TOKEN)) => server.app.inject({ method: 'POST', url: '/rl/rollouts', headers, payload: payload as object });

  it('is behind the RL gate', async () => {
    expectProblem(await post({ policy: { url: NOWHERE } }, {}), 'RL_UNAUTHORIZED');
  });

  it('refuses what it cannot run with catalogued problems, before any call', async () => {
    expectProblem(await post([1]), 'BODY_NOT_OBJECT');
    expect(expectProblem(await post({}), 'EPISODE_INVALID')).toContain('policy');
    expect(expectProblem(await post({ policy: { url: 'http://not-a-socket' } }), 'EPISODE_INVALID')).toContain('ws://');
    expect(expectProblem(await post({ pack: 'healthcare', policy: { url: NOWHERE } }), 'EPISODE_INVALID')).toContain('served pack');
    expect(expectProblem(await post({ task_id: 'NO-SUCH', policy: { url: NOWHERE } }), 'EPISODE_INVALID')).toContain('NO-SUCH');
    expect(expectProblem(await post({ caller: { kind: 'replay' }, policy: { url: NOWHERE } }), 'EPISODE_INVALID')).toContain('replay');
    expect(expectProblem(await server.app.inject({ method: 'GET', url: '/rl/rollouts/ro_unknown', headers: bearer(TOKEN) }), 'ROLLOUT_NOT_FOUND')).toContain('ro_unknown');
    expect(server.ctx.callHarnesses.size).toBe(0);
  });

  it('answers 202 with the running record when asked not to wait, reports it by id until it is scored, and gives its harness back', async () => {
    // Over a real socket: the rollout's caller dials this server at the port the request came in on.
    const started = await fetch(`${server.httpUrl}/rl/rollouts`, { method: 'POST', headers: { ...bearer(TOKEN), 'content-type': 'application/json' }, body: JSON.stringify({ task_id: 'S-E1', policy: { url: NOWHERE }, wait: false }) });
    expect(started.status).toBe(202);
    const record = (await started.json()) as { rollout_id: string; status: string; policy_url: string };
    expect(record).toMatchObject({ status: 'running', pack: 'control-industry', task_id: 'S-E1', protocol: 'openai/realtime', caller: 'scripted' });
    expect(record.rollout_id).toMatch(/^ro_[0-9a-f]{24}$/);
    expect(record.policy_url).toBe(`ws://127.0.0.1:9/ng-rollout/${record.rollout_id}/v1`);
    const byId = async () => (await server.app.inject({ method: 'GET', url: `/rl/rollouts/${record.rollout_id}`, headers: bearer(TOKEN) })).json() as { rollout_id: string; status: string };
    expect(await byId()).toMatchObject({ rollout_id: record.rollout_id });
    // Polled as a trainer polls (the route is the only way to learn the end), bounded.
    let last = await byId();
    for (let waited = 0; last.status === 'running' && waited < 60_000; waited += 50) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      last = await byId();
    }
    // The policy never answered: the call ended provider_error and was scored void, reward 0.
    expect(last).toMatchObject({ status: 'done', result: { status: 'VOID', valid: false, reward: 0, end_reason: 'provider_error' } });
    // Its id stays taken: no caller may dial it again.
    expect(server.ctx.callIds.useOf(record.rollout_id)).not.toBeNull();
    expect(server.ctx.callHarnesses.size).toBe(0);
  }, 90_000);
});
