import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { aggregateMetrics, noopPolicy, REWARD_VERSION, scriptedPolicy } from '../../src/episodes/index.ts';
import type { Pack } from '../../src/packs/index.ts';
import { summarySchema } from '../../src/snapshot/index.ts';
import { routedTask } from '../support/episode-rig.ts';
import { NemoGymClient, request } from '../support/rl-clients.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

let server: TestServer;
let pack: Pack;
let rows: Record<string, unknown>[];
const base = (): string => `${server.httpUrl}/rl/healthcare`;
const rowOf = (taskId: string): Record<string, unknown> => rows.find((r) => r.task_id === taskId) as Record<string, unknown>;

beforeAll(async () => {
  server = await startTestServer({ MIVAS_PACK: 'healthcare', MIVAS_RL: '1', MIVAS_RL_PACKS: 'legal' });
  pack = server.ctx.pack;
  const res = await fetch(`${base()}/dataset.jsonl`);
  rows = (await res.text()).trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
}, 120_000);

afterAll(async () => {
  await server.close();
});

describe('NeMo Gym dataset rows', () => {
  it('has one row per task with responses_create_params: instructions, the greeting said, the opening line and every desk\'s tools', async () => {
    expect(rows.length).toBe(pack.tasks.size);
    const task = routedTask(pack);
    const row = rowOf(task.task_id);
    const params = row.responses_create_params as { input: { role: string; content: string }[]; tools: { type: string; name: string; parameters: unknown; strict: boolean }[]; parallel_tool_calls: boolean };
    expect(params.input.map((m) => m.role)).toEqual(['system', 'assistant', 'user']);
    expect(params.input[0]?.content).toContain('It is Tuesday, October sixth, 2026 at ten a.m.');
    expect(params.input[1]?.content).toBe(pack.blueprint.greeting);
    expect(params.input[2]?.content).toBe("Hi, I'm a new patient. Do you take Aetna at your Park Avenue office?");
    expect(params.tools[0]).toMatchObject({ type: 'function', name: 'say_to_caller', strict: false });
    expect(params.tools.map((t) => t.name)).toEqual(expect.arrayContaining(['check_plan_accepted', 'transfer_to_coverage', 'end_call']));
    expect(params.parallel_tool_calls).toBe(false);
    expect(row).toMatchObject({ pack: 'healthcare', task_id: task.task_id, handoff_mode: 'soft', caller: 'scripted', reward_version: REWARD_VERSION, _ng_task_index: expect.any(Number) });
    const legal = await fetch(`${server.httpUrl}/rl/legal/dataset.jsonl`);
    expect((await legal.text()).trim().split('\n').length).toBeGreaterThan(0);
  });
});

describe('NeMo Gym resources server', () => {
  it('seeds an episode by cookie, runs each tool by POST, and verifies with the reward and components', async () => {
    const task = routedTask(pack);
    const client = new NemoGymClient(base(), pack, task);
    const row = rowOf(task.task_id);
    const seeded = await client.seed(row);
    expect(seeded.status).toBe(200);
    expect(client.cookie).toMatch(/^mivas_episode=ep_[0-9a-f]{24}$/);
    expect(seeded.body).toMatchObject({ task_id: task.task_id, agent: 'reception', handoff_mode: 'soft', caller_said: "Hi, I'm a new patient. Do you take Aetna at your Park Avenue office?" });
    await scriptedPolicy().play(client, null);
    const response = { id: 'resp_1', output: [{ type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Goodbye.' }] }] };
    const verified = await client.verify(row, response);
    expect(verified.status).toBe(200);
    expect(verified.body).toMatchObject({
      responses_create_params: row.responses_create_params,
      response,
      task_id: task.task_id,
      reward: 1,
      reward_components: { state: 1, tools: 1, handoff: 1, route: 1 },
      state: 1,
      tools: 1,
      handoff: 1,
      route: 1,
      pass: true,
      valid: true,
      status: 'PASS',
      reasons: [],
      end_reason: 'agent_end_call',
      truncated: null,
      reward_version: REWARD_VERSION,
      _ng_task_index: row._ng_task_index,
    });
    const again = await client.verify(row, response);
    expect(again.body.reward).toBe(1);
    expect(again.body.episode_id).toBe(verified.body.episode_id);
  });

  it('writes the episode\'s snapshot like any call, with harness text/nemo-gym', async () => {
    const task = routedTask(pack);
    const client = new NemoGymClient(base(), pack, task);
    await client.seed(rowOf(task.task_id));
    await noopPolicy().play(client, null);
    const verified = await client.verify(rowOf(task.task_id));
    expect(verified.body).toMatchObject({ reward: 0, status: 'FAIL', pass: false, valid: true });
    expect((verified.body.reasons as string[]).length).toBeGreaterThan(0);
    await server.ctx.outbox.flush();
    const id = String(verified.body.episode_id);
    const dir = join(server.dataDir, 'snapshots', 'healthcare');
    expect(readdirSync(dir).filter((f) => f.startsWith(`${id}.`)).sort()).toEqual(['db', 'final.json', 'summary.json', 'timeline.json', 'wav'].map((p) => `${id}.${p}`));
    const summary = summarySchema.parse(JSON.parse(readFileSync(join(dir, `${id}.summary.json`), 'utf8')));
    expect(summary).toMatchObject({ harness: 'text/nemo-gym', task_id: task.task_id, end_reason: 'agent_end_call' });
  });

  it('answers a tool the active agent does not own with the engine\'s TOOL_NOT_AVAILABLE envelope', async () => {
    const task = routedTask(pack);
    const client = new NemoGymClient(base(), pack, task);
    await client.seed(rowOf(task.task_id));
    const refused = await client.call('check_plan_accepted', { carrier: 'aetna', location_id: 'loc_park_ave' });
    expect(refused.status).toBe(200);
    expect(refused.body).toMatchObject({ ok: false, error_code: 'TOOL_NOT_AVAILABLE' });
    const unknown = await client.call('no_such_tool', {});
    expect(unknown.body).toMatchObject({ ok: false, error_code: 'UNKNOWN_TOOL' });
    const hop = await client.call('transfer_to_coverage', {});
    expect(hop.body).toMatchObject({ assistant: 'coverage', instructions: expect.stringContaining('# YOUR ROLE') });
    const owned = await client.call('check_plan_accepted', { carrier: 'aetna', location_id: 'loc_park_ave' });
    expect(owned.body).toMatchObject({ ok: true, data: { status: 'accepted' } });
    const said = await client.call('say_to_caller', { text: 'Yes, Park Avenue takes Aetna.' });
    expect(said.body).toEqual({ ok: true, data: { caller_said: null, caller_hung_up: false } });
  });

  it('refuses an unknown session, a closed episode, and a body that is not an object', async () => {
    const task = routedTask(pack);
    const none = await request(`${base()}/list_locations`, {});
    expect(none.status).toBe(404);
    expect(none.body).toMatchObject({ error: { code: 'EPISODE_NOT_FOUND' } });
    const stranger = await request(`${base()}/list_locations`, {}, { cookie: 'mivas_episode=ep_000000000000000000000000' });
    expect(stranger.body).toMatchObject({ error: { code: 'EPISODE_NOT_FOUND' } });
    expect((await request(`${base()}/verify`, { responses_create_params: {}, response: {} })).status).toBe(404);
    const client = new NemoGymClient(base(), pack, task);
    await client.seed(rowOf(task.task_id));
    expect((await client.call('end_call', { reason: 'caller_done' })).body).toEqual({ ok: true });
    const after = await client.call('list_locations', {});
    expect(after.status).toBe(409);
    expect(after.body).toMatchObject({ error: { code: 'EPISODE_ENDED' } });
    const verified = await client.verify(rowOf(task.task_id));
    expect(verified.status).toBe(200);
    expect(verified.body).toMatchObject({ reward: 0, end_reason: 'agent_end_call' });
    const notObject = await fetch(`${base()}/list_locations`, { method: 'POST', headers: { 'content-type': 'application/json', cookie: client.cookie }, body: '[1]' });
    expect(notObject.status).toBe(422);
    const badSeed = await request(`${base()}/seed_session`, { task_id: 'NOPE-1' });
    expect(badSeed.status).toBe(422);
    expect(badSeed.body).toMatchObject({ error: { code: 'EPISODE_INVALID' } });
    const wrongPack = await request(`${base()}/seed_session`, { ...rowOf(task.task_id), pack: 'legal' });
    expect(wrongPack.body).toMatchObject({ error: { code: 'EPISODE_INVALID' } });
  });

  it('verifies an episode the policy stopped without ending as truncated, its last message recorded as speech', async () => {
    const task = routedTask(pack);
    const client = new NemoGymClient(base(), pack, task);
    await client.seed(rowOf(task.task_id));
    const response = { output: [{ type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Let me check on that for you.' }] }] };
    const verified = await client.verify(rowOf(task.task_id), response);
    expect(verified.body).toMatchObject({ status: 'FAIL', reward: 0, end_reason: 'max_duration', truncated: 'policy_stopped' });
    await server.ctx.outbox.flush();
    const timeline = readFileSync(join(server.dataDir, 'snapshots', 'healthcare', `${String(verified.body.episode_id)}.timeline.json`), 'utf8');
    expect(timeline).toContain('Let me check on that for you.');
  });

  it('serves the same routes under the ng-rollout prefix, the episode path, and (for the served pack) the root', async () => {
    const task = routedTask(pack);
    const root = new NemoGymClient(server.httpUrl, pack, task);
    expect((await root.seed(rowOf(task.task_id))).status).toBe(200);
    const prefixed = await request(`${server.httpUrl}/ng-rollout/7-0/transfer_to_coverage`, {}, { cookie: root.cookie });
    expect(prefixed.body).toMatchObject({ assistant: 'coverage' });
    const id = root.cookie.split('=')[1] ?? '';
    const byPath = await request(`${base()}/episodes/${id}/check_plan_accepted`, { carrier: 'aetna', location_id: 'loc_park_ave' });
    expect(byPath.body).toMatchObject({ ok: true });
    const verified = await request(`${base()}/ng-rollout/7-0/verify`, { ...rowOf(task.task_id), response: { output: [] } }, { cookie: root.cookie });
    expect(verified.body).toMatchObject({ episode_id: id, status: 'PASS', truncated: 'policy_stopped', reward_components: { state: 1, tools: 1, handoff: 1, route: 1 } });
    expect(await (await fetch(`${server.httpUrl}/reverify_mode`)).json()).toBe('unsupported');
  });

  it('aggregates verify responses: NeMo Gym baseline statistics and pass@k / pass^k over scored rollouts', async () => {
    const mk = (task: number, status: 'PASS' | 'FAIL' | 'VOID') => ({ _ng_task_index: task, reward: status === 'PASS' ? 1 : 0, state: status === 'PASS' ? 1 : 0, status, pass: status === 'PASS', valid: status !== 'VOID' });
    const body = { verify_responses: [mk(0, 'PASS'), mk(0, 'PASS'), mk(0, 'FAIL'), mk(1, 'FAIL'), mk(1, 'PASS'), mk(1, 'VOID')] };
    const res = await request(`${base()}/aggregate_metrics`, body);
    expect(res.status).toBe(200);
    expect(res.body).toEqual(aggregateMetrics(body.verify_responses));
    const agent = res.body.agent_metrics as Record<string, number>;
    expect(agent['mean/reward']).toBeCloseTo(0.5, 12);
    expect(agent['pass@1']).toBeCloseTo((2 / 3 + 1 / 2) / 2, 12);
    expect(agent['pass^2']).toBeCloseTo((1 / 3 + 0) / 2, 12);
    expect(agent['pass^3']).toBeCloseTo(0, 12);
    expect(agent.num_scored).toBe(5);
    expect(res.body.key_metrics).toEqual({ 'mean/reward': agent['mean/reward'], 'pass@1': agent['pass@1'], 'pass^3': agent['pass^3'] });
    const groups = res.body.group_level_metrics as Record<string, unknown>[];
    expect(groups.map((g) => [g._ng_task_index, g.num_rollouts, g.num_scored, g.num_passed])).toEqual([
      [0, 3, 3, 2],
      [1, 3, 2, 1],
    ]);
    expect((await request(`${base()}/aggregate_metrics`, { nope: 1 })).status).toBe(422);
  });
});

describe('server shutdown', () => {
  it('finishes live episodes when the server closes, so every seeded episode leaves a snapshot', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'mivas-rl-close-'));
    const small = await startTestServer({ MIVAS_PACK: 'control-industry', MIVAS_RL: '1' }, {}, dataDir);
    const seeded = await request(`${small.httpUrl}/rl/control-industry/seed_session`, {});
    const id = String(seeded.body.episode_id);
    expect(existsSync(join(dataDir, 'snapshots', 'control-industry', `${id}.summary.json`))).toBe(false);
    await small.close();
    const summary = summarySchema.parse(JSON.parse(readFileSync(join(dataDir, 'snapshots', 'control-industry', `${id}.summary.json`), 'utf8')));
    expect(summary).toMatchObject({ call_id: id, harness: 'text/nemo-gym', end_reason: 'max_duration' });
    rmSync(dataDir, { recursive: true, force: true });
  }, 60_000);
});
