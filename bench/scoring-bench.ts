/**
 * Scoring throughput: `scoreRun` (what `mivas score` runs after loading) over synthetic snapshots
 * built from each task's reference route replayed through the real executor, plus one broken
 * variant in five (its last call left out), with distinct call ids. In-process, bounded by count.
 */
import { join } from 'node:path';
import { listPackIds, loadPack, type Pack } from '../src/packs/index.ts';
import { planRoute, replayOffline, routeActions as actionsOf, type RouteAction } from '../src/conversation/index.ts';
import { scoreRun, syntheticSnapshot, syntheticSummary, type LoadedSnapshot } from '../src/scoring/index.ts';
import { CallDatabases, ensureTemplate } from '../src/store/index.ts';
import { ROOT, tempDir } from './bench-context.ts';

/** The section's figures. */
export interface ScoringResult {
  readonly pack: string;
  readonly tasks: number;
  readonly snapshots: number;
  readonly buildMs: number;
  readonly scoreMs: number;
  readonly conversationsPerS: number;
  readonly bootstrapResamples: number;
  readonly verdicts: Record<string, number>;
}

/** The healthcare pack when it loads and has tasks, else the first pack that does. */
async function packWithTasks(): Promise<Pack> {
  const ids = ['healthcare', ...listPackIds(join(ROOT, 'packs')).filter((id) => id !== 'healthcare')];
  for (const id of ids) {
    const pack = await loadPack(join(ROOT, 'packs'), id).catch(() => null);
    if (pack && pack.tasks.size > 0) return pack;
  }
  throw new Error('no pack with tasks loads');
}

function routeActions(pack: Pack, taskId: string): RouteAction[] {
  const task = pack.tasks.get(taskId);
  if (!task) return [];
  return actionsOf(planRoute(pack, task).steps);
}

/** Scores `count` synthetic snapshots and reports conversations per second. */
export async function benchScoring(options: { count: number; resamples: number }): Promise<ScoringResult> {
  const pack = await packWithTasks();
  const tmp = tempDir('mivas-bench-score-');
  const started = performance.now();
  const snapshots: LoadedSnapshot[] = [];
  try {
    const dbs = new CallDatabases(join(tmp.dir, 'calls'), ensureTemplate(join(tmp.dir, 'templates'), pack));
    const taskIds = [...pack.tasks.keys()].sort();
    const variants = taskIds.flatMap((taskId) => {
      const actions = routeActions(pack, taskId);
      return [actions, actions.slice(0, -1)].map((route, broken) => {
        const id = `base_${taskId}_${broken}`;
        const replayed = replayOffline(route, { pack, databases: dbs, callId: id, taskId });
        return { taskId, events: replayed.events, final: replayed.final, broken: broken === 1 };
      });
    });
    for (let i = 0; i < options.count; i++) {
      const good = variants.filter((v) => !v.broken);
      const pool = i % 5 === 4 ? variants.filter((v) => v.broken) : good;
      const v = pool[i % pool.length] ?? variants[0];
      if (!v) break;
      const callId = `syn_${String(i).padStart(5, '0')}`;
      const call = { callId, pack: pack.id, taskId: v.taskId, runId: 'run_bench', startedAt: new Date(Date.UTC(2026, 9, 5, 13, 0, i % 60)).toISOString() };
      snapshots.push(syntheticSnapshot(pack.id, callId, syntheticSummary(pack, call), v.events.map((e) => (e.type === 'call.started' ? { ...e, call_id: callId, run_id: 'run_bench' } : e)), v.final));
    }
  } finally {
    tmp.remove();
  }
  const buildMs = performance.now() - started;
  const t0 = performance.now();
  const report = scoreRun(snapshots, new Map([[pack.id, pack]]), new Map(), {
    k: 5,
    seed: 1729,
    resamples: options.resamples,
    minCallMs: 20_000,
    allowPackDrift: false,
    pack: null,
    stamp: null,
    flags: {},
  });
  const scoreMs = performance.now() - t0;
  const verdicts: Record<string, number> = {};
  for (const c of report.conversations) {
    const key = String((c as unknown as { status?: string }).status ?? 'scored');
    verdicts[key] = (verdicts[key] ?? 0) + 1;
  }
  return {
    pack: pack.id,
    tasks: pack.tasks.size,
    snapshots: snapshots.length,
    buildMs: Math.round(buildMs),
    scoreMs: Math.round(scoreMs),
    conversationsPerS: Math.round((snapshots.length / scoreMs) * 1000),
    bootstrapResamples: options.resamples,
    verdicts,
  };
}
