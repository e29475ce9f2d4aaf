/**
 * Scoring throughput: the scorer over synthetic snapshots built from each task's reference route
 * replayed through the real executor, plus one broken variant in five (its last call left out),
 * with distinct call ids. Two figures: in-process (scoring each conversation, then the report, on
 * snapshots already in memory: CPU time, so a busy machine does not blur it) and `mivas score`
 * itself over the same snapshots written as files, at two corpus sizes (CPU per conversation and
 * peak RSS; the RSS difference between the sizes says whether memory is flat in conversations).
 * Bounded by count.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { listPackIds, loadPack, type Pack } from '../src/packs/index.ts';
import { planRoute, replayOffline, routeActions as actionsOf, type RouteAction } from '../src/conversation/index.ts';
import { reportOf, scoreConversation, scoringContext, syntheticSnapshot, syntheticSummary, type LoadedSnapshot, type ScoreOptions } from '../src/scoring/index.ts';
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
  /** In-process CPU time (user + system) per conversation: scoring it, and its share of the report. */
  readonly cpuPerConversationMs: number;
  readonly reportCpuMs: number;
  /** Conversations per CPU second (one core), report included. */
  readonly conversationsPerCoreS: number;
  readonly bootstrapResamples: number;
  readonly verdicts: Record<string, number>;
  /** `mivas score` as a child process on the snapshots written as files, at each corpus size. */
  readonly cli: readonly CliScoringRow[];
  /** The 1-minute load average when the section started and ended (this section may be run alone on a busy machine). */
  readonly loadavg: readonly [number, number];
}

/** One `mivas score` run over files. */
export interface CliScoringRow {
  readonly conversations: number;
  /**
   * Node flags the child was started with. None: as `mivas score` runs from a shell, where
   * bin/mivas.js starts itself again with the flag it needs; CPU and peak RSS are then the
   * launcher's and the scorer's added up (an upper bound of the pair's peak).
   */
  readonly nodeFlags: readonly string[];
  readonly cpuS: number;
  readonly cpuPerConversationMs: number;
  readonly conversationsPerCoreS: number;
  readonly peakRssMb: number;
}

/** The goals of issue 32 the bench prints beside its figures. */
/**
 * `flatKiBPerConversation`: RSS growth between the two sizes above which memory is flagged as not
 * flat. A verdict held on the heap is about 13 KB (33 KiB of RSS per conversation when every one was
 * held); a spilled one leaves a row of well under 1 KB; the collector's headroom moves the peak
 * by up to ±15 MB between runs, which over 4,000 conversations is ±4 KiB each.
 */
export const SCORING_GOALS = { conversationsPerCoreS: 2_000, peakRssMb: 300, flatKiBPerConversation: 4 } as const;

/**
 * The young-generation cap `mivas serve` starts with (src/server/node-flags.ts): Node 24 lets it
 * grow to 128 MB, which a scoring run's read garbage fills. Both sizes are also run with it, to
 * show how much of the peak is the collector's headroom rather than what scoring holds.
 */
const SMALL_YOUNG_GENERATION = ['--max-semi-space-size=16'];

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
export async function benchScoring(settings: { count: number; resamples: number; cliSizes: readonly number[] }): Promise<ScoringResult> {
  const loadAtStart = loadavg()[0] ?? 0;
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
    for (let i = 0; i < settings.count; i++) {
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
  const options: ScoreOptions = { k: 5, seed: 1729, resamples: settings.resamples, minCallMs: 20_000, allowPackDrift: false, pack: null, stamp: null, flags: {} };
  const packs = new Map([[pack.id, pack]]);
  const ctx = scoringContext(packs, options);
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  const scored = snapshots.map((s) => scoreConversation({ conversationId: s.callId, snapshot: s, entry: undefined, packHint: null }, ctx));
  const cpu1 = process.cpuUsage(cpu0);
  const report = reportOf(scored, packs, options);
  const cpu2 = process.cpuUsage(cpu0);
  const scoreMs = performance.now() - t0;
  const verdicts: Record<string, number> = {};
  for (const c of report.conversations) verdicts[c.status] = (verdicts[c.status] ?? 0) + 1;
  const cpuMs = (u: NodeJS.CpuUsage): number => (u.user + u.system) / 1000;
  return {
    pack: pack.id,
    tasks: pack.tasks.size,
    snapshots: snapshots.length,
    buildMs: Math.round(buildMs),
    scoreMs: Math.round(scoreMs),
    conversationsPerS: Math.round((snapshots.length / scoreMs) * 1000),
    cpuPerConversationMs: Math.round((cpuMs(cpu1) / snapshots.length) * 1000) / 1000,
    reportCpuMs: Math.round(cpuMs(cpu2) - cpuMs(cpu1)),
    conversationsPerCoreS: Math.round((snapshots.length / cpuMs(cpu2)) * 1000),
    bootstrapResamples: options.resamples,
    verdicts,
    cli: [[], SMALL_YOUNG_GENERATION].flatMap((flags) => settings.cliSizes.map((n) => cliScoring(snapshots.slice(0, n), options.resamples, flags))),
    loadavg: [Math.round(loadAtStart * 100) / 100, Math.round((loadavg()[0] ?? 0) * 100) / 100],
  };
}

/** Prints the child's own CPU time and peak RSS on exit (preloaded with --import, so `mivas score` runs unchanged). */
const USAGE_PROBE = `process.on('exit', () => { const r = process.resourceUsage(); process.stderr.write('BENCH_USAGE ' + JSON.stringify({ cpuUs: r.userCPUTime + r.systemCPUTime, maxRssKb: r.maxRSS }) + '\\n'); });`;

/** Writes the snapshots as files and runs `mivas score` on them in a child process. */
function cliScoring(snapshots: readonly LoadedSnapshot[], resamples: number, nodeFlags: readonly string[]): CliScoringRow {
  const tmp = tempDir('mivas-bench-cli-');
  try {
    for (const s of snapshots) {
      mkdirSync(join(tmp.dir, 'snap', s.pack), { recursive: true });
      const base = join(tmp.dir, 'snap', s.pack, s.callId);
      writeFileSync(`${base}.summary.json`, JSON.stringify(s.summary));
      writeFileSync(`${base}.timeline.json`, JSON.stringify({ events: s.events }));
      writeFileSync(`${base}.final.json`, JSON.stringify(s.final));
    }
    const run = spawnSync(process.execPath, [...nodeFlags, join(ROOT, 'bin', 'mivas.js'), 'score', '--snapshots', join(tmp.dir, 'snap'), '--out', join(tmp.dir, 'out'), '--bootstrap', String(resamples), '--packs-dir', join(ROOT, 'packs')], {
      cwd: tmp.dir,
      encoding: 'utf8',
      env: { ...process.env, NODE_OPTIONS: `--import=data:text/javascript,${encodeURIComponent(USAGE_PROBE)}` },
      maxBuffer: 64 * 1024 * 1024,
      timeout: 600_000,
    });
    const lines = [...(run.stderr ?? '').matchAll(/BENCH_USAGE (\{.*\})/g)].map((m) => JSON.parse(m[1] ?? '{}') as { cpuUs: number; maxRssKb: number });
    if (lines.length === 0) throw new Error(`mivas score gave no usage line (exit ${run.status}): ${(run.stderr ?? '').slice(-400)}`);
    const usage = { cpuUs: lines.reduce((a, u) => a + u.cpuUs, 0), maxRssKb: lines.reduce((a, u) => a + u.maxRssKb, 0) };
    const cpuS = usage.cpuUs / 1e6;
    return { conversations: snapshots.length, nodeFlags, cpuS: Math.round(cpuS * 100) / 100, cpuPerConversationMs: Math.round((cpuS / snapshots.length) * 1e6) / 1000, conversationsPerCoreS: Math.round(snapshots.length / cpuS), peakRssMb: Math.round(usage.maxRssKb / 1024) };
  } finally {
    tmp.remove();
  }
}
