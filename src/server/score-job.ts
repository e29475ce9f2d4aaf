import { resolve } from 'node:path';
import type { SnapshotTarget } from '../config.ts';
import { loadPack, type Pack } from '../packs/index.ts';
import { directorySource, loadSnapshot, s3Source, scoreRun, type ScoreReport, type SkipReporter, type SnapshotSource } from '../scoring/index.ts';
import { createS3Client, SNAPSHOT_PARTS, type SnapshotPart } from '../snapshot/index.ts';

/** The snapshot store the service writes to, as a listable source (a directory or an S3 prefix). */
export function storeSource(target: SnapshotTarget, onSkip?: SkipReporter): SnapshotSource {
  if (target.kind === 'directory') return directorySource(resolve(target.dir), { onSkip });
  return s3Source(createS3Client({ endpoint: target.endpoint, region: target.region, forcePathStyle: target.forcePathStyle }), target.bucket, target.prefix, { onSkip });
}

/** Bootstrap settings of on-demand scoring: the `mivas score` defaults, so the figures match the CLI's. */
export const ON_DEMAND = { k: 5, seed: 1729, resamples: 10_000 } as const;

/** How a run without stored scores is scored on demand: the `mivas score` defaults, or `--fast` (no minimum call length). */
export const PROFILES = { default: { minCallMs: 20_000, fast: false }, fast: { minCallMs: 0, fast: true } } as const;
export type Profile = keyof typeof PROFILES;

/** One run to score from the store, as plain data (it crosses to the scoring worker). */
export interface ScoreJob {
  readonly snapshots: SnapshotTarget;
  readonly packsDir: string;
  readonly migrationsDir: string;
  readonly runId: string;
  readonly calls: readonly { readonly pack: string; readonly callId: string; readonly parts: readonly string[] }[];
  readonly minCallMs: number;
  readonly fast: boolean;
}

const packs = new Map<string, Pack>();

/** Scores one run from its snapshots, as `mivas score --run` would (each run on its own). */
export async function scoreStoredRun(job: ScoreJob): Promise<ScoreReport> {
  const source = storeSource(job.snapshots);
  const snapshots = [];
  const partsOf = (names: readonly string[]): Set<SnapshotPart> => new Set(SNAPSHOT_PARTS.filter((p) => names.includes(p)));
  for (let i = 0; i < job.calls.length; i += 8) snapshots.push(...(await Promise.all(job.calls.slice(i, i + 8).map((c) => loadSnapshot(source, c.pack, c.callId, partsOf(c.parts))))));
  for (const id of new Set(job.calls.map((c) => c.pack))) if (!packs.has(id)) packs.set(id, await loadPack(resolve(job.packsDir), id, resolve(job.migrationsDir)));
  const flags = { pack: null, run: job.runId, label: null, mapping: null, gate: false, k: ON_DEMAND.k, seed: ON_DEMAND.seed, bootstrap: ON_DEMAND.resamples, min_call_s: job.minCallMs / 1000, fast: job.fast, allow_pack_drift: false, on_demand: true };
  return scoreRun(snapshots, packs, new Map(), { ...ON_DEMAND, minCallMs: job.minCallMs, allowPackDrift: false, pack: null, stamp: null, flags });
}
