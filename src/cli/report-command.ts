import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfig } from '../config.ts';
import { ConfigError, EXIT, exitCodeOf } from '../core/index.ts';
import type { Blueprint } from '../packs/index.ts';
import { buildReportModel, loadConversationEvidence, pageFileName, parseBlueprint, parseScoreFile, renderSitePage, sitePages, type SnapshotReader } from '../report/index.ts';
import { directorySource, s3Source, type ScoreReport } from '../scoring/index.ts';
import { createS3Client, parseS3Uri } from '../snapshot/index.ts';
import type { CliIO, Command } from './io.ts';

export const USAGE = `usage: mivas report --scores DIR [--out DIR] [--snapshots <dir|s3://bucket/prefix>] [--packs-dir packs]

Writes the results site as static files that open from disk with no server: index.html (the
leaderboard), tasks.html (the task grid), one page per task and per conversation, and each
recording under audio/. --scores is a folder written by mivas score; --out defaults to
<scores>/report; --snapshots defaults to the configured snapshot store (MIVAS_SNAPSHOT_DIR,
<MIVAS_DATA_DIR>/snapshots or the S3 bucket).`;

const PACK_ID = /^[a-z][a-z0-9-]*$/;

/** Inputs of one static export. */
export interface ReportExport {
  /** A folder holding the scores.json that `mivas score` wrote. */
  readonly scoresDir: string;
  readonly outDir: string;
  /** Reads `<pack>/<call_id>.<part>` keys from the snapshot store the scores came from. */
  readonly read: SnapshotReader;
  readonly packsDir: string;
}

/** Reads and checks `<dir>/scores.json`. */
export function readScores(dir: string): ScoreReport {
  const file = join(dir, 'scores.json');
  if (!existsSync(file)) throw new ConfigError('SCORES_NOT_FOUND', `no scores.json in ${dir}`);
  const parsed = parseScoreFile(readFileSync(file, 'utf8'));
  if (!parsed.ok) throw new ConfigError('SCORES_INVALID', `${file}: ${parsed.problem}`);
  return parsed.report;
}

/** Each scored pack's blueprint from the packs folder (null when a pack is not there). */
export function readBlueprints(report: ScoreReport, packsDir: string): Map<string, Blueprint | null> {
  const ids = new Set([...report.meta.packs.map((p) => p.id), ...report.conversations.map((c) => c.pack)]);
  return new Map([...ids].map((id) => [id, PACK_ID.test(id) && existsSync(join(packsDir, id, 'blueprint.json')) ? parseBlueprint(readFileSync(join(packsDir, id, 'blueprint.json'))) : null]));
}

/** Writes the static site; returns the path of its index.html. */
export async function writeReport(input: ReportExport): Promise<{ readonly indexPath: string; readonly pages: number }> {
  const report = readScores(input.scoresDir);
  const model = buildReportModel(report);
  const blueprints = readBlueprints(report, input.packsDir);
  mkdirSync(join(input.outDir, 'audio'), { recursive: true });
  const evidence = async (id: string) => {
    const v = model.conversations.get(id);
    if (!v) throw new Error(`unknown conversation ${id}`);
    return loadConversationEvidence(input.read, v, blueprints.get(v.pack) ?? null, (bytes) => writeFileSync(join(input.outDir, 'audio', `${id}.wav`), bytes));
  };
  const pages = sitePages(model);
  for (const page of pages) {
    const text = await renderSitePage(model, page, evidence);
    if (text !== null) writeFileSync(join(input.outDir, pageFileName(page)), text);
  }
  return { indexPath: join(input.outDir, 'index.html'), pages: pages.length };
}

/** A reader over the snapshot store: the flag, else the configured directory or bucket. */
function snapshotReader(flag: string | undefined, io: CliIO): SnapshotReader {
  const config = loadConfig(io.env);
  const s3 = flag ? parseS3Uri(flag) : undefined;
  if (flag && !s3) return directorySource(resolve(io.cwd, flag)).read;
  if (!config.ok) throw new ConfigError('CONFIG_INVALID', `configuration: ${config.problems.join('; ')}`);
  if (s3) return s3Source(createS3Client(config.config.s3), s3.bucket, s3.prefix).read;
  const target = config.config.snapshots;
  if (target.kind === 'directory') return directorySource(resolve(io.cwd, target.dir)).read;
  return s3Source(createS3Client(config.config.s3), target.bucket, target.prefix).read;
}

/** `mivas report`: the results site as static files (docs/ui.md). */
export const reportCommand: Command = async (argv, io) => {
  const { values } = parseArgs({ args: [...argv], options: { scores: { type: 'string' }, out: { type: 'string' }, snapshots: { type: 'string' }, 'packs-dir': { type: 'string' }, help: { type: 'boolean' } } });
  if (values.help || !values.scores) {
    io.stderr.write(`${USAGE}\n`);
    return values.help ? EXIT.ok : exitCodeOf('USAGE');
  }
  const scoresDir = resolve(io.cwd, values.scores);
  const outDir = resolve(io.cwd, values.out ?? join(values.scores, 'report'));
  const written = await writeReport({ scoresDir, outDir, read: snapshotReader(values.snapshots, io), packsDir: resolve(io.cwd, values['packs-dir'] ?? 'packs') });
  io.stdout.write(`wrote ${written.pages} pages; open ${written.indexPath}\n`);
  return EXIT.ok;
};
