import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfig } from '../config.ts';
import { ConfigError, EXIT, exitCodeOf } from '../core/index.ts';
import type { Blueprint } from '../packs/index.ts';
import { buildReportModel, compactWav, loadConversationEvidence, pageFileName, parseBlueprint, parseScoreFile, readPackFacts, renderSitePage, sitePages, type PackFiles, type SnapshotReader } from '../report/index.ts';
import { directorySource, s3Source, type ConversationVerdict, type RunMeta, type ScoreReport } from '../scoring/index.ts';
import { createS3Client, parseS3Uri } from '../snapshot/index.ts';
import type { CliIO, Command } from './io.ts';

export const USAGE = `usage: mivas report --scores DIR [--scores DIR]... [--out DIR] [--snapshots <dir|s3://bucket/prefix>]
                    [--packs-dir packs] [--audio link|compact|copy|none] [--before DIR]

Writes the results site as static files that open from disk with no server: runs.html, index.html
(the leaderboard), compare.html (every pair of runs on the same suite), tasks.html (the task grid),
one page per task and per conversation, and flips.html with --before. Each --scores is a folder
written by mivas score (scores.json, run.json), or a folder of such folders (mivas score --all-runs);
several make one site with every run in it. --out defaults to <first scores>/report; --snapshots
defaults to the configured snapshot store (MIVAS_SNAPSHOT_DIR, <MIVAS_DATA_DIR>/snapshots or the
S3 bucket). --before is an earlier scoring of the same snapshots (mivas tasks diff --out writes
before/ and after/): the verdict-flip view lists what changed.

Audio (default link for a snapshot directory, compact for S3): link points each conversation page
at the recording in the snapshot directory (nothing copied; the site then needs that folder where
it was); compact writes audio/<id>.wav as 8 kHz G.711 mu-law stereo, 16,000 bytes per second of
call; copy writes the original WAV (64,000 bytes per second); none leaves recordings out.`;

/** What the export does with recordings (docs/ui.md, "Audio"). */
export type AudioMode = 'link' | 'compact' | 'copy' | 'none';

/** Inputs of one static export. */
export interface ReportExport {
  /** A folder holding the scores.json that `mivas score` wrote (or a folder of run folders). */
  readonly scoresDir: string;
  /** More scores folders for the same site (several runs). */
  readonly moreScoresDirs?: readonly string[];
  readonly outDir: string;
  /** Reads `<pack>/<call_id>.<part>` keys from the snapshot store the scores came from. */
  readonly read: SnapshotReader;
  readonly packsDir: string;
  /** Default `compact`, or `link` when `snapshotDir` is given. */
  readonly audio?: AudioMode;
  /** The snapshot directory, for `link` (the pages link its WAVs by relative path). */
  readonly snapshotDir?: string;
  /** An earlier scoring of the same snapshots, for the verdict-flip view. */
  readonly beforeDir?: string;
}

/** What an export wrote, with its sizes. */
export interface ReportWritten {
  readonly indexPath: string;
  readonly pages: number;
  readonly pageBytes: number;
  readonly audioBytes: number;
  readonly audioFiles: number;
  readonly audio: AudioMode;
}

/** Reads and checks `<dir>/scores.json`. */
export function readScores(dir: string): ScoreReport {
  const file = join(dir, 'scores.json');
  if (!existsSync(file)) throw new ConfigError('SCORES_NOT_FOUND', `no scores.json in ${dir}`);
  const parsed = parseScoreFile(readFileSync(file, 'utf8'));
  if (!parsed.ok) throw new ConfigError('SCORES_INVALID', `${file}: ${parsed.problem}`);
  return parsed.report;
}

/** The scores folders a --scores value names: itself when it holds scores.json, else its sub-folders that do. */
export function scoresFolders(dir: string): string[] {
  if (existsSync(join(dir, 'scores.json'))) return [dir];
  if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new ConfigError('SCORES_NOT_FOUND', `no scores.json in ${dir}`);
  const subs = readdirSync(dir)
    .sort()
    .map((name) => join(dir, name))
    .filter((sub) => statSync(sub).isDirectory() && existsSync(join(sub, 'scores.json')));
  if (!subs.length) throw new ConfigError('SCORES_NOT_FOUND', `no scores.json in ${dir} or its sub-folders`);
  return subs;
}

/** `run.json` beside a scores.json (written by mivas score), or null. */
export function readRunFile(dir: string): RunMeta[] {
  const file = join(dir, 'run.json');
  if (!existsSync(file)) return [];
  try {
    const parsed = JSON.parse(readFileSync(file, 'utf8')) as { runs?: RunMeta[] } | RunMeta;
    const runs = 'runs' in parsed && Array.isArray(parsed.runs) ? parsed.runs : [parsed as RunMeta];
    return runs.filter((r) => typeof r?.run_id === 'string' && typeof r.label === 'string' && typeof r.caller?.kind === 'string');
  } catch {
    return [];
  }
}

/** Node file access to a packs folder, for `readPackFacts`. */
export function packFiles(packsDir: string): PackFiles {
  return {
    read: (pack, path) => (existsSync(join(packsDir, pack, path)) ? readFileSync(join(packsDir, pack, path)) : null),
    taskFiles: (pack) => (existsSync(join(packsDir, pack, 'tasks')) ? readdirSync(join(packsDir, pack, 'tasks')).sort() : []),
  };
}

/** Each scored pack's blueprint and task facts from the packs folder. */
export function readPackFactsOf(reports: readonly ScoreReport[], packsDir: string): ReturnType<typeof readPackFacts> {
  const ids = new Set(reports.flatMap((r) => [...r.meta.packs.map((p) => p.id), ...r.conversations.map((c) => c.pack)]));
  return readPackFacts(ids, packFiles(packsDir), (bytes) => parseBlueprint(bytes));
}

function hrefOf(path: string): string {
  return path.split(sep).map(encodeURIComponent).join('/');
}

/** Writes the static site; returns the path of its index.html and what it wrote. */
export async function writeReport(input: ReportExport): Promise<ReportWritten> {
  const folders = [input.scoresDir, ...(input.moreScoresDirs ?? [])].flatMap(scoresFolders);
  const reports = folders.map(readScores);
  const runMeta = new Map(folders.flatMap(readRunFile).map((r) => [r.run_id, r]));
  const { blueprints, taskInfo } = readPackFactsOf(reports, input.packsDir);
  const model = buildReportModel({ reports, runMeta, blueprints, taskInfo, before: input.beforeDir ? readScores(input.beforeDir) : null, origin: `stored scores: ${folders.map((f) => relative(dirname(input.scoresDir), f) || basename(f)).join(', ')}` });
  const mode: AudioMode = input.audio ?? (input.snapshotDir ? 'link' : 'compact');
  if (mode === 'link' && !input.snapshotDir) throw new ConfigError('USAGE', '--audio link needs a snapshot directory (an S3 store cannot be linked from a static page; use --audio compact)');
  mkdirSync(input.outDir, { recursive: true });
  if (mode === 'compact' || mode === 'copy') mkdirSync(join(input.outDir, 'audio'), { recursive: true });
  let audioBytes = 0;
  let audioFiles = 0;
  const place = (v: ConversationVerdict) => (bytes: Buffer | Uint8Array): string | null | undefined => {
    if (mode === 'none') return null;
    if (mode === 'link') return hrefOf(relative(input.outDir, join(input.snapshotDir as string, v.pack, `${v.conversation_id}.wav`)));
    const out = mode === 'compact' ? compactWav(bytes) : Buffer.from(bytes);
    if (!out) return null;
    writeFileSync(join(input.outDir, 'audio', `${v.conversation_id}.wav`), out);
    audioBytes += out.length;
    audioFiles++;
    return undefined;
  };
  const evidence = async (id: string) => {
    const v = model.conversations.get(id);
    if (!v) throw new Error(`unknown conversation ${id}`);
    return loadConversationEvidence(input.read, v, blueprints.get(v.pack) ?? null, place(v));
  };
  const pages = sitePages(model);
  let pageBytes = 0;
  for (const page of pages) {
    const text = await renderSitePage(model, page, evidence);
    if (text === null) continue;
    writeFileSync(join(input.outDir, pageFileName(page)), text);
    pageBytes += Buffer.byteLength(text);
  }
  return { indexPath: join(input.outDir, 'index.html'), pages: pages.length, pageBytes, audioBytes, audioFiles, audio: mode };
}

/** A reader over the snapshot store: the flag, else the configured directory or bucket; with the directory when it is one. */
function snapshotReader(flag: string | undefined, io: CliIO): { read: SnapshotReader; dir: string | null } {
  const s3 = flag ? parseS3Uri(flag) : undefined;
  if (flag && !s3) return { read: directorySource(resolve(io.cwd, flag)).read, dir: resolve(io.cwd, flag) };
  const config = loadConfig(io.env);
  if (!config.ok) throw new ConfigError('CONFIG_INVALID', `configuration: ${config.problems.join('; ')}`);
  if (s3) return { read: s3Source(createS3Client(config.config.s3), s3.bucket, s3.prefix).read, dir: null };
  const target = config.config.snapshots;
  if (target.kind === 'directory') return { read: directorySource(resolve(io.cwd, target.dir)).read, dir: resolve(io.cwd, target.dir) };
  return { read: s3Source(createS3Client(config.config.s3), target.bucket, target.prefix).read, dir: null };
}

function mb(bytes: number): string {
  return `${(bytes / 1_000_000).toFixed(2)} MB`;
}

const AUDIO_MODES = new Set<string>(['link', 'compact', 'copy', 'none']);

/** `mivas report`: the results site as static files (docs/ui.md). */
export const reportCommand: Command = async (argv, io) => {
  const { values } = parseArgs({
    args: [...argv],
    options: { scores: { type: 'string', multiple: true }, out: { type: 'string' }, snapshots: { type: 'string' }, 'packs-dir': { type: 'string' }, audio: { type: 'string' }, before: { type: 'string' }, help: { type: 'boolean' } },
  });
  const scores = values.scores ?? [];
  if (values.help || !scores.length || (values.audio !== undefined && !AUDIO_MODES.has(values.audio))) {
    io.stderr.write(`${USAGE}\n`);
    return values.help ? EXIT.ok : exitCodeOf('USAGE');
  }
  const [first = '', ...rest] = scores.map((d) => resolve(io.cwd, d));
  const outDir = resolve(io.cwd, values.out ?? join(scores[0] ?? '.', 'report'));
  const store = snapshotReader(values.snapshots, io);
  const written = await writeReport({
    scoresDir: first,
    moreScoresDirs: rest,
    outDir,
    read: store.read,
    packsDir: resolve(io.cwd, values['packs-dir'] ?? 'packs'),
    ...(values.audio ? { audio: values.audio as AudioMode } : {}),
    ...(store.dir ? { snapshotDir: store.dir } : {}),
    ...(values.before ? { beforeDir: resolve(io.cwd, values.before) } : {}),
  });
  const audio = written.audio === 'link' ? 'audio linked from the snapshot directory, not copied' : written.audio === 'none' ? 'audio left out' : `${written.audioFiles} recordings ${mb(written.audioBytes)} (${written.audio})`;
  io.stdout.write(`wrote ${written.pages} pages (${mb(written.pageBytes)}); ${audio}; open ${written.indexPath}\n`);
  return EXIT.ok;
};
