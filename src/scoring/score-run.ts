import { canonicalJson, sha256Parts } from '../core/index.ts';
import type { Pack } from '../packs/index.ts';
import { groupMetrics, HEADLINE_EXCLUDED_PACKS, statusCounts, taskStats, type GroupMetrics, type TaskStats } from './aggregates.ts';
import { BOOTSTRAP_PRNG, type BootstrapSettings } from './bootstrap.ts';
import { diagnosticsSummary, type DiagnosticsSummary } from './diagnostics.ts';
import { breakdowns, headlineTasks, leaderboard, type Breakdowns, type LeaderboardTable } from './leaderboard.ts';
import type { MappingEntry } from './mapping.ts';
import type { LoadedSnapshot } from './sources.ts';
import type { ConversationVerdict, JudgeScores, VerdictRow } from './types.ts';
import { assignTrialIndexes, scoreConversation, type ScoringContext } from './verdict.ts';

/** The scorer's version; bumped whenever a rule, the PRNG or an output shape changes. */
export const SCORER_VERSION = '1.2.0';

/** Options of one scoring run (the `mivas score` flags that change results). */
export interface ScoreOptions {
  readonly k: number;
  readonly seed: number;
  readonly resamples: number;
  readonly minCallMs: number;
  readonly allowPackDrift: boolean;
  readonly pack: string | null;
  /** An ISO time to record in meta (`--stamp`); null keeps the output byte-identical across runs. */
  readonly stamp: string | null;
  /** Flags recorded in meta (paths left out so a directory and an S3 copy give identical output). */
  readonly flags: Readonly<Record<string, string | number | boolean | null>>;
}

/**
 * A run's report over conversations of type `C`: the whole verdicts (`ScoreReport`, the JSON
 * export's content, scoring.md §9), or only the rows the figures read (`mivas score`, whose whole
 * verdicts wait in a spill file until the outputs are written).
 */
export interface ScoreReportOf<C extends VerdictRow> {
  readonly meta: {
    readonly scorer_version: string;
    readonly packs: readonly { readonly id: string; readonly pack_version: string; readonly template_hash: string; readonly task_set_hash: string; readonly policy_hash: string }[];
    readonly k: number;
    readonly bootstrap: { readonly prng: string; readonly seed: number; readonly resamples: number };
    readonly headline_excluded_packs: readonly string[];
    readonly flags: Readonly<Record<string, string | number | boolean | null>>;
    readonly stamp?: string;
  };
  readonly conversations: readonly C[];
  readonly tasks: readonly TaskStats[];
  readonly aggregates: { readonly headline: GroupMetrics; readonly status: ReturnType<typeof statusCounts>; readonly headline_status: ReturnType<typeof statusCounts>; readonly diagnostics: DiagnosticsSummary };
  readonly breakdowns: Breakdowns;
  readonly leaderboard: readonly LeaderboardTable[];
}

/** The full result of a run: the JSON export's content (scoring.md §9). */
export type ScoreReport = ScoreReportOf<ConversationVerdict>;

function packMeta(pack: Pack): ScoreReport['meta']['packs'][number] {
  const tasks = [...pack.tasks.values()].sort((a, b) => (a.task_id < b.task_id ? -1 : 1));
  return {
    id: pack.id,
    pack_version: pack.packVersion,
    template_hash: pack.templateHash,
    task_set_hash: sha256Parts(tasks.map((t) => canonicalJson(t))).slice(0, 16),
    policy_hash: sha256Parts([canonicalJson(pack.compare)]).slice(0, 16),
  };
}

/** Every conversation to score: each snapshot, plus mapping entries that left no snapshot. */
function conversationIds(snapshots: readonly LoadedSnapshot[], mapping: ReadonlyMap<string, MappingEntry>, pack: string | null): string[] {
  const ids = new Set(snapshots.map((s) => s.callId));
  for (const entry of mapping.values()) if (!pack || !entry.pack || entry.pack === pack) ids.add(entry.conversation_id);
  return [...ids].sort();
}

/**
 * Scores every conversation and computes the aggregates: a pure function of snapshots, packs,
 * mapping and options, so the same inputs give byte-identical exports.
 */
export function scoreRun(snapshots: readonly LoadedSnapshot[], packs: ReadonlyMap<string, Pack>, mapping: ReadonlyMap<string, MappingEntry>, options: ScoreOptions): ScoreReport {
  const byId = new Map(snapshots.map((s) => [s.callId, s]));
  const ctx = scoringContext(packs, options);
  const scored = conversationIds(snapshots, mapping, options.pack).map((id) =>
    scoreConversation({ conversationId: id, snapshot: byId.get(id) ?? null, entry: mapping.get(id), packHint: options.pack }, ctx),
  );
  return reportOf(scored, packs, options);
}

/** What every conversation of a run is scored against. */
export function scoringContext(packs: ReadonlyMap<string, Pack>, options: Pick<ScoreOptions, 'minCallMs' | 'allowPackDrift'>): ScoringContext {
  return { packs, minCallMs: options.minCallMs, allowPackDrift: options.allowPackDrift };
}

/**
 * The report of a run from its conversations' verdicts (each scored on its own by
 * `scoreConversation`): trial indexes, order, per-task figures, intervals and tables. `scoreRun`
 * is this after scoring; a caller that scores conversations as it reads them (and lets each
 * snapshot go) calls it once at the end.
 */
export function reportOf<C extends VerdictRow>(scored: readonly C[], packs: ReadonlyMap<string, Pack>, options: ScoreOptions): ScoreReportOf<C> {
  const conversations = assignTrialIndexes(scored).sort((a, b) => (a.pack === b.pack ? (a.conversation_id < b.conversation_id ? -1 : 1) : a.pack < b.pack ? -1 : 1));
  const settings: BootstrapSettings = { seed: options.seed, resamples: options.resamples, k: options.k };
  const tasks = taskStats(conversations, options.k);
  return {
    meta: {
      scorer_version: SCORER_VERSION,
      packs: [...packs.values()].sort((a, b) => (a.id < b.id ? -1 : 1)).map(packMeta),
      k: options.k,
      bootstrap: { prng: BOOTSTRAP_PRNG, seed: options.seed, resamples: options.resamples },
      headline_excluded_packs: [...HEADLINE_EXCLUDED_PACKS].sort(),
      flags: options.flags,
      ...(options.stamp ? { stamp: options.stamp } : {}),
    },
    conversations,
    tasks,
    aggregates: {
      headline: groupMetrics(headlineTasks(tasks), settings),
      status: statusCounts(conversations),
      headline_status: statusCounts(conversations.filter((c) => !HEADLINE_EXCLUDED_PACKS.has(c.pack))),
      diagnostics: diagnosticsSummary(conversations),
    },
    breakdowns: breakdowns(tasks, settings),
    leaderboard: leaderboard(tasks, conversations, settings),
  };
}

/**
 * The report with judge scores (scoring.md §10.2) laid on its conversations and the run's
 * diagnostics summed again. Nothing else changes: the judge is an annotation, never in pass.
 */
export function withJudgeScores<C extends VerdictRow>(report: ScoreReportOf<C>, judged: ReadonlyMap<string, JudgeScores>): ScoreReportOf<C> {
  if (!judged.size) return report;
  const conversations = report.conversations.map((c) => (judged.has(c.conversation_id) ? { ...c, diagnostics: { ...c.diagnostics, judge: judged.get(c.conversation_id) ?? null } } : c));
  return { ...report, conversations, aggregates: { ...report.aggregates, diagnostics: diagnosticsSummary(conversations) } };
}
