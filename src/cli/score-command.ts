import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { loadConfig } from '../config.ts';
import { CALL_ID_PATTERN, ConfigError, EXIT, exitCodeOf, ID_CHARS, MivasError } from '../core/index.ts';
import { loadPack, type Pack } from '../packs/index.ts';
import { buildReportModel, callerRecordKey, parseCallerRecord, renderComparisonText, renderScoreTable } from '../report/index.ts';
import { describeRuns, directorySource, forEachSnapshot, parseMapping, reportOf, scoreStreamed, scoringContext, snapshotRunId, s3Source, streamedVerdicts, withJudgeScores, VerdictSpill, type CallerFacts, type LoadedSnapshot, type MappingEntry, type RunMeta, type ScoreReportOf, type SkipReporter, type SnapshotSource, type SourceOptions, type SpilledVerdict, type StreamedVerdict, type VerdictRow, DEFAULT_SOURCE_LIMITS } from '../scoring/index.ts';
import { createS3Client, parseS3Uri, summarySchema } from '../snapshot/index.ts';
import { failWith, usageProblem, type CliIO, type Command } from './io.ts';
import { annotateWithJudge, type JudgeSetup } from './judge-annotate.ts';
import { spooledSets } from './resume.ts';
import { spilledVerdicts, wholeReport, writeScoreOutputs } from './score-outputs.ts';

export const USAGE = `usage: mivas score --snapshots <dir|s3://bucket/prefix> [--out DIR] [--pack P] [--run RUN_ID]... [--all-runs]
                   [--label TEXT | --label RUN_ID=TEXT]... [--mapping FILE]
                   [--gate] [--k 5] [--seed 1729] [--bootstrap 10000] [--min-call-s 20] [--fast]
                   [--allow-pack-drift] [--stamp] [--packs-dir packs] [--max-json-mb 32] [--max-file-mb 256] [--judge]

Writes scores.json, run.json (each run's label and metadata), conversations.csv and report.html
to --out (default ./data/scores). Several --run, or --all-runs (every run id in the snapshots),
score each run on its own into <out>/<run_id>/ (figures are never pooled across runs) and print
their comparison; mivas report --scores <out> renders them as one site. Only regular files inside
the folder are read (links out of it, FIFOs, devices and files over the caps are skipped and named
on stderr, and so is a set whose summary names another call or pack).
--judge then asks the judge (MIVAS_JUDGE_BASE_URL, MIVAS_JUDGE_MODEL, MIVAS_JUDGE_API_KEY) for 1-5
scores on a fixed rubric per scored conversation, cached under <MIVAS_DATA_DIR>/judge-cache: an
annotation in the diag_judge_* columns, never in pass or reward.
Exit: 0 all scored (and no FAIL under --gate), 1 --gate and a FAIL, 2 something not scored (or the judge failed), 3 usage or input error.`;

const MIB = 1024 * 1024;

const flagsSchema = z
  .object({
    snapshots: z.string().min(1),
    out: z.string().min(1).default('./data/scores'),
    pack: z.string().regex(/^[a-z][a-z0-9-]*$/).optional(),
    run: z.array(z.string().regex(CALL_ID_PATTERN)).default([]),
    'all-runs': z.boolean().default(false),
    label: z.array(z.string().min(1)).default([]),
    mapping: z.string().min(1).optional(),
    gate: z.boolean().default(false),
    k: z.coerce.number().int().min(1).max(10).default(5),
    seed: z.coerce.number().int().min(0).max(0xffffffff).default(1729),
    bootstrap: z.coerce.number().int().min(0).max(1_000_000).default(10_000),
    'min-call-s': z.coerce.number().min(0).default(20),
    fast: z.boolean().default(false),
    'allow-pack-drift': z.boolean().default(false),
    stamp: z.boolean().default(false),
    'packs-dir': z.string().min(1).default('packs'),
    judge: z.boolean().default(false),
    'max-json-mb': z.coerce.number().positive().max(1024).default(DEFAULT_SOURCE_LIMITS.maxJsonBytes / MIB),
    'max-file-mb': z.coerce.number().positive().max(1024).default(DEFAULT_SOURCE_LIMITS.maxFileBytes / MIB),
  })
  .strict();

type ScoreFlags = z.infer<typeof flagsSchema>;

function parseFlags(argv: readonly string[]): ScoreFlags | string {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      snapshots: { type: 'string' }, out: { type: 'string' }, pack: { type: 'string' }, run: { type: 'string', multiple: true }, 'all-runs': { type: 'boolean' }, label: { type: 'string', multiple: true }, mapping: { type: 'string' }, gate: { type: 'boolean' },
      k: { type: 'string' }, seed: { type: 'string' }, bootstrap: { type: 'string' }, 'min-call-s': { type: 'string' }, fast: { type: 'boolean' },
      'allow-pack-drift': { type: 'boolean' }, stamp: { type: 'boolean' }, 'packs-dir': { type: 'string' }, 'max-json-mb': { type: 'string' }, 'max-file-mb': { type: 'string' }, judge: { type: 'boolean' }, help: { type: 'boolean' },
    },
    allowPositionals: false,
  });
  if (values.help) return '';
  const { help: _help, ...rest } = values;
  const parsed = flagsSchema.safeParse(rest);
  // A flag that is missing is named plainly; a malformed one says what was wrong with it (the first problem, on one line).
  const first = parsed.success ? null : parsed.error.issues[0];
  if (!first) return parsed.data as ScoreFlags;
  const flag = String(first.path[0]);
  const given = rest[flag as keyof typeof rest];
  return given === undefined ? `--${flag} is required` : `--${flag} ${JSON.stringify(given)}: ${first.message}`;
}

/** Names a key the source or the loader left out, and why, on stderr. */
export function skipNotice(io: CliIO, command: string): SkipReporter {
  return (key, reason) => io.stderr.write(`${command}: skipped ${key}: ${reason}\n`);
}

/** The snapshot store a `--snapshots` value names: a directory, or `s3://bucket/prefix`. */
export function openSource(flags: Pick<ScoreFlags, 'snapshots'>, io: CliIO, options: SourceOptions = {}): SnapshotSource {
  const s3 = parseS3Uri(flags.snapshots);
  if (!s3) return directorySource(resolve(io.cwd, flags.snapshots), options);
  const config = loadConfig(io.env);
  if (!config.ok) throw new ConfigError('CONFIG_INVALID', `configuration: ${config.problems.join('; ')}`);
  return readableStore(s3Source(createS3Client(config.config.s3), s3.bucket, s3.prefix, options));
}

/** An S3 source whose failures (no credentials, no bucket, no network) are the catalog's SNAPSHOT_STORE_UNREADABLE, never a stack. */
function readableStore(source: SnapshotSource): SnapshotSource {
  const refused = (err: unknown): never => {
    if (err instanceof MivasError) throw err;
    const what = err instanceof Error ? `${err.name}: ${err.message.split('\n')[0] ?? ''}` : String(err);
    throw new ConfigError('SNAPSHOT_STORE_UNREADABLE', `cannot read ${source.root}: ${what} (credentials come from the AWS SDK's chain: AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY, AWS_PROFILE or an instance role; MIVAS_S3_ENDPOINT for S3-compatible stores)`, { cause: err });
  };
  return { ...source, list: () => source.list().catch(refused), read: (key) => source.read(key).catch(refused) };
}

const PART_FILE = new RegExp(`^${ID_CHARS}\\.(summary\\.json|timeline\\.json|final\\.json|db|wav|caller\\.json)$`);

/**
 * `--snapshots` as given: the snapshot root (`<root>/<pack>/<call>.<part>`), or one pack's folder
 * under it, as `mivas run` prints (then the pack is that folder's name). A problem is a string.
 */
export function openSnapshots(flags: Pick<ScoreFlags, 'snapshots' | 'pack'>, io: CliIO, options: SourceOptions = {}): { source: SnapshotSource; pack?: string } | string {
  const dir = resolve(io.cwd, flags.snapshots);
  if (parseS3Uri(flags.snapshots) || !existsSync(dir) || !statSync(dir).isDirectory() || !readdirSync(dir).some((name) => PART_FILE.test(name))) return { source: openSource(flags, io, options) };
  const pack = basename(dir);
  if (flags.pack && flags.pack !== pack) return `--snapshots ${flags.snapshots} is the folder of pack ${pack}, but --pack says ${flags.pack}`;
  return { source: directorySource(dirname(dir), options), pack };
}

function readText(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    throw new ConfigError('MAPPING_UNREADABLE', `cannot read ${file}`);
  }
}

/** The packs named, in id order; those already in `loaded` are taken from it. */
export async function loadPacks(ids: ReadonlySet<string>, packsDir: string, loaded: ReadonlyMap<string, Pack> = new Map()): Promise<Map<string, Pack>> {
  const packs = new Map<string, Pack>();
  for (const id of [...ids].sort()) packs.set(id, loaded.get(id) ?? (await loadPack(packsDir, id)));
  return packs;
}

/** The exit code of scoring.md §9: 1 (a FAIL under --gate) beats 2 (anything not scored). */
export function scoreExitCode(report: ScoreReportOf<VerdictRow>, gate: boolean): number {
  const s = report.aggregates.status;
  if (gate && s.fail > 0) return EXIT.checkFailed;
  if (s.void + s.unmapped + s.pending > 0) return EXIT.incomplete;
  return EXIT.ok;
}

function recordedFlags(flags: ScoreFlags, minCallS: number): Record<string, string | number | boolean | null> {
  return { pack: flags.pack ?? null, run: flags.run.length === 1 ? (flags.run[0] ?? null) : null, mapping: flags.mapping ? 'given' : null, gate: flags.gate, k: flags.k, seed: flags.seed, bootstrap: flags.bootstrap, min_call_s: minCallS, fast: flags.fast, allow_pack_drift: flags['allow-pack-drift'], ...(flags.judge ? { judge: true } : {}) };
}

/** Labels from `--label TEXT` (the one run) or `--label RUN_ID=TEXT`. */
export function parseLabels(values: readonly string[], runIds: readonly string[]): Map<string, string> | string {
  const out = new Map<string, string>();
  for (const value of values) {
    const m = new RegExp(`^(${ID_CHARS})=(.+)$`).exec(value);
    if (m?.[1] && m[2] && (runIds.includes(m[1]) || runIds.length !== 1)) out.set(m[1], m[2].trim());
    else if (runIds.length === 1) out.set(runIds[0] as string, value.trim());
    else return `--label ${value}: name the run (--label RUN_ID=TEXT) when scoring several runs`;
  }
  return out;
}

/** The caller's kind, seed and model of one conversation, from its `caller.json` record when the store holds one. */
async function callerFactsOf(source: SnapshotSource, s: LoadedSnapshot, hasCallerPart: boolean): Promise<CallerFacts | null> {
  if (!hasCallerPart) return null;
  // A record the strict schema read already says it; a looser one is read as the results pages read it.
  if (s.caller) return { kind: s.caller.kind, seed: s.caller.seed, model: s.caller.model };
  const record = parseCallerRecord(await source.read(callerRecordKey(s.pack, s.callId)));
  return record ? { kind: record.kind, seed: record.seed, model: record.model } : null;
}

/** What scoring keeps while it reads the store: each selected conversation's rows (the verdicts are in the spill), and the few facts the checks and warnings need. */
interface ReadStore {
  readonly streamed: StreamedVerdict[];
  /** Every set read (`<pack>/<call_id>`), selected or not. */
  readonly seen: Set<string>;
  /** Run ids of every set read, and of the selected ones. */
  readonly runsRead: Set<string>;
  readonly runsScored: Set<string>;
  readonly callers: Map<string, CallerFacts>;
  readonly packs: Map<string, Pack>;
}

/**
 * Reads the store once, scoring each selected conversation as its set arrives, spilling its verdict
 * and letting the set go (only rows are held). `--all-runs` with a mapping also keeps each mapped
 * verdict scored without it, since several runs are scored without the mapping.
 */
async function readAndScore(source: SnapshotSource, flags: ScoreFlags, mapping: ReadonlyMap<string, MappingEntry>, packsDir: string, onSkip: SkipReporter, spill: VerdictSpill): Promise<ReadStore> {
  const store: ReadStore = { streamed: [], seen: new Set(), runsRead: new Set(), runsScored: new Set(), callers: new Map(), packs: new Map() };
  const ctx = scoringContext(store.packs, { minCallMs: minCallSOf(flags) * 1000, allowPackDrift: flags['allow-pack-drift'] });
  await forEachSnapshot(source, flags.pack, onSkip, async (s, hasCallerPart) => {
    const run = snapshotRunId(s);
    store.seen.add(`${s.pack}/${s.callId}`);
    store.runsRead.add(run);
    if (!flags['all-runs'] && flags.run.length && !flags.run.includes(run)) return;
    store.runsScored.add(run);
    if (!store.packs.has(s.pack)) store.packs.set(s.pack, await loadPack(packsDir, s.pack));
    const facts = await callerFactsOf(source, s, hasCallerPart);
    if (facts) store.callers.set(s.callId, facts);
    store.streamed.push(scoreStreamed(s, run, ctx, mapping, flags.pack ?? null, flags['all-runs'] || flags.run.length > 1, spill));
  });
  return store;
}

function minCallSOf(flags: ScoreFlags): number {
  return flags.fast ? 0 : flags['min-call-s'];
}

interface ScoredRun {
  readonly report: ScoreReportOf<SpilledVerdict>;
  readonly runs: RunMeta[];
}

/**
 * Warns (stderr) when the local spool (`<MIVAS_DATA_DIR>/spool`) holds complete snapshots the store
 * being scored does not: a run killed before its outbox uploaded them. `mivas run --resume RUN`
 * (or `mivas serve`) uploads them.
 */
function warnSpooled(io: CliIO, seen: ReadonlySet<string>, pack: string | undefined): void {
  const config = loadConfig(io.env);
  if (!config.ok) return;
  const spool = join(resolve(io.cwd, config.config.dataDir), 'spool');
  const unseen = spooledSets(resolve(io.cwd, config.config.dataDir), pack).filter((s) => !seen.has(`${s.pack}/${s.callId}`));
  if (!unseen.length) return;
  const packs = [...new Set(unseen.map((s) => s.pack))].join(', ');
  const runs = [...new Set(unseen.map((s) => spooledRunId(join(spool, s.pack, `${s.callId}.summary.json`)) ?? 'RUN'))].sort();
  io.stderr.write(`warning: ${unseen.length} snapshot(s) of ${packs} are still in the local spool ${spool} and not in what is scored here (a run stopped before uploading them); ${runs.map((r) => `mivas run --resume ${r}`).join(', ')} uploads them and plays what the run lacks, then score again\n`);
}

/** The run id a spooled summary names, if it can be read. */
function spooledRunId(file: string): string | null {
  try {
    const parsed = summarySchema.shape.run_id.safeParse((JSON.parse(readFileSync(file, 'utf8')) as { run_id?: unknown }).run_id);
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

/** The judge of `--judge` from the configuration, or the problem that leaves it unset. */
function judgeSetupOf(io: CliIO): JudgeSetup | string {
  const config = loadConfig(io.env);
  if (!config.ok) return `configuration: ${config.problems.join('; ')}`;
  const { judge, dataDir } = config.config;
  if (!judge.baseUrl || !judge.model) return 'mivas score --judge: set MIVAS_JUDGE_BASE_URL and MIVAS_JUDGE_MODEL (and MIVAS_JUDGE_API_KEY when the endpoint wants one)';
  return { settings: { ...judge, baseUrl: judge.baseUrl, model: judge.model }, cacheDir: resolve(io.cwd, dataDir, 'judge-cache') };
}

/** `mivas score`: snapshots + pack tasks → verdicts, aggregates, JSON, CSV, HTML and a terminal table. */
export const scoreCommand: Command = async (argv, io) => {
  const flags = parseFlags(argv);
  if (typeof flags === 'string') {
    if (flags) return usageProblem(io, 'score', flags);
    io.stdout.write(`${USAGE}\n`);
    return EXIT.ok;
  }
  let skipped = 0;
  const notice = skipNotice(io, 'mivas score');
  const onSkip: SkipReporter = (key, reason) => {
    skipped++;
    notice(key, reason);
  };
  const limits = { maxJsonBytes: Math.round(flags['max-json-mb'] * MIB), maxFileBytes: Math.round(flags['max-file-mb'] * MIB) };
  const opened = openSnapshots(flags, io, { limits, onSkip });
  if (typeof opened === 'string') return usageProblem(io, 'score', opened);
  const judgeSetup = flags.judge ? judgeSetupOf(io) : null;
  if (typeof judgeSetup === 'string') return failWith(io, 'JUDGE_NOT_CONFIGURED', judgeSetup);
  const { source } = opened;
  if (opened.pack) flags.pack = opened.pack;
  const mapping: Map<string, MappingEntry> = flags.mapping ? parseMapping(readText(resolve(io.cwd, flags.mapping)), flags.mapping) : new Map();
  const packsDir = resolve(io.cwd, flags['packs-dir']);
  // Verdicts wait in a temporary file while the run is scored; only a small row of each is held.
  const spill = VerdictSpill.create();
  try {
    return await scoreAndWrite({ flags, io, source, mapping, packsDir, onSkip, skipped: () => skipped, judgeSetup }, spill);
  } finally {
    spill.close();
  }
};

/** What `scoreAndWrite` works from: the flags, the opened store and mapping, and the judge when asked. */
interface ScoreInputs {
  readonly flags: ScoreFlags;
  readonly io: CliIO;
  readonly source: SnapshotSource;
  readonly mapping: ReadonlyMap<string, MappingEntry>;
  readonly packsDir: string;
  readonly onSkip: SkipReporter;
  /** How many files or sets the source and loader have skipped so far. */
  readonly skipped: () => number;
  readonly judgeSetup: JudgeSetup | null;
}

/** Scores the store (verdicts into `spill`), writes every output and prints the table; returns the exit code. */
async function scoreAndWrite(inputs: ScoreInputs, spill: VerdictSpill): Promise<number> {
  const { flags, io, source, mapping, packsDir, onSkip, judgeSetup } = inputs;
  const store = await readAndScore(source, flags, mapping, packsDir, onSkip, spill);
  warnSpooled(io, store.seen, flags.pack);
  // --run keeps those runs' conversations (the summary's run_id, from X-Mivas-Run-Id); --all-runs every run found.
  const selected = flags['all-runs'] ? [...store.runsRead].sort() : flags.run;
  if (!store.streamed.length && !mapping.size && inputs.skipped() > 0) {
    return failWith(io, 'SNAPSHOTS_UNREADABLE', `mivas score: nothing scoreable under ${source.root}: all ${inputs.skipped()} files or sets found were skipped (named above)`);
  }
  if (!store.streamed.length && !mapping.size) {
    return failWith(io, 'SNAPSHOTS_NOT_FOUND', `mivas score: no snapshots found under ${source.root}${flags.pack ? ` for pack ${flags.pack}` : ''}${selected.length ? ` in run ${selected.join(', ')}` : ''}`);
  }
  const labels = parseLabels(flags.label, selected.length ? selected : [...store.runsScored]);
  if (typeof labels === 'string') {
    io.stderr.write(`${labels}\n${USAGE}\n`);
    return exitCodeOf('USAGE');
  }
  const packIds = new Set([...store.packs.keys(), ...[...mapping.values()].flatMap((m) => m.pack ?? []), ...(flags.pack ? [flags.pack] : [])]);
  const packs = await loadPacks(packIds, packsDir, store.packs);
  const minCallS = minCallSOf(flags);
  const ctx = scoringContext(packs, { minCallMs: minCallS * 1000, allowPackDrift: flags['allow-pack-drift'] });
  const { callers } = store;
  const score = (list: readonly StreamedVerdict[], runMapping: ReadonlyMap<string, MappingEntry>, run: string | null): ScoredRun => {
    const report = reportOf(streamedVerdicts(list, runMapping, ctx, flags.pack ?? null, spill), packs, {
      k: flags.k, seed: flags.seed, resamples: flags.bootstrap, minCallMs: minCallS * 1000, allowPackDrift: flags['allow-pack-drift'], pack: flags.pack ?? null,
      stamp: flags.stamp ? new Date().toISOString() : null, flags: { ...recordedFlags(flags, minCallS), run, label: run ? (labels.get(run) ?? null) : null },
    });
    const suites = new Map(report.meta.packs.map((p) => [p.id, { pack_version: p.pack_version, task_set_hash: p.task_set_hash }]));
    const runs = describeRuns(report.conversations, (id) => ({ ...(labels.has(id) ? { label: labels.get(id) as string } : {}), callers, suites, scorerVersion: report.meta.scorer_version, flags: report.meta.flags }));
    return { report, runs };
  };
  let judgeFailed = false;
  // The judge is a separate step after scoring: it only lays annotations on the finished verdicts.
  const annotate = async (scored: ScoredRun): Promise<ScoredRun> => {
    if (!judgeSetup) return scored;
    const outcome = await annotateWithJudge(spilledVerdicts(scored.report, spill), judgeSetup);
    io.stderr.write(`judge ${judgeSetup.settings.model}: ${outcome.asked} asked, ${outcome.cached} from the cache\n`);
    if (outcome.failure) {
      judgeFailed = true;
      io.stderr.write(`mivas score: JUDGE_FAILED: ${outcome.failure}; the conversations not judged keep their judge scores absent\n`);
    }
    return { ...scored, report: withJudgeScores(scored.report, outcome.judged) };
  };
  const withJudge = (code: number): number => (judgeFailed && code === EXIT.ok ? exitCodeOf('JUDGE_FAILED') : code);
  const out = resolve(io.cwd, flags.out);
  // Shareable: the snapshot links are keys under the store (relative), never this machine's absolute path.
  const snapshotRoot = parseS3Uri(source.root) ? source.root : null;
  if (selected.length < 2) {
    const scored = await annotate(score(store.streamed, mapping, selected[0] ?? null));
    writeScoreOutputs(out, scored.report, scored.runs, spill, snapshotRoot);
    io.stdout.write(renderScoreTable(scored.report));
    io.stdout.write(`wrote ${join(out, 'scores.json')}, run.json, conversations.csv, report.html\n`);
    return withJudge(scoreExitCode(scored.report, flags.gate));
  }
  // Several runs: each scored on its own (its own headline, intervals and leaderboard), then compared.
  const results: { run: string; scored: ScoredRun }[] = [];
  for (const run of selected) results.push({ run, scored: await annotate(score(store.streamed.filter((s) => s.run === run), new Map(), run)) });
  for (const { run, scored } of results) {
    writeScoreOutputs(join(out, run), scored.report, scored.runs, spill, snapshotRoot);
    io.stdout.write(`== run ${run}: ${scored.runs[0]?.label ?? run}\n${renderScoreTable(scored.report)}\n`);
  }
  writeFileSync(join(out, 'runs.json'), `${JSON.stringify({ runs: results.map((r) => ({ dir: r.run, ...(r.scored.runs[0] ?? { run_id: r.run }) })) }, null, 2)}\n`);
  const model = buildReportModel({ reports: results.map((r) => wholeReport(r.scored.report, spill)), runMeta: new Map(results.flatMap((r) => r.scored.runs.map((m) => [m.run_id, m]))) });
  io.stdout.write(renderComparisonText(model));
  io.stdout.write(`wrote ${results.length} runs under ${out}/<run_id>/ and runs.json; mivas report --scores ${out} renders them together\n`);
  const codes = results.map((r) => scoreExitCode(r.scored.report, flags.gate));
  return withJudge(codes.includes(EXIT.checkFailed) ? EXIT.checkFailed : codes.includes(EXIT.incomplete) ? EXIT.incomplete : EXIT.ok);
}
