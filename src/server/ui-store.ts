import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Config } from '../config.ts';
import { sha256Parts } from '../core/index.ts';
import { parseScoreFile, type RunListing } from '../report/index.ts';
import { groupKeys, NO_RUN_ID, SCORER_VERSION, type RunMeta, type ScoreReport, type SkipReporter, type SnapshotSource } from '../scoring/index.ts';
import { snapshotKey, summarySchema, type SnapshotPart } from '../snapshot/index.ts';
import { ON_DEMAND, PROFILES, storeSource, type Profile, type ScoreJob } from './score-job.ts';

/** What the UI thread needs of the configuration (plain data: it crosses to the thread). */
export type UiConfig = Pick<Config, 'scoresDir' | 'dataDir' | 'snapshots' | 'packsDir' | 'migrationsDir'>;

/**
 * Where one run's verdicts come from: a stored scores.json (all of it, or only the run's
 * conversations), or scoring its snapshots on demand.
 */
export type RunScores = { readonly scoresFile: string; readonly conversations: readonly string[] | null } | { readonly job: ScoreJob };

/** One run of a results site, with the content key its scores are cached by. */
export interface SiteRun {
  readonly runId: string;
  readonly key: string;
  readonly scores: RunScores;
}

/** A results site: its runs and the packs' facts. `key` names its content: two specs with one key build one model. */
export interface SiteSpec {
  readonly key: string;
  readonly runs: readonly SiteRun[];
  readonly packsDir: string;
  readonly origin: string;
}

/** The run id of the stored scores' site, whose scores.json is shown whole. */
export const STORED_RUN = '*';

/** The runs named in the run.json beside a scores.json (labels and callers), by run id. */
export function runFileOf(scoresFile: string): Map<string, RunMeta> {
  const file = join(resolve(scoresFile, '..'), 'run.json');
  if (!existsSync(file)) return new Map();
  try {
    const parsed = JSON.parse(readFileSync(file, 'utf8')) as { runs?: RunMeta[] };
    return new Map((parsed.runs ?? []).filter((r) => typeof r?.run_id === 'string' && typeof r.label === 'string' && typeof r.caller?.kind === 'string').map((r) => [r.run_id, r]));
  } catch {
    return new Map();
  }
}

/** The newest folder under `<dataDir>/scores` that holds a scores.json (by its modification time). */
export function latestScoresDir(dataDir: string): string | null {
  const root = resolve(dataDir, 'scores');
  if (!existsSync(root)) return null;
  const candidates = readdirSync(root)
    .map((name) => join(root, name, 'scores.json'))
    .filter((file) => existsSync(file))
    .map((file) => ({ file, mtimeMs: statSync(file).mtimeMs }))
    .sort((a, b) => b.mtimeMs - a.mtimeMs || (a.file < b.file ? 1 : -1));
  return candidates[0] ? resolve(candidates[0].file, '..') : null;
}

/** Every scores.json under a folder: itself, its sub-folders and theirs (`mivas score --all-runs` nests one level). */
export function scoresFilesUnder(dir: string): string[] {
  if (!existsSync(dir) || !statSync(dir).isDirectory()) return [];
  const out: string[] = [];
  const walk = (at: string, depth: number): void => {
    if (existsSync(join(at, 'scores.json'))) out.push(join(at, 'scores.json'));
    if (depth >= 2) return;
    for (const name of readdirSync(at).sort()) {
      const sub = join(at, name);
      if (name !== 'report' && statSync(sub).isDirectory()) walk(sub, depth + 1);
    }
  };
  walk(dir, 0);
  return out;
}

/** The site of the configured or newest stored scores (`MIVAS_SCORES_DIR`), keyed by the file and its modification. */
export function storedSite(config: UiConfig): { spec: SiteSpec } | { problem: string } {
  const dir = config.scoresDir ? resolve(config.scoresDir) : latestScoresDir(config.dataDir);
  const file = dir ? join(dir, 'scores.json') : null;
  if (!file || !existsSync(file)) return { problem: `No scores found${dir ? ` in ${dir}` : ` under ${resolve(config.dataDir, 'scores')}`}. Run mivas run, or mivas score --out, and set MIVAS_SCORES_DIR; or open runs.html for the runs in the snapshot store.` };
  const { mtimeMs, size } = statSync(file);
  const key = sha256Parts(['stored', file, String(mtimeMs), String(size)]);
  return { spec: { key, runs: [{ runId: STORED_RUN, key, scores: { scoresFile: file, conversations: null } }], packsDir: config.packsDir, origin: `stored scores: ${dir}` } };
}

interface StoredCall {
  readonly pack: string;
  readonly callId: string;
  readonly parts: ReadonlySet<SnapshotPart>;
  readonly runId: string;
  readonly harness: string | null;
  readonly model: string | null;
  readonly packVersion: string | null;
  readonly startedAt: string | null;
  /** sha256 of the summary's bytes: what the on-demand scores are cached by. */
  readonly summaryHash: string;
}

interface StoredScores {
  readonly file: string;
  readonly mtimeMs: number;
  readonly report: ScoreReport;
  readonly runs: ReadonlyMap<string, RunMeta>;
}

/**
 * The runs of the snapshot store: every conversation's summary read once (summaries are
 * written last and never change), grouped by run id; and the stored scores that cover them.
 */
export class StoreRuns {
  private readonly summaries = new Map<string, StoredCall>();
  private readonly scores = new Map<string, StoredScores>();

  readonly source: SnapshotSource;
  private readonly config: UiConfig;

  constructor(
    config: UiConfig,
    onSkip: SkipReporter,
  ) {
    this.source = storeSource(config.snapshots, onSkip);
    this.config = config;
  }

  get root(): string {
    return this.source.root;
  }

  /**
   * Every conversation with a summary, by run id. Each summary is read on every listing and
   * hashed (the on-demand scores are cached by these hashes); it is parsed again only when its
   * bytes change.
   */
  async calls(): Promise<Map<string, StoredCall[]>> {
    const groups = [...groupKeys(await this.source.list()).values()].filter((g) => g.parts.has('summary.json'));
    for (let i = 0; i < groups.length; i += 8) {
      await Promise.all(
        groups.slice(i, i + 8).map(async (g) => {
          const id = `${g.pack}/${g.callId}`;
          const bytes = await this.source.read(snapshotKey(g.pack, g.callId, 'summary.json'));
          const summaryHash = sha256Parts([bytes ? bytes.toString('base64') : '']);
          if (this.summaries.get(id)?.summaryHash === summaryHash) return;
          let parsed: ReturnType<typeof summarySchema.safeParse> | null = null;
          try {
            parsed = bytes ? summarySchema.safeParse(JSON.parse(bytes.toString('utf8'))) : null;
          } catch {
            parsed = null;
          }
          const s = parsed?.success ? parsed.data : null;
          this.summaries.set(id, { pack: g.pack, callId: g.callId, parts: g.parts, runId: s?.run_id ?? NO_RUN_ID, harness: s?.harness ?? null, model: s?.model ?? null, packVersion: s?.pack_version ?? null, startedAt: s?.started_at ?? null, summaryHash });
        }),
      );
    }
    const byRun = new Map<string, StoredCall[]>();
    for (const g of groups) {
      const call = this.summaries.get(`${g.pack}/${g.callId}`);
      if (call) byRun.set(call.runId, [...(byRun.get(call.runId) ?? []), { ...call, parts: g.parts }]);
    }
    return byRun;
  }

  /** Stored scorings under MIVAS_SCORES_DIR and `<data>/scores`, re-read when a file changes. */
  async storedScores(): Promise<StoredScores[]> {
    const roots = [...new Set([this.config.scoresDir ? resolve(this.config.scoresDir) : null, resolve(this.config.dataDir, 'scores')].filter((d): d is string => d !== null))];
    const files = [...new Set(roots.flatMap(scoresFilesUnder))];
    return files.flatMap((file) => {
      const mtimeMs = statSync(file).mtimeMs;
      const known = this.scores.get(file);
      if (known?.mtimeMs === mtimeMs) return [known];
      const parsed = parseScoreFile(readFileSync(file, 'utf8'));
      if (!parsed.ok) return [];
      const entry = { file, mtimeMs, report: parsed.report, runs: runFileOf(file) };
      this.scores.set(file, entry);
      return [entry];
    });
  }

  /** A stored scoring that holds every conversation of the run, or null. */
  async storedFor(runId: string, calls: readonly StoredCall[]): Promise<{ meta: RunMeta | null; file: string; mtimeMs: number } | null> {
    const ids = new Set(calls.map((c) => c.callId));
    for (const s of await this.storedScores()) {
      const mine = s.report.conversations.filter((v) => ids.has(v.conversation_id));
      if (mine.length === ids.size && ids.size > 0) return { meta: s.runs.get(runId) ?? null, file: s.file, mtimeMs: s.mtimeMs };
    }
    return null;
  }

  async listing(): Promise<RunListing[]> {
    const byRun = [...(await this.calls()).entries()];
    const stored = await Promise.all(byRun.map(([runId, calls]) => this.storedFor(runId, calls)));
    return byRun
      .map(([runId, calls], i) => {
        const scored = stored[i];
        const distinct = (xs: (string | null)[]): string[] => [...new Set(xs.filter((x): x is string => x !== null))].sort();
        const packs = distinct(calls.map((c) => c.pack)).map((id) => ({ id, pack_version: distinct(calls.filter((c) => c.pack === id).map((c) => c.packVersion)).join('+') || null }));
        return { run_id: runId, label: scored?.meta?.label ?? null, packs, harnesses: distinct(calls.map((c) => c.harness)), models: distinct(calls.map((c) => c.model)), conversations: calls.length, started_at: distinct(calls.map((c) => c.startedAt))[0] ?? null, scores: scored ? ('stored' as const) : ('on demand' as const) };
      })
      .sort((a, b) => ((b.started_at ?? '') < (a.started_at ?? '') ? -1 : (b.started_at ?? '') > (a.started_at ?? '') ? 1 : a.run_id < b.run_id ? -1 : 1));
  }

  /** The job that scores one run from its snapshots, as `mivas score --run` would (each run on its own). */
  jobFor(runId: string, calls: readonly StoredCall[], profile: Profile): ScoreJob {
    const p = PROFILES[profile];
    const list = calls.map((c) => ({ pack: c.pack, callId: c.callId, parts: [...c.parts] }));
    return { snapshots: this.config.snapshots, packsDir: this.config.packsDir, migrationsDir: this.config.migrationsDir, runId, calls: list, minCallMs: p.minCallMs, fast: p.fast };
  }
}

/**
 * What a run's on-demand scores are cached by: the profile, the run, and for each conversation (in
 * id order) the hash of its summary and the names of its parts. A summary is written last and
 * never changes, so a set's content changes only with its summary or its parts.
 */
function contentKey(profile: Profile, runId: string, calls: readonly StoredCall[]): string {
  return sha256Parts([profile, runId, ...[...calls].sort((a, b) => (`${a.pack}/${a.callId}` < `${b.pack}/${b.callId}` ? -1 : 1)).map((c) => `${c.pack}/${c.callId}:${c.summaryHash}:${[...c.parts].sort().join(',')}`)]);
}

/**
 * The site of a run set from the store: stored scores where they cover a run, else scored on
 * demand in the UI thread. Each run's scores are cached there by its content (`contentKey`), so a
 * run set asked in another order reuses them, and a changed or added summary scores the run again.
 */
export async function runSetSite(config: UiConfig, store: StoreRuns, profile: Profile, runIds: readonly string[]): Promise<{ spec: SiteSpec } | { problem: string }> {
  const byRun = await store.calls();
  const missing = runIds.filter((id) => !byRun.has(id));
  if (missing.length) return { problem: `No conversations of run ${missing.join(', ')} in ${store.root}.` };
  const runs = await Promise.all(
    runIds.map(async (runId): Promise<SiteRun & { origin: string }> => {
      const calls = byRun.get(runId) ?? [];
      const stored = await store.storedFor(runId, calls);
      if (stored) return { runId, key: sha256Parts(['stored', stored.file, String(stored.mtimeMs), runId]), scores: { scoresFile: stored.file, conversations: calls.map((c) => c.callId) }, origin: `stored scores ${stored.file}` };
      return { runId, key: contentKey(profile, runId, calls), scores: { job: store.jobFor(runId, calls, profile) }, origin: `scored on demand (scorer ${SCORER_VERSION}, ${profile === 'fast' ? '--fast' : 'default'} profile, B=${ON_DEMAND.resamples})` };
    }),
  );
  const origin = runs.map((r) => `${r.runId}: ${r.origin}`).join(' · ');
  return { spec: { key: sha256Parts([profile, ...runs.map((r) => `${r.runId}=${r.key}`)]), runs: runs.map(({ runId, key, scores }) => ({ runId, key, scores })), packsDir: config.packsDir, origin: `snapshot store ${store.root} · ${origin}` } };
}

