/**
 * `mivas export` and `mivas verify`: a run's result bundle (docs/ui.md, "Publishing a result"),
 * and the re-scoring that checks one.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfig } from '../config.ts';
import { CALL_ID_PATTERN, EXIT } from '../core/index.ts';
import {
  BUNDLE_FORMAT, BUNDLE_MANIFEST, BUNDLE_SNAPSHOTS_DIR, bundleManifestSchema, conversationKeys, conversationsCsv, directorySource, loadSnapshots, readStoredScores, scoreDifferences, scoreRun, sha256Hex, withJudgeScores,
  type BundleManifest, type RunMeta, type SnapshotSource, type StoredScores,
} from '../scoring/index.ts';
import { mivasVersion } from './version.ts';
import { failWith, usageProblem, type CliIO, type Command } from './io.ts';
import { loadPacks, openSnapshots } from './score-command.ts';

export const EXPORT_USAGE = `usage: mivas export --run RUN --out BUNDLE [--scores DIR] [--snapshots <dir|s3://bucket/prefix>] [--with-snapshots]

Writes a result bundle: a folder holding the run's scores.json, conversations.csv and run.json, and
bundle.json (format ${BUNDLE_FORMAT}) naming the suite, the scorer, harness, model, caller and mivas
version, the sha256 of every snapshot file the scores came from, and the sha256 of every other file
of the bundle. --with-snapshots copies the snapshots into BUNDLE/${BUNDLE_SNAPSHOTS_DIR}/ as well.
--scores defaults to <MIVAS_DATA_DIR>/scores/RUN (what mivas run writes); --snapshots to the
configured store. mivas verify BUNDLE checks a bundle.
Exit: 0 written, 3 usage or input error.`;

export const VERIFY_USAGE = `usage: mivas verify BUNDLE [--snapshots <dir|s3://bucket/prefix>] [--packs-dir packs]

Checks a result bundle: every file's checksum, every snapshot file's sha256, the suite of each pack
against the packs here, and re-scores the snapshots (from --snapshots, else those inside the bundle)
with the options its scores.json records. Prints "every figure matches" or names each file and
conversation that differs.
Exit: 0 every figure matches, 1 something differs, 3 usage or input error (no bundle, no snapshots).`;

/** Every file under a folder, as paths relative to it, sorted. */
function filesUnder(dir: string): string[] {
  const out: string[] = [];
  const walk = (at: string): void => {
    for (const name of readdirSync(at)) {
      const path = join(at, name);
      if (statSync(path).isDirectory()) walk(path);
      else out.push(relative(dir, path));
    }
  };
  walk(dir);
  return out.sort();
}

function writeFile(file: string, bytes: Buffer | string): void {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, bytes);
}

function readJson(file: string): unknown {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as unknown;
  } catch {
    return undefined;
  }
}

/** The configured snapshot store as a `--snapshots` value. */
function defaultStore(io: CliIO): string | null {
  const config = loadConfig(io.env);
  if (!config.ok) return null;
  const s = config.config.snapshots;
  return s.kind === 'directory' ? s.dir : `s3://${s.bucket}/${s.prefix}`;
}

/** The run's metadata from run.json, else what the scores alone say. */
function runFacts(scoresDir: string, run: string): Pick<BundleManifest, 'harnesses' | 'models' | 'caller'> {
  const runs = (readJson(join(scoresDir, 'run.json')) as { runs?: RunMeta[] } | undefined)?.runs ?? [];
  const meta = runs.find((r) => r.run_id === run);
  if (meta) return { harnesses: [...meta.harnesses], models: [...meta.models], caller: meta.caller };
  return { harnesses: [], models: [], caller: { kind: 'unknown', seed: null, model: null } };
}

interface ExportFlags {
  readonly run: string;
  readonly out: string;
  readonly scores: string;
  readonly snapshots: string;
  readonly withSnapshots: boolean;
}

function parseExportFlags(argv: readonly string[], io: CliIO): ExportFlags | string {
  const { values } = parseArgs({ args: [...argv], options: { run: { type: 'string' }, out: { type: 'string' }, scores: { type: 'string' }, snapshots: { type: 'string' }, 'with-snapshots': { type: 'boolean' } }, allowPositionals: false });
  if (!values.run || !CALL_ID_PATTERN.test(values.run)) return values.run ? `--run ${JSON.stringify(values.run)}: not a run id` : '--run is required';
  if (!values.out) return '--out is required';
  const config = loadConfig(io.env);
  const dataDir = config.ok ? config.config.dataDir : './data';
  const snapshots = values.snapshots ?? defaultStore(io);
  if (!snapshots) return '--snapshots is required (the configuration names no snapshot store)';
  return { run: values.run, out: resolve(io.cwd, values.out), scores: resolve(io.cwd, values.scores ?? join(dataDir, 'scores', values.run)), snapshots, withSnapshots: values['with-snapshots'] === true };
}

/** Reads and checks the run's scores: one run, scored without a mapping. A problem is a string. */
function storedScoresOf(flags: ExportFlags): { stored: StoredScores; suites: BundleManifest['suites']; scorer: string } | string {
  const raw = readJson(join(flags.scores, 'scores.json'));
  const stored = raw === undefined ? null : readStoredScores(raw);
  if (!stored) return `no scores.json of mivas score in ${flags.scores}`;
  if (stored.options.flags.mapping === 'given') return `${flags.scores} was scored with --mapping; a bundle re-scores snapshots alone, so export a run scored without one`;
  const others = stored.conversations.filter((c) => c.run_id !== flags.run);
  if (others.length) return `${flags.scores}/scores.json holds ${others.length} conversation(s) of other runs than ${flags.run}; score the run alone (mivas score --run ${flags.run})`;
  const meta = (raw as { meta: { packs: BundleManifest['suites']; scorer_version: string } }).meta;
  return { stored, suites: meta.packs, scorer: meta.scorer_version };
}

/** Hashes (and with --with-snapshots copies) every snapshot file of the scored conversations. */
async function snapshotEntries(source: SnapshotSource, stored: StoredScores, copyTo: string | null): Promise<BundleManifest['snapshots'] | string> {
  const keys = await source.list();
  const entries: BundleManifest['snapshots'] = [];
  for (const c of stored.conversations) {
    if (!c.snapshot_uri) continue;
    const parts = conversationKeys(keys, c.snapshot_uri);
    if (!parts.length) return `the snapshot of ${c.conversation_id} (${c.snapshot_uri}) is not in ${source.root}`;
    for (const key of parts) {
      const bytes = (await source.read(key)) ?? Buffer.alloc(0);
      entries.push({ key, sha256: sha256Hex(bytes), bytes: bytes.length });
      if (copyTo) writeFile(join(copyTo, key), bytes);
    }
  }
  return entries.sort((a, b) => (a.key < b.key ? -1 : 1));
}

/** `mivas export`: a run's result bundle. */
export const exportCommand: Command = async (argv, io) => {
  const flags = parseExportFlags(argv, io);
  if (typeof flags === 'string') return usageProblem(io, 'export', flags);
  if (existsSync(flags.out) && readdirSync(flags.out).length) return usageProblem(io, 'export', `--out ${flags.out} is not empty; a bundle is written to a new folder`);
  const scores = storedScoresOf(flags);
  if (typeof scores === 'string') return failWith(io, 'SCORES_INVALID', `mivas export: ${scores}`);
  const opened = openSnapshots({ snapshots: flags.snapshots }, io);
  if (typeof opened === 'string') return usageProblem(io, 'export', opened);
  const snapshots = await snapshotEntries(opened.source, scores.stored, flags.withSnapshots ? join(flags.out, BUNDLE_SNAPSHOTS_DIR) : null);
  if (typeof snapshots === 'string') return failWith(io, 'SNAPSHOTS_NOT_FOUND', `mivas export: ${snapshots}`);
  for (const name of ['scores.json', 'conversations.csv', 'run.json']) if (existsSync(join(flags.scores, name))) writeFile(join(flags.out, name), readFileSync(join(flags.scores, name)));
  const files = Object.fromEntries(filesUnder(flags.out).map((f) => [f, sha256Hex(readFileSync(join(flags.out, f)))]));
  const manifest: BundleManifest = {
    format: BUNDLE_FORMAT, run_id: flags.run, mivas_version: mivasVersion(), scorer_version: scores.scorer, suites: scores.suites, ...runFacts(flags.scores, flags.run),
    conversations: scores.stored.conversations.length, snapshots_included: flags.withSnapshots, snapshots, files,
  };
  const text = `${JSON.stringify(manifest, null, 2)}\n`;
  writeFile(join(flags.out, BUNDLE_MANIFEST), text);
  io.stdout.write(`wrote bundle ${flags.out}: ${manifest.conversations} conversations, ${snapshots.length} snapshot files ${flags.withSnapshots ? 'included' : 'hashed'}; bundle.json sha256 ${sha256Hex(text)}\n`);
  return EXIT.ok;
};

/** The files of the bundle whose checksum differs from bundle.json, or that it does not list. */
function fileProblems(dir: string, manifest: BundleManifest): string[] {
  const present = filesUnder(dir).filter((f) => f !== BUNDLE_MANIFEST);
  const listed = Object.keys(manifest.files);
  const problems = listed.filter((f) => !present.includes(f)).map((f) => `file ${f}: missing`);
  for (const f of present) {
    if (!(f in manifest.files)) problems.push(`file ${f}: not listed in bundle.json`);
    else if (sha256Hex(readFileSync(join(dir, f))) !== manifest.files[f]) problems.push(`file ${f}: checksum differs`);
  }
  return problems;
}

/** The conversation a snapshot key belongs to (`<pack>/<call_id>`). */
function uriOfKey(key: string): string {
  return key.slice(0, key.indexOf('.'));
}

/** Each conversation (by `<pack>/<call_id>`) whose snapshot files differ from the hashes the bundle lists. */
async function snapshotProblems(source: SnapshotSource, manifest: BundleManifest): Promise<Map<string, string>> {
  const keys = await source.list();
  const problems = new Map<string, string>();
  const uris = [...new Set(manifest.snapshots.map((s) => uriOfKey(s.key)))];
  for (const uri of uris) {
    const expected = manifest.snapshots.filter((s) => uriOfKey(s.key) === uri);
    const found = conversationKeys(keys, uri);
    const extra = found.filter((k) => !expected.some((s) => s.key === k));
    for (const s of expected) {
      const bytes = found.includes(s.key) ? await source.read(s.key) : undefined;
      if (!bytes) problems.set(uri, `${s.key} missing`);
      else if (sha256Hex(bytes) !== s.sha256) problems.set(uri, `${s.key} sha256 differs`);
    }
    if (extra.length && !problems.has(uri)) problems.set(uri, `${extra.join(', ')} not in the bundle`);
  }
  return problems;
}

function parseVerifyFlags(argv: readonly string[], io: CliIO): { bundle: string; snapshots: string | undefined; packsDir: string } | string {
  const { values, positionals } = parseArgs({ args: [...argv], options: { snapshots: { type: 'string' }, 'packs-dir': { type: 'string' } }, allowPositionals: true });
  if (positionals.length !== 1 || !positionals[0]) return 'give one BUNDLE folder';
  return { bundle: resolve(io.cwd, positionals[0]), snapshots: values.snapshots, packsDir: resolve(io.cwd, values['packs-dir'] ?? 'packs') };
}

/** Re-scores the bundle's snapshots with its recorded options; the lines naming what differs. */
async function rescoreProblems(source: SnapshotSource, manifest: BundleManifest, bundle: string, packsDir: string): Promise<string[]> {
  const raw = readJson(join(bundle, 'scores.json'));
  const stored = raw === undefined ? null : readStoredScores(raw);
  if (!stored) return ['file scores.json: not a scores.json of mivas score'];
  const wanted = new Set(stored.conversations.flatMap((c) => c.snapshot_uri ?? []));
  const snapshots = (await loadSnapshots(source)).filter((s) => wanted.has(s.snapshotUri));
  const packs = await loadPacks(new Set(manifest.suites.map((s) => s.id)), packsDir);
  // Judge scores are an annotation from an endpoint, not a figure of the snapshots: carried over as stored.
  const fresh = withJudgeScores(scoreRun(snapshots, packs, new Map(), stored.options), stored.judged);
  const lines: string[] = [];
  for (const suite of manifest.suites) {
    const now = fresh.meta.packs.find((p) => p.id === suite.id);
    if (JSON.stringify(now) !== JSON.stringify(suite)) lines.push(`suite ${suite.id}: the bundle was scored with ${JSON.stringify(suite)}, the packs here give ${JSON.stringify(now ?? null)}`);
  }
  const diff = scoreDifferences({ text: readFileSync(join(bundle, 'scores.json'), 'utf8'), conversations: (raw as { conversations: unknown[] }).conversations }, fresh);
  for (const id of diff.conversations) lines.push(`conversation ${id}: verdict differs on re-scoring`);
  if (diff.other) lines.push('scores.json: the aggregates differ on re-scoring');
  const csv = join(bundle, 'conversations.csv');
  if (existsSync(csv) && readFileSync(csv, 'utf8') !== conversationsCsv(fresh.conversations)) lines.push('conversations.csv: differs on re-scoring');
  return lines;
}

/** `mivas verify`: re-checks a result bundle. */
export const verifyCommand: Command = async (argv, io) => {
  const flags = parseVerifyFlags(argv, io);
  if (typeof flags === 'string') return usageProblem(io, 'verify', flags);
  const parsed = bundleManifestSchema.safeParse(readJson(join(flags.bundle, BUNDLE_MANIFEST)));
  if (!parsed.success) return failWith(io, 'BUNDLE_INVALID', `mivas verify: ${join(flags.bundle, BUNDLE_MANIFEST)} is missing or not a ${BUNDLE_FORMAT} manifest`);
  const manifest = parsed.data;
  if (!flags.snapshots && !manifest.snapshots_included) return failWith(io, 'BUNDLE_INVALID', 'mivas verify: the bundle holds only the hashes of its snapshots; give the snapshots with --snapshots DIR');
  const opened = flags.snapshots ? openSnapshots({ snapshots: flags.snapshots }, io) : { source: directorySource(join(flags.bundle, BUNDLE_SNAPSHOTS_DIR)) };
  if (typeof opened === 'string') return usageProblem(io, 'verify', opened);
  const lines = fileProblems(flags.bundle, manifest);
  const changed = await snapshotProblems(opened.source, manifest);
  for (const [uri, why] of [...changed.entries()].sort()) lines.push(`conversation ${uri}: snapshot differs (${why})`);
  lines.push(...(await rescoreProblems(opened.source, manifest, flags.bundle, flags.packsDir)));
  if (!lines.length) {
    io.stdout.write(`every figure matches: ${manifest.conversations} conversations of run ${manifest.run_id} re-scored from ${manifest.snapshots.length} snapshot files give the same scores.json and conversations.csv\n`);
    return EXIT.ok;
  }
  io.stdout.write(`${lines.join('\n')}\n${lines.length} difference(s): the bundle does not re-check\n`);
  return EXIT.checkFailed;
};
