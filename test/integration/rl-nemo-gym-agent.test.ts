import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Pack, Task } from '../../src/packs/index.ts';
import { directorySource, loadSnapshots, scoreRun } from '../../src/scoring/index.ts';
import { routeModel, simpleAgentRollout } from '../support/nemo-gym-agent.ts';
import { request } from '../support/rl-clients.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

/**
 * Issue 25 (NeMo Gym part): NeMo Gym's own simple agent, emulated request by request
 * (test/support/nemo-gym-agent.ts: NVIDIA-NeMo/Gym 07d6b0d, `responses_api_agents/simple_agent/app.py`
 * `SimpleAgent.run` / `_create_episode`, `nemo_gym/server_utils.py` `ServerClient.request` and its
 * jar-less client), drives mivas's root mount as NeMo Gym addresses a resources server.
 */

const ROLLOUTS = 32;
let server: TestServer;
let pack: Pack;
let rows: Record<string, unknown>[];

beforeAll(async () => {
  server = await startTestServer({ MIVAS_PACK: 'healthcare', MIVAS_RL: '1' });
  pack = server.ctx.pack;
  const res = await fetch(`${server.httpUrl}/rl/healthcare/dataset.jsonl`);
  rows = (await res.text()).trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
}, 120_000);

afterAll(async () => {
  await server.close();
});

describe("NeMo Gym's simple agent against mivas", () => {
  it('seeds the dataset row as NeMo Gym dumps it: unset create params null, extra fields kept', async () => {
    const row = rows[0] as Record<string, unknown>;
    const params = row.responses_create_params as Record<string, unknown>;
    const nulled = await request(`${server.httpUrl}/rl/healthcare/seed_session`, { ...row, seed: null, max_turns: null, caller: null, responses_create_params: { ...params, model: null, temperature: null, top_p: null }, agent_ref: { name: 'simple_agent' }, _ng_rollout_index: 0 });
    expect(nulled.status).toBe(200);
    expect(nulled.body).toMatchObject({ task_id: row.task_id, done: false });
    const bare = await request(`${server.httpUrl}/rl/healthcare/seed_session`, { task_id: row.task_id });
    expect(bare.status).toBe(200);
    const wrongType = await request(`${server.httpUrl}/rl/healthcare/seed_session`, { ...row, seed: 'three' });
    expect(wrongType.status).toBe(422);
    expect(wrongType.body).toMatchObject({ error: { code: 'EPISODE_INVALID' } });
    for (const reply of [nulled, bare]) {
      const cookie = (reply.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
      expect((await request(`${server.httpUrl}/verify`, { ...row, response: { output: [] } }, { cookie })).status).toBe(200);
    }
  });

  it(`runs ${ROLLOUTS} parallel rollouts of reference routes with no cookie jar: all verify, rewards equal mivas score, none left live`, async () => {
    const picked = rows.slice(0, ROLLOUTS);
    expect(picked).toHaveLength(ROLLOUTS);
    const results = await Promise.all(
      picked.map((row, i) => {
        const task = pack.tasks.get(String(row.task_id)) as Task;
        // Half as with observability on (the /ng-rollout/<task>-<rollout> prefix on every resources call), half without.
        const prefix = i % 2 ? `/ng-rollout/${String(row._ng_task_index)}-0` : '';
        return simpleAgentRollout(server.httpUrl, { ...row, _ng_rollout_index: 0, agent_ref: { name: 'simple_agent' } }, routeModel(pack, task), { prefix });
      }),
    );
    expect(results).toHaveLength(ROLLOUTS);
    for (const { verify, requests } of results) {
      const id = String(verify.episode_id);
      // Every answer about the episode named it again, so replacing the cookies never lost it.
      expect(requests.length).toBeGreaterThan(3);
      for (const sent of requests) expect(sent.setCookie.map((c) => c.split(';')[0])).toEqual([`mivas_episode=${id}`]);
      for (const sent of requests.slice(1)) expect(sent.cookie).toBe(`mivas_episode=${id}`);
      expect(verify).toMatchObject({ status: 'PASS', reward: 1, valid: true, end_reason: expect.stringMatching(/^(agent_end_call|human_transfer)$/) });
      expect(verify.responses_create_params).toMatchObject({ model: null, temperature: null });
    }

    await server.ctx.outbox.flush();
    const snapshots = await loadSnapshots(directorySource(join(server.dataDir, 'snapshots')), 'healthcare');
    const scored = scoreRun(snapshots, new Map([['healthcare', pack]]), new Map(), { k: 1, seed: 1, resamples: 10, minCallMs: 0, allowPackDrift: false, pack: 'healthcare', stamp: null, flags: {} });
    const byId = new Map(scored.conversations.map((c) => [c.conversation_id, c]));
    for (const { verify } of results) {
      const verdict = byId.get(String(verify.episode_id));
      expect(verdict, String(verify.episode_id)).toBeDefined();
      expect([verify.status, verify.reward]).toEqual([verdict?.status, verdict?.reward]);
    }
    expect((await request(`${server.httpUrl}/rl`)).body).toMatchObject({ live_episodes: 0 });
  }, 180_000);

  it('a tool answer without the episode cookie would lose the episode: the next call and verify find none', async () => {
    const row = rows[1] as Record<string, unknown>;
    const seeded = await request(`${server.httpUrl}/seed_session`, row);
    const cookie = (seeded.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
    // What the client holds after an answer with no Set-Cookie: nothing.
    const lost = await request(`${server.httpUrl}/list_locations`, {});
    expect(lost.status).toBe(404);
    expect(lost.body).toMatchObject({ error: { code: 'EPISODE_NOT_FOUND' } });
    expect(lost.headers.get('set-cookie')).toBeNull();
    // A hallucinated tool name is answered by the engine, with the cookie, like any tool.
    const unknown = await request(`${server.httpUrl}/no_such_tool`, {}, { cookie });
    expect(unknown.status).toBe(200);
    expect(unknown.body).toMatchObject({ ok: false, error_code: 'UNKNOWN_TOOL' });
    expect(unknown.headers.get('set-cookie')?.split(';')[0]).toBe(cookie);
    expect((await request(`${server.httpUrl}/verify`, { ...row, response: { output: [] } }, { cookie })).status).toBe(200);
  });
});

describe('rollouts that die after their seed', () => {
  it('never block the cap: at capacity the oldest untouched episode makes room, and the rest are reaped soon, each scored as idle', async () => {
    const small = await startTestServer({ MIVAS_PACK: 'healthcare', MIVAS_RL: '1', MIVAS_RL_MAX_EPISODES: '2', MIVAS_RL_UNTOUCHED_S: '2' });
    try {
      const row = rows[0] as Record<string, unknown>;
      const seed = async () => {
        const reply = await request(`${small.httpUrl}/seed_session`, row);
        expect(reply.status).toBe(200);
        return (reply.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
      };
      const dead = [await seed(), await seed()];
      const alive = await seed();
      expect((await request(`${small.httpUrl}/list_locations`, {}, { cookie: alive })).status).toBe(200);
      const evicted = await request(`${small.httpUrl}/list_locations`, {}, { cookie: dead[0] as string });
      expect(evicted.body).toMatchObject({ error: { code: 'EPISODE_ENDED' } });
      // The one left untouched is reaped by the desk's timer; the used one lives on until the idle limit.
      const deadline = Date.now() + 20_000;
      while ((await request(`${small.httpUrl}/rl`)).body.live_episodes !== 1 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      expect((await request(`${small.httpUrl}/rl`)).body).toMatchObject({ live_episodes: 1 });
      for (const cookie of dead) {
        const verified = await request(`${small.httpUrl}/verify`, { ...row, response: { output: [] } }, { cookie });
        expect(verified.body).toMatchObject({ truncated: 'idle', end_reason: 'max_duration', status: 'FAIL', reward: 0 });
      }
      expect((await request(`${small.httpUrl}/verify`, { ...row, response: { output: [] } }, { cookie: alive })).body).toMatchObject({ truncated: 'policy_stopped' });
    } finally {
      await small.close();
    }
  }, 60_000);
});
