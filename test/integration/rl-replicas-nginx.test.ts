import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { replicaOfEpisode } from '../../src/episodes/index.ts';
import { loadPack, type Pack, type Task } from '../../src/packs/index.ts';
import { directorySource, loadSnapshots, scoreRun } from '../../src/scoring/index.ts';
import { routeModel, simpleAgentRollout } from '../support/nemo-gym-agent.ts';
import { request } from '../support/rl-clients.ts';
import { freePort, pollUntil, spawnServe, type ServeProcess } from '../support/serve-process.ts';

/**
 * Issue 26 (scale part): two `mivas serve` processes behind a real nginx running the shipped
 * deploy/nginx/mivas-rl.conf (only its ports rewritten), and NeMo Gym's simple agent emulated
 * request by request (test/support/nemo-gym-agent.ts, followed from NVIDIA-NeMo/Gym 07d6b0d:
 * no cookie jar, each answer's Set-Cookie replaces the cookies, optional /ng-rollout/<id> prefix)
 * against the one URL. Each process names itself with MIVAS_RL_REPLICA; the episode ids it mints
 * carry the name, and nginx routes on it. No episode may be lost or reach the other process.
 */

const NGINX = '/usr/sbin/nginx';
const ROOT = resolve(import.meta.dirname, '../..');
const REPLICAS = ['mivas-0', 'mivas-1'] as const;
const ROLLOUTS = 24;
const PATH_FORM = 6;

let servers: ServeProcess[] = [];
let nginx: ChildProcess | null = null;
let dir = '';
let base = '';
let pack: Pack;
let rows: Record<string, unknown>[] = [];

/** The shipped config with its two upstream addresses and its listen port replaced; throws if any is missing. */
function shippedConfig(listen: number, ports: readonly number[]): string {
  let text = readFileSync(join(ROOT, 'deploy/nginx/mivas-rl.conf'), 'utf8');
  const swaps: [string, string][] = [
    ['listen 127.0.0.1:8080;', `listen 127.0.0.1:${listen};`],
    ['127.0.0.1:8081;', `127.0.0.1:${ports[0]};`],
    ['127.0.0.1:8082;', `127.0.0.1:${ports[1]};`],
  ];
  for (const [from, to] of swaps) {
    if (!text.includes(from)) throw new Error(`deploy/nginx/mivas-rl.conf no longer has ${from}`);
    text = text.replaceAll(from, to);
  }
  return text;
}

/** A main nginx.conf that keeps every file nginx writes in `dir` and runs in the foreground. */
function mainConfig(): string {
  const user = process.getuid?.() === 0 ? 'user root root;\n' : '';
  const temp = ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map((t) => `  ${t}_temp_path ${join(dir, t)};`).join('\n');
  return `${user}daemon off;\nworker_processes 1;\npid ${join(dir, 'nginx.pid')};\nerror_log ${join(dir, 'error.log')} warn;\nevents { worker_connections 512; }\nhttp {\n  access_log ${join(dir, 'access.log')};\n${temp}\n  include ${join(dir, 'mivas-rl.conf')};\n}\n`;
}

async function startNginx(): Promise<void> {
  const listen = await freePort();
  writeFileSync(join(dir, 'mivas-rl.conf'), shippedConfig(listen, servers.map((s) => s.port)));
  writeFileSync(join(dir, 'nginx.conf'), mainConfig());
  const output: string[] = [];
  nginx = spawn(NGINX, ['-p', dir, '-c', join(dir, 'nginx.conf'), '-e', join(dir, 'error.log')], { stdio: ['ignore', 'pipe', 'pipe'] });
  nginx.stdout?.on('data', (c: Buffer) => output.push(c.toString()));
  nginx.stderr?.on('data', (c: Buffer) => output.push(c.toString()));
  let exited = false;
  nginx.once('exit', () => {
    exited = true;
  });
  base = `http://127.0.0.1:${listen}`;
  await pollUntil(async () => {
    if (exited) throw new Error(`nginx exited:\n${output.join('')}\n${readFileSync(join(dir, 'error.log'), 'utf8')}`);
    return (await fetch(`${base}/rl`).then((r) => r.status, () => 0)) === 200;
  }, 20_000);
}

beforeAll(async () => {
  if (!existsSync(NGINX)) return;
  dir = mkdtempSync(join(tmpdir(), 'mivas-nginx-'));
  servers = await Promise.all(REPLICAS.map((replica) => spawnServe({ MIVAS_PACK: 'healthcare', MIVAS_RL: '1', MIVAS_RL_REPLICA: replica, MIVAS_LOG_LEVEL: 'warn' })));
  await startNginx();
  pack = await loadPack(join(ROOT, 'packs'), 'healthcare', join(ROOT, 'migrations'));
  rows = (await (await fetch(`${base}/rl/healthcare/dataset.jsonl`)).text()).trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
}, 120_000);

afterAll(async () => {
  if (nginx && nginx.exitCode === null) {
    const gone = new Promise((r) => nginx?.once('exit', r));
    nginx.kill('SIGQUIT');
    await Promise.race([gone, new Promise((r) => setTimeout(r, 5_000))]);
    if (nginx.exitCode === null) nginx.kill('SIGKILL');
  }
  for (const s of servers) {
    s.child.kill('SIGTERM');
    await Promise.race([s.exited, new Promise((r) => setTimeout(r, 15_000))]);
    rmSync(s.dataDir, { recursive: true, force: true });
  }
  if (dir) rmSync(dir, { recursive: true, force: true });
}, 60_000);

/** The server a replica name belongs to. */
function serverOf(replica: string | null): ServeProcess {
  const index = REPLICAS.indexOf(replica as (typeof REPLICAS)[number]);
  const server = servers[index];
  if (!server) throw new Error(`no replica ${String(replica)}`);
  return server;
}

/** Episode ids with a snapshot summary in a server's snapshot folder. */
function snapshotIds(server: ServeProcess): string[] {
  const folder = join(server.dataDir, 'snapshots', 'healthcare');
  return existsSync(folder) ? readdirSync(folder).flatMap((n) => (n.endsWith('.summary.json') ? [n.slice(0, -'.summary.json'.length)] : [])) : [];
}

/** The verdicts `mivas score` gives the snapshots in a server's data dir, by episode id. */
async function scoredBy(server: ServeProcess): Promise<Map<string, { status: string; reward: number | null }>> {
  const snapshots = await loadSnapshots(directorySource(join(server.dataDir, 'snapshots')), 'healthcare');
  const scored = scoreRun(snapshots, new Map([['healthcare', pack]]), new Map(), { k: 1, seed: 1, resamples: 10, minCallMs: 0, allowPackDrift: false, pack: 'healthcare', stamp: null, flags: {} });
  return new Map(scored.conversations.map((c) => [c.conversation_id, { status: c.status, reward: c.reward }]));
}

const SKIP_REASON = existsSync(NGINX) ? '' : ` (skipped: needs nginx at ${NGINX}; .ci/run installs the nginx package)`;

describe.skipIf(!existsSync(NGINX))(`two mivas processes behind nginx (deploy/nginx/mivas-rl.conf)${SKIP_REASON}`, () => {
  it('routes a path-form episode to the process that minted it; each process counts only its own live episodes', async () => {
    const seeded = await Promise.all(rows.slice(0, PATH_FORM).map((row) => request(`${base}/rl/healthcare/seed_session`, row)));
    const ids = seeded.map((s) => String(s.body.episode_id));
    expect(seeded.map((s) => s.status)).toEqual(seeded.map(() => 200));
    for (const id of ids) expect(REPLICAS).toContain(replicaOfEpisode(id));
    // Straight to each process, not through nginx: it holds exactly the episodes that name it.
    for (const [i, replica] of REPLICAS.entries()) {
      const rl = await request(`${(servers[i] as ServeProcess).httpUrl}/rl`);
      expect(rl.body).toMatchObject({ replica, live_episodes: ids.filter((id) => replicaOfEpisode(id) === replica).length });
    }
    // No cookie at all: only the path names the episode, and nginx reads the owner out of it.
    for (const id of ids) {
      const step = await request(`${base}/rl/healthcare/episodes/${id}/end_call`, { reason: 'caller_done' });
      expect(step.status, `${id}: ${JSON.stringify(step.body)}`).toBe(200);
      const verify = await request(`${base}/rl/healthcare/episodes/${id}/verify`, { response: { output: [] } });
      expect(verify.body).toMatchObject({ episode_id: id, end_reason: 'agent_end_call' });
    }
    for (const server of servers) expect((await request(`${server.httpUrl}/rl`)).body).toMatchObject({ live_episodes: 0 });
  });

  it('answers an episode of an unknown replica EPISODE_NOT_FOUND instead of guessing', async () => {
    const stray = await request(`${base}/end_call`, { reason: 'caller_done' }, { cookie: 'mivas_episode=ep_mivas-9_00aa11bb22cc33dd44ee55ff' });
    expect(stray.status).toBe(404);
    expect(stray.body).toMatchObject({ error: { code: 'EPISODE_NOT_FOUND' } });
  });

  it(`runs ${ROLLOUTS} NeMo Gym rollouts through the one URL: none lost or misrouted, rewards equal each process's scorer`, async () => {
    const picked = rows.slice(0, ROLLOUTS);
    const results = await Promise.all(
      picked.map((row, i) => {
        const task = pack.tasks.get(String(row.task_id)) as Task;
        const prefix = i % 2 ? `/ng-rollout/${String(row._ng_task_index)}-${i}` : '';
        return simpleAgentRollout(base, { ...row, _ng_rollout_index: 0 }, routeModel(pack, task), { prefix });
      }),
    );
    const owners = results.map((r) => replicaOfEpisode(String(r.verify.episode_id)));
    // Both processes took seeds (least_conn spreads them), and every id names one of them.
    for (const replica of REPLICAS) expect(owners).toContain(replica);
    for (const { verify, requests } of results) {
      // Every request after the seed reached the owner: a wrong process would have answered 404.
      for (const sent of requests) expect(sent.status, `${sent.path} ${String(verify.episode_id)}`).toBe(200);
      expect(verify).toMatchObject({ status: 'PASS', reward: 1, valid: true });
    }
    // Each snapshot is in the data dir of the process its id names, and nowhere else.
    await pollUntil(() => results.every((r) => snapshotIds(serverOf(replicaOfEpisode(String(r.verify.episode_id)))).includes(String(r.verify.episode_id))), 30_000);
    for (const [i, replica] of REPLICAS.entries()) {
      const held = snapshotIds(servers[i] as ServeProcess);
      expect(held.filter((id) => replicaOfEpisode(id) !== replica)).toEqual([]);
      const verdicts = await scoredBy(servers[i] as ServeProcess);
      for (const { verify } of results.filter((r) => replicaOfEpisode(String(r.verify.episode_id)) === replica)) {
        expect(verdicts.get(String(verify.episode_id)), String(verify.episode_id)).toEqual({ status: verify.status, reward: verify.reward });
      }
    }
    for (const server of servers) expect((await request(`${server.httpUrl}/rl`)).body).toMatchObject({ live_episodes: 0 });
  }, 180_000);
});
