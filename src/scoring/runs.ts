/**
 * Runs as first-class (docs/ui.md, "Runs"): a run is the conversations that share a run id
 * (`X-Mivas-Run-Id`, one `mivas run`). Its metadata is derived from the verdicts, the packs
 * scored and, where the caller left one, the caller's own record. Pure.
 */
import { sha256Parts } from '../core/index.ts';
import type { LoadedSnapshot } from './sources.ts';
import type { VerdictRow } from './types.ts';

/** The run id given to conversations that carry none (a Bluejay mapping, a hand-dialed call). */
export const NO_RUN_ID = 'no-run';

/** What the caller side of one conversation was, when known. */
export interface CallerFacts {
  readonly kind: string;
  readonly seed: number | null;
  readonly model: string | null;
}

/** One run's metadata, written as `run.json` beside its scores and shown on every results page. */
export interface RunMeta {
  readonly run_id: string;
  /** `--label`, else harness, model, pack and date. */
  readonly label: string;
  readonly labelled: boolean;
  readonly harnesses: readonly string[];
  readonly models: readonly string[];
  /** Each pack scored: its version, the suite hash (every task's content) and the hash of the task ids run. */
  readonly packs: readonly { readonly id: string; readonly pack_version: string | null; readonly suite_hash: string | null; readonly task_set_hash: string; readonly tasks: number }[];
  readonly caller: { readonly kind: string; readonly seed: string | null; readonly model: string | null };
  readonly started_at: string | null;
  readonly ended_at: string | null;
  readonly conversations: number;
  readonly scorer_version: string | null;
  /** The flags of the scoring that produced these verdicts (scores.json meta.flags). */
  readonly flags: Readonly<Record<string, string | number | boolean | null>>;
}

/** The run a loaded snapshot belongs to: its summary's run id, else its timeline's `call.started` (an unreadable summary keeps its run). */
export function snapshotRunId(s: Pick<LoadedSnapshot, 'summary' | 'events'>): string {
  const started = s.events?.find((e) => e.type === 'call.started');
  return s.summary?.run_id ?? (started?.type === 'call.started' ? started.run_id : null) ?? NO_RUN_ID;
}

/** The run a verdict belongs to. */
export function runIdOf(v: Pick<VerdictRow, 'run_id'>): string {
  return v.run_id ?? NO_RUN_ID;
}

/** Hash of a set of task ids (the same construction the leaderboard uses for its task set). */
export function taskSetHash(taskIds: Iterable<string>): string {
  return sha256Parts([...new Set(taskIds)].sort()).slice(0, 16);
}

function distinct<T>(values: readonly (T | null)[]): T[] {
  return [...new Set(values.filter((v): v is T => v !== null))].sort();
}

function callerOf(convs: readonly VerdictRow[], callers: ReadonlyMap<string, CallerFacts>): RunMeta['caller'] {
  const known = convs.flatMap((v) => callers.get(v.conversation_id) ?? []);
  if (!known.length) {
    // Without a caller record: mivas's own dialer names its calls loc_…; it is the scripted (opening-line) caller.
    const local = convs.length > 0 && convs.every((v) => v.conversation_id.startsWith('loc_'));
    return { kind: local ? 'scripted' : 'external (Bluejay or another dialer)', seed: null, model: null };
  }
  const kinds = distinct(known.map((c) => c.kind));
  const seeds = distinct(known.map((c) => c.seed));
  const models = distinct(known.map((c) => c.model));
  const seed = seeds.length === 0 ? null : seeds.length === 1 ? String(seeds[0]) : `${seeds.length} per-trial seeds, ${seeds[0]}…${seeds[seeds.length - 1]}`;
  return { kind: kinds.join(', '), seed, model: models.length ? models.join(', ') : null };
}

function endOf(v: VerdictRow): number | null {
  const start = v.started_at ? Date.parse(v.started_at) : NaN;
  return Number.isFinite(start) ? start + (v.duration_s ?? 0) * 1000 : null;
}

/** The default label: harness and model, pack and the minute the run started (UTC); the run id is shown beside it. */
export function defaultRunLabel(meta: Pick<RunMeta, 'harnesses' | 'models' | 'packs' | 'started_at' | 'run_id'>): string {
  const who = meta.harnesses.length ? meta.harnesses.join('+') : 'unknown harness';
  const model = meta.models.length ? ` ${meta.models.join('+')}` : '';
  const packs = meta.packs.map((p) => p.id).join(', ');
  const when = meta.started_at ? ` · ${meta.started_at.slice(0, 10)} ${meta.started_at.slice(11, 16)}` : ` · ${meta.run_id}`;
  return `${who}${model} · ${packs}${when}`;
}

/** Inputs of `describeRun` beyond the run's verdicts. */
export interface RunContext {
  readonly label?: string;
  readonly callers?: ReadonlyMap<string, CallerFacts>;
  /** Suite hashes by pack id (scores.json meta.packs task_set_hash). */
  readonly suites?: ReadonlyMap<string, { readonly pack_version: string; readonly task_set_hash: string }>;
  readonly scorerVersion?: string | null;
  readonly flags?: Readonly<Record<string, string | number | boolean | null>>;
}

/** The metadata of one run from its verdicts. */
export function describeRun(runId: string, convs: readonly VerdictRow[], context: RunContext = {}): RunMeta {
  const packIds = distinct(convs.map((v) => v.pack));
  const packs = packIds.map((id) => {
    const mine = convs.filter((v) => v.pack === id);
    const versions = distinct(mine.map((v) => v.pack_version));
    const suite = context.suites?.get(id);
    const ids = distinct(mine.map((v) => v.task_id));
    return { id, pack_version: versions.join('+') || (suite?.pack_version ?? null), suite_hash: suite && (versions.length === 0 || versions.includes(suite.pack_version)) ? suite.task_set_hash : null, task_set_hash: taskSetHash(ids), tasks: ids.length };
  });
  const starts = distinct(convs.map((v) => v.started_at));
  const ends = convs.flatMap((v) => endOf(v) ?? []);
  const base = {
    run_id: runId,
    harnesses: distinct(convs.map((v) => v.harness)),
    models: distinct(convs.map((v) => v.model)),
    packs,
    caller: callerOf(convs, context.callers ?? new Map()),
    started_at: starts[0] ?? null,
    ended_at: ends.length ? new Date(Math.max(...ends)).toISOString() : null,
    conversations: convs.length,
    scorer_version: context.scorerVersion ?? null,
    flags: context.flags ?? {},
  };
  const label = context.label?.trim();
  return { ...base, label: label || defaultRunLabel(base), labelled: Boolean(label) };
}

/** Every run among the verdicts, in run-id order. */
export function describeRuns(verdicts: readonly VerdictRow[], context: (runId: string) => RunContext = () => ({})): RunMeta[] {
  const groups = new Map<string, VerdictRow[]>();
  for (const v of verdicts) groups.set(runIdOf(v), [...(groups.get(runIdOf(v)) ?? []), v]);
  return [...groups.keys()].sort().map((id) => describeRun(id, groups.get(id) ?? [], context(id)));
}
