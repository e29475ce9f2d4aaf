import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openingLineTasks } from '../../src/episodes/index.ts';
import { routedTask } from '../support/episode-rig.ts';
import { capturedLog } from '../support/log-capture.ts';
import { OpenAICompatibleStandIn } from '../support/openai-compatible.ts';
import { NemoGymClient, OpenEnvClient, request } from '../support/rl-clients.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

/** The caller of RL episodes: `llm` (the digital human on an OpenAI-compatible endpoint) when one is configured, else `scripted`, said plainly. */

describe('RL episodes with a caller endpoint configured', () => {
  let standIn: OpenAICompatibleStandIn;
  let server: TestServer;
  let cacheDir: string;
  beforeAll(async () => {
    standIn = await OpenAICompatibleStandIn.start({ chat: () => ({ content: 'My plan is Aetna, and I mean the Park Avenue office.' }) });
    cacheDir = mkdtempSync(join(tmpdir(), 'mivas-rl-caller-cache-'));
    server = await startTestServer({ MIVAS_PACK: 'healthcare', MIVAS_RL: '1', MIVAS_CALLER_BASE_URL: standIn.baseUrl, MIVAS_CALLER_MODEL: 'caller-standin', MIVAS_RL_CALLER_CACHE: cacheDir });
  }, 120_000);
  afterAll(async () => {
    await server?.close();
    await standIn?.close();
    rmSync(cacheDir, { recursive: true, force: true });
  });

  it('makes llm the default: the dataset rows say so and the caller answers say_to_caller from the endpoint', async () => {
    expect((await request(`${server.httpUrl}/rl`)).body).toMatchObject({ caller: { default: 'llm', llm: true, notice: null } });
    const rows = (await (await fetch(`${server.httpUrl}/rl/healthcare/dataset.jsonl`)).text()).trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(new Set(rows.map((r) => r.caller))).toEqual(new Set(['llm']));
    const task = routedTask(server.ctx.pack);
    const client = new NemoGymClient(`${server.httpUrl}/rl/healthcare`, server.ctx.pack, task);
    const row = rows.find((r) => r.task_id === task.task_id) as Record<string, unknown>;
    expect((await client.seed({ ...row, caller: null })).status).toBe(200);
    const said = await client.call('say_to_caller', { text: 'Which plan do you have?' });
    expect(said.body).toEqual({ ok: true, data: { caller_said: 'My plan is Aetna, and I mean the Park Avenue office.', caller_hung_up: false } });
    expect(standIn.chatRequests().at(-1)).toMatchObject({ model: 'caller-standin', temperature: 0 });
    expect((await client.verify(row)).status).toBe(200);
  });

  it('seeds and caches the caller: the same task, seed and conversation replays its lines without asking again', async () => {
    const task = routedTask(server.ctx.pack);
    const converse = async (): Promise<unknown> => {
      const client = new NemoGymClient(`${server.httpUrl}/rl/healthcare`, server.ctx.pack, task);
      await client.seed({ task_id: task.task_id, seed: 5 });
      const said = await client.call('say_to_caller', { text: 'Can I have your full name, please?' });
      await client.verify({});
      return said.body;
    };
    const before = standIn.chatRequests().length;
    const first = await converse();
    expect(standIn.chatRequests().length).toBe(before + 1);
    expect(standIn.chatRequests().at(-1)?.seed).toEqual(expect.any(Number));
    expect(await converse()).toEqual(first);
    expect(standIn.chatRequests().length).toBe(before + 1);
  });

  it('takes caller llm on an OpenEnv reset', async () => {
    const pack = server.ctx.pack;
    const task = routedTask(pack);
    const before = standIn.chatRequests().length;
    const client = await OpenEnvClient.connect(`${server.wsUrl}rl/healthcare/openenv/ws`, pack, task);
    expect(await client.send({ type: 'reset', data: { task_id: task.task_id, caller: 'llm' } })).toMatchObject({ type: 'observation' });
    const step = await client.step({ name: 'say_to_caller', arguments: { text: 'How can I help?' } });
    expect(step.output).toMatchObject({ ok: true, data: { caller_said: 'My plan is Aetna, and I mean the Park Avenue office.' } });
    expect(standIn.chatRequests().length).toBeGreaterThan(before);
    client.close();
    await client.closed;
  });
});

describe('RL episodes with no caller endpoint', () => {
  let server: TestServer;
  const captured = capturedLog('info');
  beforeAll(async () => {
    server = await startTestServer({ MIVAS_PACK: 'healthcare', MIVAS_RL: '1' }, { log: captured.log });
  }, 120_000);
  afterAll(async () => {
    await server?.close();
  });

  it('says so in GET /rl with the tasks the opening line can pass, and refuses caller llm saying the same', async () => {
    const passable = openingLineTasks(server.ctx.pack);
    expect(passable).toContain('C1-E1');
    expect(passable).not.toContain('C2-E1');
    expect(passable.length).toBeLessThan(server.ctx.pack.tasks.size);
    const boot = captured.lines.map((l) => JSON.parse(l) as { level: number; msg: string; opening_line_tasks?: Record<string, string[]> }).find((l) => l.msg.includes('no caller endpoint'));
    expect(boot).toMatchObject({ level: 40, opening_line_tasks: { healthcare: passable } });
    const rl = await request(`${server.httpUrl}/rl`);
    expect(rl.body).toMatchObject({ caller: { default: 'scripted', llm: false, notice: expect.stringContaining('only tasks passable by the opening line can pass'), opening_line_tasks: { healthcare: passable } } });
    const refused = await request(`${server.httpUrl}/rl/healthcare/seed_session`, { task_id: 'C1-E1', caller: 'llm' });
    expect(refused.status).toBe(422);
    const message = String((refused.body.error as { message: string }).message);
    expect(message).toContain('no caller endpoint is configured');
    expect(message).toContain(passable.join(', '));
    const pack = server.ctx.pack;
    const client = await OpenEnvClient.connect(`${server.wsUrl}rl/healthcare/openenv/ws`, pack, routedTask(pack));
    expect(await client.send({ type: 'reset', data: { caller: 'llm' } })).toMatchObject({ type: 'error', data: { code: 'EPISODE_INVALID', message: expect.stringContaining('no caller endpoint is configured') } });
    client.close();
    await client.closed;
  });
});
