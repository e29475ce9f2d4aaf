import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { loadConfig } from '../config.ts';
import { CALL_ID_PATTERN, ConfigError, EXIT, exitCodeOf } from '../core/index.ts';
import { loadPack, type Pack } from '../packs/index.ts';
import { renderScoreReport, renderScoreTable } from '../report/index.ts';
import { conversationsCsv, directorySource, loadSnapshots, parseMapping, s3Source, scoreRun, scoresJson, type MappingEntry, type ScoreReport, type SnapshotSource } from '../scoring/index.ts';
import { createS3Client, parseS3Uri } from '../snapshot/index.ts';
import { failWith, type CliIO, type Command } from './io.ts';

export const USAGE = `usage: mivas score --snapshots <dir|s3://bucket/prefix> [--out DIR] [--pack P] [--run RUN_ID] [--mapping FILE]
                   [--gate] [--k 5] [--seed 1729] [--bootstrap 10000] [--min-call-s 20] [--fast]
                   [--allow-pack-drift] [--stamp] [--packs-dir packs]

Writes scores.json, conversations.csv and report.html to --out (default ./data/scores).
Exit: 0 all scored (and no FAIL under --gate), 1 --gate and a FAIL, 2 something not scored, 3 usage or input error.`;

const flagsSchema = z
  .object({
    snapshots: z.string().min(1),
    out: z.string().min(1).default('./data/scores'),
    pack: z.string().regex(/^[a-z][a-z0-9-]*$/).optional(),
    run: z.string().regex(CALL_ID_PATTERN).optional(),
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
  })
  .strict();

type ScoreFlags = z.infer<typeof flagsSchema>;

function parseFlags(argv: readonly string[]): ScoreFlags | string {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      snapshots: { type: 'string' }, out: { type: 'string' }, pack: { type: 'string' }, run: { type: 'string' }, mapping: { type: 'string' }, gate: { type: 'boolean' },
      k: { type: 'string' }, seed: { type: 'string' }, bootstrap: { type: 'string' }, 'min-call-s': { type: 'string' }, fast: { type: 'boolean' },
      'allow-pack-drift': { type: 'boolean' }, stamp: { type: 'boolean' }, 'packs-dir': { type: 'string' }, help: { type: 'boolean' },
    },
    allowPositionals: false,
  });
  if (values.help) return '';
  const { help: _help, ...rest } = values;
  const parsed = flagsSchema.safeParse(rest);
  return parsed.success ? parsed.data : parsed.error.issues.map((i) => `--${i.path.join('.')}: ${i.message}`).join('\n');
}

/** The snapshot store a `--snapshots` value names: a directory, or `s3://bucket/prefix`. */
export function openSource(flags: Pick<ScoreFlags, 'snapshots'>, io: CliIO): SnapshotSource {
  const s3 = parseS3Uri(flags.snapshots);
  if (!s3) return directorySource(resolve(io.cwd, flags.snapshots));
  const config = loadConfig(io.env);
  if (!config.ok) throw new ConfigError('CONFIG_INVALID', `configuration: ${config.problems.join('; ')}`);
  return s3Source(createS3Client(config.config.s3), s3.bucket, s3.prefix);
}

function readText(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    throw new ConfigError('MAPPING_UNREADABLE', `cannot read ${file}`);
  }
}

export async function loadPacks(ids: ReadonlySet<string>, packsDir: string): Promise<Map<string, Pack>> {
  const packs = new Map<string, Pack>();
  for (const id of [...ids].sort()) packs.set(id, await loadPack(packsDir, id));
  return packs;
}

/** The exit code of scoring.md §9: 1 (a FAIL under --gate) beats 2 (anything not scored). */
export function scoreExitCode(report: ScoreReport, gate: boolean): number {
  const s = report.aggregates.status;
  if (gate && s.fail > 0) return EXIT.checkFailed;
  if (s.void + s.unmapped + s.pending > 0) return EXIT.incomplete;
  return EXIT.ok;
}

function recordedFlags(flags: ScoreFlags, minCallS: number): Record<string, string | number | boolean | null> {
  return { pack: flags.pack ?? null, run: flags.run ?? null, mapping: flags.mapping ? 'given' : null, gate: flags.gate, k: flags.k, seed: flags.seed, bootstrap: flags.bootstrap, min_call_s: minCallS, fast: flags.fast, allow_pack_drift: flags['allow-pack-drift'] };
}

/** `mivas score`: snapshots + pack tasks → verdicts, aggregates, JSON, CSV, HTML and a terminal table. */
export const scoreCommand: Command = async (argv, io) => {
  const flags = parseFlags(argv);
  if (typeof flags === 'string') {
    io.stderr.write(`${flags ? `${flags}\n` : ''}${USAGE}\n`);
    return flags ? exitCodeOf('USAGE') : EXIT.ok;
  }
  const source = openSource(flags, io);
  const mapping: Map<string, MappingEntry> = flags.mapping ? parseMapping(readText(resolve(io.cwd, flags.mapping)), flags.mapping) : new Map();
  const loaded = await loadSnapshots(source, flags.pack);
  // --run keeps one run's conversations (the summary's run_id, from X-Mivas-Run-Id).
  const snapshots = flags.run ? loaded.filter((s) => s.summary?.run_id === flags.run) : loaded;
  if (!snapshots.length && !mapping.size) {
    return failWith(io, 'SNAPSHOTS_NOT_FOUND', `mivas score: no snapshots found under ${source.root}${flags.pack ? ` for pack ${flags.pack}` : ''}${flags.run ? ` in run ${flags.run}` : ''}`);
  }
  const packIds = new Set([...snapshots.map((s) => s.pack), ...[...mapping.values()].flatMap((m) => m.pack ?? []), ...(flags.pack ? [flags.pack] : [])]);
  const packs = await loadPacks(packIds, resolve(io.cwd, flags['packs-dir']));
  const minCallS = flags.fast ? 0 : flags['min-call-s'];
  const report = scoreRun(snapshots, packs, mapping, {
    k: flags.k, seed: flags.seed, resamples: flags.bootstrap, minCallMs: minCallS * 1000, allowPackDrift: flags['allow-pack-drift'], pack: flags.pack ?? null,
    stamp: flags.stamp ? new Date().toISOString() : null, flags: recordedFlags(flags, minCallS),
  });
  const out = resolve(io.cwd, flags.out);
  mkdirSync(out, { recursive: true });
  writeFileSync(join(out, 'scores.json'), scoresJson(report));
  writeFileSync(join(out, 'conversations.csv'), conversationsCsv(report.conversations));
  writeFileSync(join(out, 'report.html'), renderScoreReport(report, { snapshotRoot: source.root }));
  io.stdout.write(renderScoreTable(report));
  io.stdout.write(`wrote ${join(out, 'scores.json')}, conversations.csv, report.html\n`);
  return scoreExitCode(report, flags.gate);
};
