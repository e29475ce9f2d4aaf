import { join } from 'node:path';
import { expect } from 'vitest';
import { createSpeechSynth, type SpeechSynth } from '../../src/audio/index.ts';
import { dialOpeningLine, openingLineOf } from '../../src/caller/index.ts';
import type { Task } from '../../src/packs/index.ts';
import { csvCells, directorySource, loadSnapshots, scoreRun, type ScoreReport } from '../../src/scoring/index.ts';
import { routeTasks } from './route-player.ts';
import { startTestServer, type TestServer } from './server.ts';

/** What the reference-route tests of the new harnesses share: dialing a task's caller, scoring the calls, checking the seeds. */

/** A later specialist's seed, and every tool output the model had been given before it. */
export interface Seed {
  readonly text: string;
  readonly outputsBefore: readonly string[];
}

/** The score report of every snapshot the server wrote for `pack`. */
export async function scoreSnapshots(server: TestServer, pack: string): Promise<ScoreReport> {
  await server.ctx.outbox.flush();
  const snapshots = await loadSnapshots(directorySource(join(server.dataDir, 'snapshots')), pack);
  return scoreRun(snapshots, new Map([[pack, server.ctx.pack]]), new Map(), { k: 1, seed: 1, resamples: 10, minCallMs: 0, allowPackDrift: false, pack, stamp: null, flags: {} });
}

/** The verdict of each call, scored from the snapshots the server wrote for `pack`, and its conversations.csv cost cell. */
export async function scoreCalls(server: TestServer, pack: string, callIds: readonly string[]): Promise<Record<string, { status: string; reward: number | null; cost: unknown }>> {
  const scored = await scoreSnapshots(server, pack);
  return Object.fromEntries(
    callIds.map((id) => {
      const v = scored.conversations.find((c) => c.conversation_id === id);
      return [id, { status: v?.status ?? 'missing', reward: v?.reward ?? null, cost: v ? csvCells(v).cost_usd_est : null }];
    }),
  );
}

/** The task's caller: its opening line, unpaced, for at most 30 s. */
export function dialTask(server: TestServer, synth: SpeechSynth, task: Task, callId: string, runId: string): ReturnType<typeof dialOpeningLine> {
  return dialOpeningLine({ url: server.wsUrl, callId, taskId: task.task_id, runId, auth: null, openingLine: openingLineOf(task.intent), synth, paced: false, timeoutMs: 30_000 });
}

/** Every call's conversations.csv cost cell: a price from prices.json, so a positive number. */
export function expectCosted(rows: Record<string, { cost: unknown }>): void {
  for (const [id, row] of Object.entries(rows)) expect(row.cost, id).toBeGreaterThan(0);
}

/** Every seed holds every tool result returned before it, and at least one seed came after a result. */
export function expectSeedsHoldEarlierResults(seeds: readonly Seed[]): void {
  expect(seeds.length).toBeGreaterThan(0);
  for (const seed of seeds) for (const output of seed.outputsBefore) expect(seed.text).toContain(output);
  expect(seeds.some((s) => s.outputsBefore.length > 0)).toBe(true);
}

/** A fast test server on `pack` with tone speech and the harness's env, and the pack's three route tasks. */
export async function startRouteServer(pack: string, env: Record<string, string>): Promise<{ server: TestServer; synth: SpeechSynth; tasks: Task[] }> {
  const synth = await createSpeechSynth(16_000, { preferTones: true });
  const server = await startTestServer({ MIVAS_PACK: pack, MIVAS_FAST: '1', ...env }, { synth });
  const tasks = routeTasks(server.ctx.pack);
  expect(tasks).toHaveLength(3);
  return { server, synth, tasks };
}
