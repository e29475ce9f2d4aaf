import { CALL_ID_PATTERN } from '../core/index.ts';
import {
  breakdowns,
  describeRun,
  groupMetrics,
  HEADLINE_EXCLUDED_PACKS,
  percentile,
  runIdOf,
  statusCounts,
  taskSetHash,
  taskStats,
  type BootstrapSettings,
  type Breakdowns,
  type ConversationVerdict,
  type GroupMetrics,
  type RunMeta,
  type ScoreReport,
  type TaskStats,
} from '../scoring/index.ts';
import type { Blueprint } from '../packs/index.ts';
import { seriesColour } from './charts.ts';
import { taskSlug, type TaskInfo } from './task-info.ts';

/** A gate that can fail, or `void` for an unmeasured trial (the grid's failing-gate filter). */
export type FailingGate = 'state' | 'tools' | 'handoff' | 'void';

/**
 * One run's conversations on one pack with one harness and model: the unit every figure is
 * computed over. Figures are never pooled across entries, so two harnesses (or two runs of one
 * harness) never share a headline.
 */
export interface Entry {
  readonly key: string;
  /** A short id for anchors and filters (`e1`, `e2`, … in run order). */
  readonly id: string;
  readonly run: RunMeta;
  readonly pack: string;
  readonly packVersion: string | null;
  readonly harness: string | null;
  readonly model: string | null;
  /** The run label, with harness/model added when the run has more than one entry. */
  readonly label: string;
  readonly isControl: boolean;
  readonly conversations: readonly ConversationVerdict[];
  readonly tasks: readonly TaskStats[];
  readonly metrics: GroupMetrics;
  readonly settings: BootstrapSettings;
  /** Pack, version and suite hash: entries with the same suite may be compared. */
  readonly suiteKey: string;
  readonly suiteLabel: string;
  /** Hash of the task ids run: entries are ranked only among entries over the same tasks. */
  readonly taskSetHash: string;
  readonly status: ReturnType<typeof statusCounts>;
  /** The run's colour on every chart of every page (by its place among the runs, sorted by id). */
  readonly colour: string;
}

/** One leaderboard row: an entry with its rank among entries on the same suite and task set. */
export interface LeaderRow {
  readonly entry: Entry;
  readonly pack: string;
  readonly packVersion: string | null;
  readonly harness: string | null;
  readonly model: string | null;
  /** A control pack: scored, shown, never ranked (scoring.md §8.5). */
  readonly isControl: boolean;
  readonly rank: number | null;
  /** The pass^k the ranking uses: the largest k every task of the rank group has trials for. */
  readonly k: number;
  readonly metrics: GroupMetrics;
  readonly medianLatencyMs: number | null;
  readonly medianFirstAudioMs: number | null;
  readonly meanCostUsd: number | null;
  readonly isUnreliable: boolean;
}

/** One task's trials for one entry: a row of the task grid. */
export interface TaskRow {
  readonly slug: string;
  readonly entry: Entry;
  readonly stats: TaskStats;
  readonly trials: readonly ConversationVerdict[];
  readonly failingGates: readonly FailingGate[];
  /** Trials disagree (0 < c < n): the task flips between pass and fail. */
  readonly isFlipProne: boolean;
}

/** Entries ranked together: same pack, version, suite and task set. */
export interface RankGroup {
  readonly key: string;
  readonly suiteKey: string;
  readonly suiteLabel: string;
  readonly taskSetHash: string;
  readonly tasks: number;
  readonly k: number;
  readonly rows: readonly LeaderRow[];
}

/** One verdict that differs between two scorings of the same conversation. */
export interface FlipRow {
  readonly before: ConversationVerdict;
  readonly after: ConversationVerdict;
}

/** Everything the pages read, computed once per set of scores. */
export interface ReportModel {
  /** The first report (settings, scorer version); kept for pages that show one scoring's meta. */
  readonly report: ScoreReport;
  readonly reports: readonly ScoreReport[];
  readonly runs: readonly RunMeta[];
  readonly entries: readonly Entry[];
  readonly leaders: readonly LeaderRow[];
  readonly groups: readonly RankGroup[];
  readonly taskRows: readonly TaskRow[];
  /** Task slug → its rows (one per entry). */
  readonly tasksBySlug: ReadonlyMap<string, readonly TaskRow[]>;
  readonly conversations: ReadonlyMap<string, ConversationVerdict>;
  /** Conversation id → its entry. */
  readonly entryOf: ReadonlyMap<string, Entry>;
  /** The most trials any row has: the grid's column count. */
  readonly maxTrials: number;
  /** The largest k of the scoring (pass^1 … pass^k are computed). */
  readonly k: number;
  /** What each task measures and its caller script, by task slug (from the packs, when they were read). */
  readonly taskInfo: ReadonlyMap<string, TaskInfo>;
  readonly blueprints: ReadonlyMap<string, Blueprint | null>;
  /** Verdict flips against an earlier scoring of the same snapshots; null when none was given. */
  readonly flips: { readonly rows: readonly FlipRow[]; readonly compared: number; readonly beforeMeta: ScoreReport['meta'] } | null;
  /** Where the scores came from, shown in page headers ("stored scores", "scored on demand"). */
  readonly origin: string | null;
}

/** Inputs of a results site: one or more scorings, optional run metadata, task facts and an earlier scoring. */
export interface RunSetInput {
  readonly reports: readonly ScoreReport[];
  /** run.json by run id (labels, caller kind and seed). */
  readonly runMeta?: ReadonlyMap<string, RunMeta>;
  readonly taskInfo?: ReadonlyMap<string, TaskInfo>;
  /** Each pack's blueprint, for drawing routes. */
  readonly blueprints?: ReadonlyMap<string, Blueprint | null>;
  /** An earlier scoring of the same conversations, for the verdict-flip view. */
  readonly before?: ScoreReport | null;
  readonly origin?: string | null;
}

/** Ids that may become a file or route name (the snapshot key alphabet). */
export const SAFE_ID = CALL_ID_PATTERN;

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

function figures(convs: readonly ConversationVerdict[]): Pick<LeaderRow, 'medianLatencyMs' | 'medianFirstAudioMs' | 'meanCostUsd'> {
  const present = (pick: (v: ConversationVerdict) => number | null): number[] => convs.flatMap((v) => pick(v) ?? []);
  const costs = present((v) => v.cost.cost_usd_est);
  return {
    medianLatencyMs: percentile(present((v) => v.quality.latency_p50_ms), 0.5),
    medianFirstAudioMs: percentile(present((v) => v.quality.first_agent_audio_ms), 0.5),
    meanCostUsd: costs.length ? costs.reduce((a, b) => a + b, 0) / costs.length : null,
  };
}

const entryKeyOf = (v: ConversationVerdict): string => JSON.stringify([runIdOf(v), v.pack, v.harness, v.model]);

function suiteOf(report: ScoreReport, pack: string, version: string | null): { key: string; label: string } {
  const meta = report.meta.packs.find((p) => p.id === pack && (version === null || p.pack_version === version));
  const hash = meta?.task_set_hash ?? null;
  return { key: JSON.stringify([pack, version, hash]), label: `${pack}@${version ?? '?'}${hash ? ` · suite ${hash}` : ''}` };
}

function buildEntries(input: RunSetInput): Entry[] {
  const seen = new Set<string>();
  const groups = new Map<string, { report: ScoreReport; convs: ConversationVerdict[] }>();
  for (const report of input.reports) {
    for (const v of report.conversations) {
      if (seen.has(v.conversation_id)) continue;
      seen.add(v.conversation_id);
      const group = groups.get(entryKeyOf(v)) ?? { report, convs: [] };
      group.convs.push(v);
      groups.set(entryKeyOf(v), group);
    }
  }
  const byRun = new Map<string, ConversationVerdict[]>();
  for (const { convs } of groups.values()) for (const v of convs) byRun.set(runIdOf(v), [...(byRun.get(runIdOf(v)) ?? []), v]);
  const runs = new Map<string, RunMeta>();
  for (const [runId, convs] of byRun) {
    const stored = input.runMeta?.get(runId);
    const report = groups.get(entryKeyOf(convs[0] as ConversationVerdict))?.report ?? input.reports[0];
    const suites = new Map((report?.meta.packs ?? []).map((p) => [p.id, { pack_version: p.pack_version, task_set_hash: p.task_set_hash }]));
    const derived = describeRun(runId, convs, { suites, scorerVersion: report?.meta.scorer_version ?? null, flags: report?.meta.flags ?? {} });
    runs.set(runId, stored ? { ...derived, label: stored.label, labelled: stored.labelled, caller: stored.caller } : derived);
  }
  const perRun = new Map<string, number>();
  for (const key of groups.keys()) perRun.set(JSON.parse(key)[0] as string, (perRun.get(JSON.parse(key)[0] as string) ?? 0) + 1);
  const keys = [...groups.keys()].sort();
  const runOrder = [...runs.keys()].sort();
  return keys.map((key, i) => {
    const { report, convs } = groups.get(key) as { report: ScoreReport; convs: ConversationVerdict[] };
    const first = convs.find((v) => v.pack_version !== null) ?? (convs[0] as ConversationVerdict);
    const runId = runIdOf(first);
    const run = runs.get(runId) as RunMeta;
    const settings: BootstrapSettings = { seed: report.meta.bootstrap.seed, resamples: report.meta.bootstrap.resamples, k: report.meta.k };
    const tasks = taskStats(convs, settings.k);
    const suite = suiteOf(report, first.pack, first.pack_version);
    const who = `${first.harness ?? '-'}/${first.model ?? '-'}`;
    return {
      key,
      id: `e${i + 1}`,
      run,
      pack: first.pack,
      packVersion: first.pack_version,
      harness: first.harness,
      model: first.model,
      label: (perRun.get(runId) ?? 1) > 1 ? `${run.label} · ${first.pack} ${who}` : run.label,
      isControl: HEADLINE_EXCLUDED_PACKS.has(first.pack),
      conversations: convs,
      tasks,
      metrics: groupMetrics(tasks, settings),
      settings,
      suiteKey: suite.key,
      suiteLabel: suite.label,
      taskSetHash: taskSetHash(tasks.map((t) => t.task_id)),
      status: statusCounts(convs),
      colour: seriesColour(runOrder.indexOf(runId)),
    };
  });
}

/** The largest k ≤ the scoring's k that every task with a scored trial allows (at least 1). */
export function allowedK(tasks: readonly TaskStats[], k: number): number {
  const ns = tasks.filter((t) => t.n > 0).map((t) => t.n);
  return Math.max(1, Math.min(k, ...(ns.length ? ns : [1])));
}

/** The ranking key: pass^k at the group's k, then pass@1, then mean reward (higher first). */
function rankValues(m: GroupMetrics, k: number): [number, number, number] {
  return [m.pass_hat_k[String(k)] ?? -1, m.pass_at_1 ?? -1, m.mean_reward ?? -1];
}

/** Ranks entries within each (suite, task set); entries with equal figures share a rank. */
function rankGroups(entries: readonly Entry[]): RankGroup[] {
  const byGroup = new Map<string, Entry[]>();
  for (const e of entries.filter((x) => x.tasks.length > 0)) {
    const key = JSON.stringify([e.isControl, e.suiteKey, e.taskSetHash]);
    byGroup.set(key, [...(byGroup.get(key) ?? []), e]);
  }
  return [...byGroup.entries()]
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([key, list]) => {
      const first = list[0] as Entry;
      const k = allowedK(list.flatMap((e) => e.tasks), first.settings.k);
      const sorted = [...list].sort((a, b) => {
        const [ah, a1, ar] = rankValues(a.metrics, k);
        const [bh, b1, br] = rankValues(b.metrics, k);
        return bh - ah || b1 - a1 || br - ar || (a.label < b.label ? -1 : 1);
      });
      let rank = 0;
      let previous = '';
      const rows = sorted.map((e, i) => {
        const values = JSON.stringify(rankValues(e.metrics, k));
        if (values !== previous) rank = i + 1;
        previous = values;
        const trials = e.metrics.scored + e.metrics.voids;
        return {
          entry: e,
          pack: e.pack,
          packVersion: e.packVersion,
          harness: e.harness,
          model: e.model,
          isControl: e.isControl,
          rank: e.isControl ? null : rank,
          k,
          metrics: e.metrics,
          ...figures(e.conversations),
          isUnreliable: trials > 0 && e.metrics.voids / trials > 0.1,
        };
      });
      return { key, suiteKey: first.suiteKey, suiteLabel: first.suiteLabel, taskSetHash: first.taskSetHash, tasks: first.tasks.length, k, rows };
    });
}

function buildTaskRows(entries: readonly Entry[]): TaskRow[] {
  return entries.flatMap((entry) => {
    const trials = new Map<string, ConversationVerdict[]>();
    const key = (x: { pack: string; pack_version: string | null; task_id: string | null }): string => JSON.stringify([x.pack, x.task_id]);
    for (const v of entry.conversations) if (v.task_id) trials.set(key(v), [...(trials.get(key(v)) ?? []), v]);
    return entry.tasks.map((stats) => {
      const list = [...(trials.get(key(stats)) ?? [])].filter((v) => v.pack_version === stats.pack_version || v.pack_version === null).sort((a, b) => (a.trial_index ?? 0) - (b.trial_index ?? 0) || (a.conversation_id < b.conversation_id ? -1 : 1));
      const gates = new Set(list.flatMap(failingGates));
      return { slug: taskSlug(stats.pack, stats.task_id), entry, stats, trials: list, failingGates: (['state', 'tools', 'handoff', 'void'] as const).filter((g) => gates.has(g)), isFlipProne: stats.c > 0 && stats.c < stats.n };
    });
  });
}

function verdictText(v: ConversationVerdict): string {
  return v.reward === null ? v.status : `${v.status} ${v.reward.toFixed(3)}`;
}

function buildFlips(before: ScoreReport, conversations: ReadonlyMap<string, ConversationVerdict>): ReportModel['flips'] {
  let compared = 0;
  const rows: FlipRow[] = [];
  for (const was of before.conversations) {
    const now = conversations.get(was.conversation_id);
    if (!now) continue;
    compared++;
    if (verdictText(was) !== verdictText(now)) rows.push({ before: was, after: now });
  }
  return { rows, compared, beforeMeta: before.meta };
}

/** The breakdowns (pack, category, difficulty, audio condition) of one entry. */
export function entryBreakdowns(entry: Entry): Breakdowns {
  return breakdowns(entry.tasks, entry.settings);
}

/** Builds the page model of one scoring or a set of them (the only computation the pages need; pure). */
export function buildReportModel(input: ScoreReport | RunSetInput): ReportModel {
  const set: RunSetInput = 'reports' in input ? input : { reports: [input] };
  const first = set.reports[0];
  if (!first) throw new Error('buildReportModel needs at least one score report');
  const entries = buildEntries(set);
  const groups = rankGroups(entries);
  const leaders = groups.flatMap((g) => g.rows).sort((a, b) => Number(a.isControl) - Number(b.isControl));
  const taskRows = buildTaskRows(entries);
  const tasksBySlug = new Map<string, TaskRow[]>();
  for (const row of taskRows) tasksBySlug.set(row.slug, [...(tasksBySlug.get(row.slug) ?? []), row]);
  const conversations = new Map<string, ConversationVerdict>();
  const entryOf = new Map<string, Entry>();
  for (const e of entries) for (const v of e.conversations) {
    conversations.set(v.conversation_id, v);
    entryOf.set(v.conversation_id, e);
  }
  const runs = [...new Map(entries.map((e) => [e.run.run_id, e.run])).values()];
  return {
    report: first,
    reports: set.reports,
    runs,
    entries,
    leaders,
    groups,
    taskRows,
    tasksBySlug,
    conversations,
    entryOf,
    maxTrials: Math.max(1, ...taskRows.map((r) => r.trials.length)),
    k: Math.max(...set.reports.map((r) => r.meta.k)),
    taskInfo: set.taskInfo ?? new Map(),
    blueprints: set.blueprints ?? new Map(),
    flips: set.before ? buildFlips(set.before, conversations) : null,
    origin: set.origin ?? null,
  };
}
