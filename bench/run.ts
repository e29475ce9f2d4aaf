/**
 * `npm run bench`: measures and prints; never fails on a figure. Writes bench/results.json and
 * flags any p99 that regressed more than 20% against the committed results. Loopback only,
 * every section bounded in time.
 *
 *   npm run bench                         all four sections (about 6–8 minutes on 2 cores)
 *   npm run bench -- --quick              shorter windows and fewer N (about 2 minutes)
 *   npm run bench -- --only live,tools    some sections: live, tools, db, scoring, report, episodes, boot
 *   npm run bench -- --only live --calls 25,50,100 --seconds 8    chosen N and window for the live section
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { renderTable } from '../src/cli/index.ts';
import { canPin, ROOT } from './bench-context.ts';
import { benchBoot, BOOT_RSS_GOAL_MB, CONFIG_EXIT_GOAL_S, type BootResult } from './boot-bench.ts';
import { benchDatabases, type DbRow } from './db-bench.ts';
import { benchDesk, type DeskRow } from './desk-bench.ts';
import { benchEpisodes, type EpisodeRow } from './episode-bench.ts';
import { benchLive, isSaturated, type LiveResult } from './live-bench.ts';
import { benchReportPages, type ReportBenchResult } from './report-bench.ts';
import { benchScoring, SCORING_GOALS, type CliScoringRow, type ScoringResult } from './scoring-bench.ts';
import { benchTools, type ToolRow } from './tools-bench.ts';

const RESULTS = join(ROOT, 'bench', 'results.json');
const REGRESSION = 1.2;
const SECTIONS = ['live', 'tools', 'db', 'scoring', 'report', 'episodes', 'boot'] as const;
type Section = (typeof SECTIONS)[number];

type Figures = Record<string, unknown>;

interface P99Row {
  readonly key: string;
  readonly p99: number;
}

function p99Rows(results: Figures): P99Row[] {
  const rows: P99Row[] = [];
  const tools = (results.tools ?? []) as ToolRow[];
  for (const r of tools) rows.push({ key: `tools ${r.mode} ${r.tool} c${r.connections} ids${r.callIds}`, p99: r.latency.p99 });
  const dbs = (results.databases ?? []) as Partial<DbRow>[];
  for (const r of dbs) {
    if (r.templateCopy) rows.push({ key: `db ${r.pack} copy`, p99: r.templateCopy.p99 });
    if (r.dump) rows.push({ key: `db ${r.pack} dump`, p99: r.dump.p99 });
    if (r.snapshotAssembly) rows.push({ key: `db ${r.pack} snapshot assembly`, p99: r.snapshotAssembly.p99 });
  }
  for (const r of (results.episodes ?? []) as Partial<EpisodeRow>[]) if (r.step) rows.push({ key: `episodes ${r.pack} c${r.concurrent} step`, p99: r.step.p99 });
  for (const r of (results.episodeDesk ?? []) as Partial<DeskRow>[]) {
    if (r.step) rows.push({ key: `episode desk ${r.pack} c${r.concurrent} step`, p99: r.step.p99 });
    if (r.stepService) rows.push({ key: `episode desk ${r.pack} c${r.concurrent} step service`, p99: r.stepService.p99 });
    if (r.stepServiceCpu) rows.push({ key: `episode desk ${r.pack} c${r.concurrent} step service cpu`, p99: r.stepServiceCpu.p99 });
  }
  // Boot figures are compared by the same rule (lower is better).
  const boot = results.boot as Partial<BootResult> | undefined;
  if (boot?.settledRssMb) rows.push({ key: 'boot RSS settled MB', p99: boot.settledRssMb });
  if (boot?.configExitS) rows.push({ key: 'serve config-error exit s', p99: boot.configExitS });
  // mivas score's peak RSS too: more is worse.
  for (const c of (results.scoring as Partial<ScoringResult> | undefined)?.cli ?? []) rows.push({ key: `${cliKey(c)} peak RSS MB`, p99: c.peakRssMb });
  const live = results.live as Partial<LiveResult> | undefined;
  for (const r of live?.rows ?? []) rows.push({ key: `live N=${r.calls} jitter`, p99: r.jitter.p99 }, { key: `live N=${r.calls} relay`, p99: r.relay.p99 }, { key: `live N=${r.calls} event loop`, p99: r.eventLoopP99Ms });
  return rows;
}

/** The name of a `mivas score` row in the regression check: its size, and its node flags when it has any. */
function cliKey(c: Partial<CliScoringRow>): string {
  return `mivas score ${c.conversations}${c.nodeFlags?.length ? ` ${c.nodeFlags.join(' ')}` : ''}`;
}

/** bench/results.json as committed at HEAD, or null outside a git checkout. */
function committedResults(): Figures | null {
  try {
    return JSON.parse(execFileSync('git', ['show', 'HEAD:bench/results.json'], { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] })) as Figures;
  } catch {
    return null;
  }
}

/** Throughputs where less is worse: scoring per core, and the tool rows' requests per second. */
function throughputRows(results: Figures): P99Row[] {
  const rows: P99Row[] = [];
  const scoring = results.scoring as Partial<ScoringResult> | undefined;
  if (scoring?.conversationsPerCoreS) rows.push({ key: 'scoring conv/s per core', p99: scoring.conversationsPerCoreS });
  for (const c of scoring?.cli ?? []) rows.push({ key: `${cliKey(c)} conv/s per core`, p99: c.conversationsPerCoreS });
  for (const r of (results.tools ?? []) as ToolRow[]) rows.push({ key: `tools ${r.mode} ${r.tool} c${r.connections} ids${r.callIds} req/s`, p99: r.throughputPerS });
  return rows;
}

function regressions(previous: Figures | null, current: Figures): string[][] {
  if (!previous) return [];
  const before = new Map(p99Rows(previous).map((r) => [r.key, r.p99]));
  const slower = p99Rows(current).flatMap((r) => {
    const old = before.get(r.key);
    return old !== undefined && old > 0 && r.p99 > old * REGRESSION ? [['REGRESSION', r.key, String(old), String(r.p99), `+${Math.round((r.p99 / old - 1) * 100)}%`]] : [];
  });
  const rates = new Map(throughputRows(previous).map((r) => [r.key, r.p99]));
  const fewer = throughputRows(current).flatMap((r) => {
    const old = rates.get(r.key);
    return old !== undefined && old > 0 && r.p99 * REGRESSION < old ? [['REGRESSION', r.key, String(old), String(r.p99), `${Math.round((r.p99 / old - 1) * 100)}%`]] : [];
  });
  return [...slower, ...fewer];
}

function printLive(live: LiveResult): void {
  console.log(`\nLive calls (${live.pack}, ${live.durationS} s per N; jitter = |frame interval − 20 ms| at the callers, ms)`);
  console.log(
    renderTable(
      ['N', 'up', 'jitter p50', 'p99', 'max', '>5 ms %', 'srv >5 ms %', 'late p99', 'relay p50', 'relay p99', 'underruns', 'dropped', 'tools ok', 'CPU/call %', 'scavenges/call-s', 'full GCs/call-s', 'RSS MiB', 'loop p99', 'load loop p99', 'held'],
      live.rows.map((r) => [String(r.calls), String(r.callsUp), String(r.jitter.p50), String(r.jitter.p99), String(r.jitter.max), String(r.jitterOver5Pct ?? '-'), String(r.serverOver5Pct ?? '-'), String(r.lateness?.p99 ?? '-'), String(r.relay.p50), String(r.relay.p99), String(r.underruns), String(r.droppedFrames), `${r.toolCalls - r.toolErrors}/${r.toolCalls}`, String(r.cpuPerCallPct), String(r.scavengesPerCallS ?? '-'), String(r.fullCollectionsPerCallS ?? '-'), String(r.rssMib), String(r.eventLoopP99Ms), String(r.loadEventLoopP99Ms), r.held ? 'yes' : 'no']),
    ),
  );
  // A saturated row's CPU per call is low only because its calls are starved, so it does not count.
  const unsaturated = live.rows.filter((r) => !isSaturated(r) && r.cpuPerCallPct > 0);
  const basis = unsaturated.at(-1);
  console.log(`largest N held (p99 jitter ≤ 5 ms, no underruns, no dropped frames): ${live.largestHeld ?? 'none'}${live.skipped.length ? `; skipped ${live.skipped.join(', ')}` : ''}`);
  for (const f of live.failed ?? []) console.log(`N = ${f.calls} did not complete (${f.reason}): past saturation`);
  if (basis) console.log(`CPU-bound projection: ~${Math.floor(100 / basis.cpuPerCallPct)} calls per core (${basis.cpuPerCallPct}% per call at N = ${basis.calls}, the largest N short of saturation)`);
}

function printTools(rows: readonly ToolRow[]): void {
  console.log('\nTool calls (latency in ms)');
  console.log(
    renderTable(
      ['mode', 'pack', 'tool', 'effect', 'conns', 'call ids', 'p50', 'p99', 'max', 'req/s', 'errors', 'load'],
      rows.map((r) => [r.mode, r.pack, r.tool, r.effect, String(r.connections), String(r.callIds), String(r.latency.p50), String(r.latency.p99), String(r.latency.max), String(r.throughputPerS), String(r.errors), r.loadGenerator ?? '']),
    ),
  );
}

function printDatabases(rows: readonly DbRow[]): void {
  console.log('\nPer-call database and snapshot (ms)');
  console.log(
    renderTable(
      ['pack', 'copy p50', 'copy p99', 'migrate+seed p50', 'speed-up', 'dump p50', 'dump p99', 'assembly p50', 'assembly p99', 'spool p50', 'spool p99'],
      rows.map((r) => [r.pack, String(r.templateCopy.p50), String(r.templateCopy.p99), String(r.migrateAndSeed.p50), `${(r.migrateAndSeed.p50 / Math.max(0.001, r.templateCopy.p50)).toFixed(1)}×`, String(r.dump.p50), String(r.dump.p99), String(r.snapshotAssembly.p50), String(r.snapshotAssembly.p99), String(r.spoolWrite.p50), String(r.spoolWrite.p99)]),
    ),
  );
}

function printScoring(r: ScoringResult): void {
  console.log(`\nScoring (${r.pack}, ${r.tasks} tasks; load average ${r.loadavg?.join(' → ') ?? '?'}; CPU = user + system of this process; goal: at least ${SCORING_GOALS.conversationsPerCoreS} conversations/s per core, mivas score under ${SCORING_GOALS.peakRssMb} MB and flat)`);
  console.log(
    renderTable(
      ['pack', 'tasks', 'snapshots', 'bootstrap', 'wall s', 'conversations/s', 'CPU ms/conv', 'report CPU ms', 'conv/s per core', 'goal met', 'verdicts'],
      [[r.pack, String(r.tasks), String(r.snapshots), String(r.bootstrapResamples), (r.scoreMs / 1000).toFixed(2), String(r.conversationsPerS), String(r.cpuPerConversationMs), String(r.reportCpuMs), String(r.conversationsPerCoreS), r.conversationsPerCoreS >= SCORING_GOALS.conversationsPerCoreS ? 'yes' : 'no', JSON.stringify(r.verdicts)]],
    ),
  );
  const cli = r.cli ?? [];
  console.log(renderTable(['mivas score over files', 'node flags', 'CPU s', 'CPU ms/conv', 'conv/s per core', 'peak RSS MB', 'RSS goal met'], cli.map((c) => [String(c.conversations), c.nodeFlags?.join(' ') || '-', String(c.cpuS), String(c.cpuPerConversationMs), String(c.conversationsPerCoreS), String(c.peakRssMb), c.peakRssMb < SCORING_GOALS.peakRssMb ? 'yes' : 'no'])));
  // Growth is read between the sizes run with the same flags.
  for (const flags of [...new Set(cli.map((c) => c.nodeFlags?.join(' ') ?? ''))]) {
    const same = cli.filter((c) => (c.nodeFlags?.join(' ') ?? '') === flags);
    const [small, large] = [same[0], same.at(-1)];
    if (!small || !large || large === small) continue;
    const perConversation = ((large.peakRssMb - small.peakRssMb) * 1024) / (large.conversations - small.conversations);
    const flag = perConversation > SCORING_GOALS.flatKiBPerConversation ? `  GROWTH: more than ${SCORING_GOALS.flatKiBPerConversation} KiB per conversation, so memory is not flat` : '  (flat)';
    console.log(`RSS growth${flags ? ` with ${flags}` : ''}: ${perConversation.toFixed(1)} KiB per conversation from ${small.conversations} to ${large.conversations}${flag}`);
  }
}

function printReport(r: ReportBenchResult): void {
  console.log(`\nResults pages: ${r.tasks} tasks × ${r.trials} trials (${r.conversations} conversations); model build ${r.modelBuildMs} ms; largest page ${Math.round(r.largestPageBytes / 1024)} KiB (target: under 1 s per page)`);
  const row = (name: string, l: ReportBenchResult['leaderboard']): string[] => [name, String(l.n), String(l.p50), String(l.p99), String(l.max)];
  console.log(
    renderTable(
      ['page', 'renders', 'p50 ms', 'p99 ms', 'max ms'],
      [row('leaderboard', r.leaderboard), row('task grid', r.taskGrid), row('task page', r.taskPage), row('conversation page', r.conversationPage)],
    ),
  );
}

function printEpisodes(rows: readonly EpisodeRow[]): void {
  console.log('\nText episodes over the NeMo Gym routes (scripted replay; client and server in one process; ms)');
  console.log(
    renderTable(
      ['pack', 'concurrent', 'episodes', 'passed', 'wall s', 'episodes/s', 'step p50', 'step p99', 'step max', 'seed p99', 'verify p99'],
      rows.map((r) => [r.pack, String(r.concurrent), String(r.episodes), String(r.passed), String(r.wallS), String(r.episodesPerS), String(r.step.p50), String(r.step.p99), String(r.step.max), String(r.seed.p99), String(r.verify.p99)]),
    ),
  );
}

function printDesk(rows: readonly DeskRow[]): void {
  console.log('\nText episodes on the episode desk in-process (no HTTP; scripted replay; ms; steps/s per core = steps / CPU seconds of this process;');
  console.log('step = call to resolution; service = call to return, the step\'s own work (wall, and cpu: this process\'s CPU time in it; ending: the steps that ended their episode, other: the rest); queue = return to resolution, waiting behind the other episodes\' steps)');
  console.log(
    renderTable(
      ['pack', 'concurrent', 'episodes', 'passed', 'steps', 'wall s', 'steps/s per core', 'episodes/s', 'step p50', 'step p99', 'service p50', 'service p99', 'service max', 'service cpu p50', 'service cpu p99', 'ending cpu p50', 'ending cpu p99', 'other cpu p99', 'queue p50', 'queue p99', 'seed p99', 'finish p99'],
      rows.map((r) => [
        r.pack,
        String(r.concurrent),
        String(r.episodes),
        String(r.passed),
        String(r.steps),
        String(r.wallS),
        String(r.stepsPerCoreS),
        String(r.episodesPerS),
        String(r.step.p50),
        String(r.step.p99),
        String(r.stepService.p50),
        String(r.stepService.p99),
        String(r.stepService.max),
        String(r.stepServiceCpu.p50),
        String(r.stepServiceCpu.p99),
        String(r.endingStepServiceCpu.p50),
        String(r.endingStepServiceCpu.p99),
        String(r.otherStepServiceCpu.p99),
        String(r.stepQueue.p50),
        String(r.stepQueue.p99),
        String(r.seed.p99),
        String(r.verify.p99),
      ]),
    ),
  );
}

function printBoot(r: BootResult): void {
  const verdict = (ok: boolean): string => (ok ? 'meets the goal' : 'OVER the goal');
  console.log(`\nBoot (mivas serve --harness scripted with the image's Node flags; load average ${r.loadavg.join(', ')})`);
  console.log(
    renderTable(
      ['figure', 'value', 'goal', ''],
      [
        ['RSS when /health first answered', `${r.listeningRssMb} MB`, '', ''],
        [`RSS settled (after ${r.settledAfterS} s)`, `${r.settledRssMb} MB`, `< ${BOOT_RSS_GOAL_MB} MB`, verdict(r.settledRssMb < BOOT_RSS_GOAL_MB)],
        ['peak RSS while booting', `${r.peakRssMb ?? '-'} MB`, '', ''],
        [`serve --harness openai/realtime without a key: exit ${r.configExitCode}, wall`, `${r.configExitS} s`, `< ${CONFIG_EXIT_GOAL_S} s`, verdict(r.configExitS < CONFIG_EXIT_GOAL_S)],
        ['the same: CPU time (user + system)', `${r.configExitCpuS} s`, '', ''],
      ],
    ),
  );
  console.log('What each top-level module adds to a fresh process, in the order the server loads them:');
  console.log(renderTable(['module', 'RSS MB', 'CPU ms'], r.modules.map((m) => [m.module, String(m.rssMb), String(m.cpuMs)])));
}

function parseSections(only: string | undefined): Set<Section> {
  const wanted = (only ?? SECTIONS.join(',')).split(',').map((s) => s.trim());
  const unknown = wanted.filter((s) => !(SECTIONS as readonly string[]).includes(s));
  if (unknown.length) {
    console.error(`unknown section(s): ${unknown.join(', ')}; known: ${SECTIONS.join(', ')}`);
    process.exit(3);
  }
  return new Set(wanted as Section[]);
}

/** `--calls 25,50,100`: the live section's N, each a positive integer; undefined when not given. */
function liveCalls(text: string | undefined): number[] | undefined {
  if (text === undefined) return undefined;
  const calls = text.split(',').map((s) => Number(s.trim()));
  if (!calls.length || calls.some((n) => !Number.isInteger(n) || n < 1 || n > 1_000)) {
    console.error(`--calls takes comma-separated call counts from 1 to 1000 (got ${text})`);
    process.exit(3);
  }
  return calls;
}

/** `--seconds 8`: the live section's window per N, 1 to 120 s. */
function liveSeconds(text: string): number {
  const seconds = Number(text);
  if (!Number.isFinite(seconds) || seconds < 1 || seconds > 120) {
    console.error(`--seconds takes a window from 1 to 120 (got ${text})`);
    process.exit(3);
  }
  return seconds;
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { only: { type: 'string' }, quick: { type: 'boolean', default: false }, calls: { type: 'string' }, seconds: { type: 'string' } } });
  const only = parseSections(values.only);
  const quick = values.quick ?? false;
  const previous = existsSync(RESULTS) ? (JSON.parse(readFileSync(RESULTS, 'utf8')) as Figures) : null;
  const baseline = committedResults() ?? previous;
  const started = performance.now();
  const results: Figures = {
    machine: { cpus: cpus().length, cpu: cpus()[0]?.model ?? 'unknown', memory_gib: Math.round(totalmem() / 2 ** 30), node: process.version, pinned: canPin(), loadavg_at_start: loadavg().map((v) => Math.round(v * 100) / 100) },
    command: `npm run bench${process.argv.length > 2 ? ` -- ${process.argv.slice(2).join(' ')}` : ''}`,
    quick,
    at: new Date().toISOString(),
  };
  if (only.has('live')) {
    const live = await benchLive({ calls: liveCalls(values.calls) ?? (quick ? [10, 50] : [10, 25, 50, 100, 200, 400]), durationMs: values.seconds ? liveSeconds(values.seconds) * 1000 : quick ? 6_000 : 20_000 });
    results.live = live;
    printLive(live);
  }
  if (only.has('tools')) {
    results.tools = await benchTools({ durationMs: quick ? 1_500 : 5_000, iterations: quick ? 1_000 : 5_000 });
    printTools(results.tools as ToolRow[]);
  }
  if (only.has('db')) {
    results.databases = await benchDatabases(quick ? 50 : 500);
    printDatabases(results.databases as DbRow[]);
  }
  if (only.has('scoring')) {
    results.scoring = await benchScoring({ count: quick ? 1_000 : 5_000, resamples: quick ? 1_000 : 10_000, cliSizes: quick ? [300, 1_000] : [1_000, 5_000] });
    printScoring(results.scoring as ScoringResult);
  }
  if (only.has('report')) {
    results.report = await benchReportPages({ iterations: quick ? 1 : 3 });
    printReport(results.report as ReportBenchResult);
  }
  if (only.has('episodes')) {
    results.episodes = await benchEpisodes({ concurrency: quick ? [1, 50] : [1, 50, 200], rounds: quick ? 1 : 3 });
    printEpisodes(results.episodes as EpisodeRow[]);
    results.episodeDesk = await benchDesk({ concurrency: [1, 64], rounds: quick ? 2 : 8 });
    printDesk(results.episodeDesk as DeskRow[]);
  }
  if (only.has('boot')) {
    results.boot = await benchBoot();
    printBoot(results.boot as BootResult);
  }
  (results.machine as Figures).loadavg_at_end = loadavg().map((v) => Math.round(v * 100) / 100);
  results.elapsed_s = Math.round((performance.now() - started) / 1000);
  const against = baseline === previous ? 'bench/results.json as it was before this run' : 'the committed bench/results.json';
  // Quick windows are shorter and noisier: compare like with like only.
  const comparable = baseline !== null && Boolean(baseline.quick) === quick;
  const flagged = comparable ? regressions(baseline, results) : [];
  if (!comparable && baseline) console.log(`\np99 regressions not compared: ${against} comes from a ${baseline.quick ? 'quick' : 'full'} run and this was a ${quick ? 'quick' : 'full'} one`);
  else if (flagged.length) {
    console.log(`\np99 and throughput regressions beyond 20% against ${against} (a report, not a failure)`);
    console.log(renderTable(['flag', 'row', 'before', 'now', 'change'], flagged));
  } else console.log(`\nno p99 or throughput regression beyond 20% against ${against}`);
  writeFileSync(RESULTS, `${JSON.stringify({ ...previous, ...results }, null, 2)}\n`);
  console.log(`wrote ${RESULTS} in ${results.elapsed_s} s (load average ${JSON.stringify((results.machine as Figures).loadavg_at_start)} → ${JSON.stringify((results.machine as Figures).loadavg_at_end)})`);
}

await main();
