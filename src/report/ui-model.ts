import { CALL_ID_PATTERN } from '../core/index.ts';
import { groupMetrics, HEADLINE_EXCLUDED_PACKS, percentile, type ConversationVerdict, type GroupMetrics, type ScoreReport, type TaskStats } from '../scoring/index.ts';

/** A gate that can fail, or `void` for an unmeasured trial (the grid's failing-gate filter). */
export type FailingGate = 'state' | 'tools' | 'handoff' | 'void';

/** One leaderboard row: a (pack, pack version, harness, model) with the §8 metrics and run figures. */
export interface LeaderRow {
  readonly pack: string;
  readonly packVersion: string | null;
  readonly harness: string | null;
  readonly model: string | null;
  /** A control pack: scored, shown, never ranked (scoring.md §8.5). */
  readonly isControl: boolean;
  readonly rank: number | null;
  readonly metrics: GroupMetrics;
  readonly medianLatencyMs: number | null;
  readonly medianFirstAudioMs: number | null;
  readonly meanCostUsd: number | null;
  readonly isUnreliable: boolean;
}

/** One task's trials for one (pack version, harness, model): a row of the task grid. */
export interface TaskRow {
  readonly slug: string;
  readonly stats: TaskStats;
  readonly trials: readonly ConversationVerdict[];
  readonly failingGates: readonly FailingGate[];
  /** Trials disagree (0 < c < n): the task flips between pass and fail. */
  readonly isFlipProne: boolean;
}

/** Everything the pages read, computed once per scores file. */
export interface ReportModel {
  readonly report: ScoreReport;
  readonly leaders: readonly LeaderRow[];
  readonly taskRows: readonly TaskRow[];
  /** Task slug → its rows (one per harness/model). */
  readonly tasksBySlug: ReadonlyMap<string, readonly TaskRow[]>;
  readonly conversations: ReadonlyMap<string, ConversationVerdict>;
  /** The most trials any row has: the grid's column count. */
  readonly maxTrials: number;
}

/** Ids that may become a file or route name (the snapshot key alphabet). */
export const SAFE_ID = CALL_ID_PATTERN;

/** The page of one task: pack and task id, with anything outside `[A-Za-z0-9_-]` replaced. */
export function taskSlug(pack: string, taskId: string): string {
  return `${pack}.${taskId}`.replace(/[^A-Za-z0-9_.-]/g, '_');
}

/** The relative href of a conversation page, or null when its id cannot be a file name. */
export function conversationHref(id: string): string | null {
  return SAFE_ID.test(id) ? `conv-${id}.html` : null;
}

/** The relative href of a task page. */
export function taskHref(slug: string): string {
  return `task-${slug}.html`;
}

/** The gates a conversation failed, or `void` when it was not measured. */
export function failingGates(v: ConversationVerdict): FailingGate[] {
  if (v.status === 'VOID') return ['void'];
  const out: FailingGate[] = [];
  if (v.state?.pass === false) out.push('state');
  if (v.tools?.pass === false) out.push('tools');
  if (v.handoff?.pass === false) out.push('handoff');
  return out;
}

const rowKey = (x: { pack: string; harness: string | null; model: string | null; task_id: string | null }): string => JSON.stringify([x.pack, x.harness, x.model, x.task_id]);

function buildTaskRows(report: ScoreReport): TaskRow[] {
  const trials = new Map<string, ConversationVerdict[]>();
  for (const v of report.conversations) if (v.task_id) trials.set(rowKey(v), [...(trials.get(rowKey(v)) ?? []), v]);
  return report.tasks.map((stats) => {
    const list = [...(trials.get(rowKey(stats)) ?? [])].sort((a, b) => (a.trial_index ?? 0) - (b.trial_index ?? 0) || (a.conversation_id < b.conversation_id ? -1 : 1));
    const gates = new Set(list.flatMap(failingGates));
    return { slug: taskSlug(stats.pack, stats.task_id), stats, trials: list, failingGates: (['state', 'tools', 'handoff', 'void'] as const).filter((g) => gates.has(g)), isFlipProne: stats.c > 0 && stats.c < stats.n };
  });
}

function figures(convs: readonly ConversationVerdict[]): Pick<LeaderRow, 'medianLatencyMs' | 'medianFirstAudioMs' | 'meanCostUsd'> {
  const present = (pick: (v: ConversationVerdict) => number | null): number[] => convs.flatMap((v) => pick(v) ?? []);
  const costs = present((v) => v.cost.cost_usd_est);
  return {
    medianLatencyMs: percentile(present((v) => v.quality.latency_p50_ms), 0.5),
    medianFirstAudioMs: percentile(present((v) => v.quality.first_agent_audio_ms), 0.5),
    meanCostUsd: costs.length ? costs.reduce((a, b) => a + b, 0) / costs.length : null,
  };
}

/** Control packs are left out of the scorer's leaderboard; the UI shows them unranked, computed the same way. */
function controlRows(report: ScoreReport): LeaderRow[] {
  const settings = { seed: report.meta.bootstrap.seed, resamples: report.meta.bootstrap.resamples, k: report.meta.k };
  const key = (x: { pack: string; pack_version: string | null; harness: string | null; model: string | null }): string => JSON.stringify([x.pack, x.pack_version, x.harness, x.model]);
  const groups = new Map<string, TaskStats[]>();
  for (const t of report.tasks) if (HEADLINE_EXCLUDED_PACKS.has(t.pack)) groups.set(key(t), [...(groups.get(key(t)) ?? []), t]);
  return [...groups.keys()].sort().map((k) => {
    const tasks = groups.get(k) ?? [];
    const first = tasks[0] as TaskStats;
    const metrics = groupMetrics(tasks, settings);
    const trials = metrics.scored + metrics.voids;
    const convs = report.conversations.filter((v) => key(v) === k);
    return { pack: first.pack, packVersion: first.pack_version, harness: first.harness, model: first.model, isControl: true, rank: null, metrics, ...figures(convs), isUnreliable: trials > 0 && metrics.voids / trials > 0.1 };
  });
}

function leaderRows(report: ScoreReport): LeaderRow[] {
  const ranked = report.leaderboard.flatMap((table) =>
    table.rows.map((r) => ({
      pack: table.pack,
      packVersion: table.pack_version,
      harness: r.harness,
      model: r.model,
      isControl: false,
      rank: r.rank,
      metrics: r.metrics,
      medianLatencyMs: r.latency_p50_ms,
      medianFirstAudioMs: r.median_first_agent_audio_ms,
      meanCostUsd: r.mean_cost_usd,
      isUnreliable: r.unreliable,
    })),
  );
  return [...ranked, ...controlRows(report)];
}

/** Builds the page model of a score report (the only computation the pages need; pure). */
export function buildReportModel(report: ScoreReport): ReportModel {
  const taskRows = buildTaskRows(report);
  const tasksBySlug = new Map<string, TaskRow[]>();
  for (const row of taskRows) tasksBySlug.set(row.slug, [...(tasksBySlug.get(row.slug) ?? []), row]);
  return {
    report,
    leaders: leaderRows(report),
    taskRows,
    tasksBySlug,
    conversations: new Map(report.conversations.map((v) => [v.conversation_id, v])),
    maxTrials: Math.max(1, ...taskRows.map((r) => r.trials.length)),
  };
}
