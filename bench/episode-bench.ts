import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { loadConfig } from '../src/config.ts';
import { scriptedPolicy, type EpisodeAction, type PlayableEpisode } from '../src/episodes/index.ts';
import type { Pack, Task } from '../src/packs/index.ts';
import { buildApp, createAppContext } from '../src/server/index.ts';
import { ROOT } from './bench-context.ts';
import { summarize, type LatencySummary } from './stats.ts';

/** One concurrency level of text episodes over the NeMo Gym routes. */
export interface EpisodeRow {
  readonly pack: string;
  /** Episodes run at once (each its own session, database and cookie). */
  readonly concurrent: number;
  readonly episodes: number;
  readonly passed: number;
  readonly wallS: number;
  readonly episodesPerS: number;
  /** One HTTP request per action (seed_session, each tool, verify), as the client measured it. */
  readonly step: LatencySummary;
  readonly seed: LatencySummary;
  readonly verify: LatencySummary;
}

/** Latencies of one run, by request kind (ms). */
export interface Timed {
  readonly seed: number[];
  readonly step: number[];
  readonly verify: number[];
}

async function post(url: string, body: unknown, cookie: string): Promise<{ status: number; body: Record<string, unknown>; cookie: string; ms: number }> {
  const started = performance.now();
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...(cookie ? { cookie } : {}) }, body: JSON.stringify(body) });
  const parsed = (await res.json()) as Record<string, unknown>;
  return { status: res.status, body: parsed, cookie: (res.headers.get('set-cookie') ?? '').split(';')[0] ?? cookie, ms: performance.now() - started };
}

/** One NeMo Gym session: seed, the scripted route as tool POSTs, verify. Returns whether it passed. */
async function runSession(base: string, pack: Pack, task: Task, row: Record<string, unknown>, timed: Timed): Promise<boolean> {
  const seeded = await post(`${base}/seed_session`, row, '');
  timed.seed.push(seeded.ms);
  const cookie = seeded.cookie;
  let done = false;
  const episode: PlayableEpisode = {
    pack,
    task,
    isDone: () => done,
    async step(action: EpisodeAction) {
      const r = await post(`${base}/${action.name}`, action.arguments, cookie);
      timed.step.push(r.ms);
      if (action.name === 'end_call') done = true;
      return { output: r.body, done };
    },
  };
  await scriptedPolicy().play(episode, null);
  const verified = await post(`${base}/verify`, { ...row, response: { output: [] } }, cookie);
  timed.verify.push(verified.ms);
  return verified.body.status === 'PASS';
}

/**
 * Text episodes per second and per-request latency at each concurrency, against the real server
 * in this process over loopback HTTP (client and server share one event loop, so the figures are
 * a floor on a dedicated server). Each episode replays a task's reference route (the scripted
 * policy) through seed_session, the tool routes and verify, and writes its snapshot.
 */
export async function benchEpisodes(options: { readonly concurrency: readonly number[]; readonly rounds: number; readonly pack?: string }): Promise<EpisodeRow[]> {
  const dataDir = mkdtempSync(join(tmpdir(), 'mivas-bench-episodes-'));
  const packId = options.pack ?? 'healthcare';
  const parsed = loadConfig({
    MIVAS_DATA_DIR: dataDir,
    MIVAS_PACK: packId,
    MIVAS_PACKS_DIR: join(ROOT, 'packs'),
    MIVAS_MIGRATIONS_DIR: join(ROOT, 'migrations'),
    MIVAS_RL: '1',
    MIVAS_RL_MAX_EPISODES: String(Math.max(...options.concurrency)),
    MIVAS_LOG_LEVEL: 'silent',
  });
  if (!parsed.ok) throw new Error(parsed.problems.join('\n'));
  const ctx = await createAppContext(parsed.config, { log: pino({ level: 'silent' }) });
  const app = await buildApp(ctx);
  const url = await app.listen({ port: 0, host: '127.0.0.1' });
  const base = `${url}/rl/${packId}`;
  try {
    const rows = (await (await fetch(`${base}/dataset.jsonl`)).text())
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    const out: EpisodeRow[] = [];
    for (const n of options.concurrency) {
      const timed: Timed = { seed: [], step: [], verify: [] };
      let passed = 0;
      const started = performance.now();
      for (let round = 0; round < options.rounds; round++) {
        const batch = Array.from({ length: n }, (_, i) => rows[(round * n + i) % rows.length] as Record<string, unknown>);
        const verdicts = await Promise.all(batch.map((row) => runSession(base, ctx.pack, ctx.pack.tasks.get(String(row.task_id)) as Task, row, timed)));
        passed += verdicts.filter(Boolean).length;
      }
      const wallS = (performance.now() - started) / 1000;
      const episodes = n * options.rounds;
      out.push({ pack: packId, concurrent: n, episodes, passed, wallS: Math.round(wallS * 100) / 100, episodesPerS: Math.round((episodes / wallS) * 10) / 10, step: summarize(timed.step), seed: summarize(timed.seed), verify: summarize(timed.verify) });
    }
    return out;
  } finally {
    await app.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
