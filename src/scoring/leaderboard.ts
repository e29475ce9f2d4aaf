import { sha256Parts } from '../core/index.ts';
import { groupMetrics, HEADLINE_EXCLUDED_PACKS, type GroupMetrics, type TaskStats } from './aggregates.ts';
import type { BootstrapSettings } from './bootstrap.ts';
import { percentile } from './evidence.ts';
import type { VerdictRow } from './types.ts';

/** One breakdown row: a dimension's value and its metrics. */
export interface BreakdownRow {
  readonly value: string;
  /** True for a pack kept out of the headline (only in the `pack` breakdown). */
  readonly excluded_from_headline: boolean;
  readonly metrics: GroupMetrics;
}

/** Breakdowns by pack (every pack) and by category, difficulty and audio condition (headline population). */
export interface Breakdowns {
  readonly pack: readonly BreakdownRow[];
  readonly category: readonly BreakdownRow[];
  readonly difficulty: readonly BreakdownRow[];
  readonly audio_condition: readonly BreakdownRow[];
}

/** One leaderboard row: a (harness, model) on one pack version. */
export interface LeaderboardRow {
  readonly rank: number;
  readonly harness: string | null;
  readonly model: string | null;
  readonly metrics: GroupMetrics;
  readonly mean_flip_rate: number | null;
  readonly median_first_agent_audio_ms: number | null;
  readonly latency_p50_ms: number | null;
  readonly latency_p95_ms: number | null;
  readonly mean_cost_usd: number | null;
  readonly void_share: number | null;
  /** More than 10% of the row's trials are void (scoring.md §8.3). */
  readonly unreliable: boolean;
}

/** Rows that share a pack, pack version and task set, ranked by pass^k then pass@1. */
export interface LeaderboardTable {
  readonly pack: string;
  readonly pack_version: string | null;
  readonly task_set_hash: string;
  readonly rows: readonly LeaderboardRow[];
}

function groupBy<T>(items: readonly T[], keyOf: (item: T) => string): Map<string, T[]> {
  const out = new Map<string, T[]>();
  for (const item of items) out.set(keyOf(item), [...(out.get(keyOf(item)) ?? []), item]);
  return new Map([...out.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** Tasks that count toward headline figures (control packs left out). */
export function headlineTasks(tasks: readonly TaskStats[]): TaskStats[] {
  return tasks.filter((t) => !HEADLINE_EXCLUDED_PACKS.has(t.pack));
}

/** Breakdowns of scoring.md §8.5; the non-pack dimensions add up to the headline totals. */
export function breakdowns(tasks: readonly TaskStats[], settings: BootstrapSettings): Breakdowns {
  const headline = headlineTasks(tasks);
  const by = (list: readonly TaskStats[], pick: (t: TaskStats) => string | null, isPack = false): BreakdownRow[] =>
    [...groupBy(list, (t) => pick(t) ?? '(none)').entries()].map(([value, group]) => ({ value, excluded_from_headline: isPack && HEADLINE_EXCLUDED_PACKS.has(value), metrics: groupMetrics(group, settings) }));
  return {
    pack: by(tasks, (t) => t.pack, true),
    category: by(headline, (t) => t.category),
    difficulty: by(headline, (t) => t.difficulty),
    audio_condition: by(headline, (t) => t.audio_condition),
  };
}

function mean(values: readonly number[]): number | null {
  return values.length ? values.reduce((a, b) => a + b, 0) / values.length : null;
}

function leaderboardRow(tasks: readonly TaskStats[], convs: readonly VerdictRow[], settings: BootstrapSettings): Omit<LeaderboardRow, 'rank'> {
  const metrics = groupMetrics(tasks, settings);
  const present = (pick: (v: VerdictRow) => number | null): number[] => convs.flatMap((v) => pick(v) ?? []);
  const trials = metrics.scored + metrics.voids;
  const voidShare = trials ? metrics.voids / trials : null;
  return {
    harness: tasks[0]?.harness ?? null,
    model: tasks[0]?.model ?? null,
    metrics,
    mean_flip_rate: metrics.flip.mean,
    median_first_agent_audio_ms: percentile(present((v) => v.quality.first_agent_audio_ms), 0.5),
    latency_p50_ms: percentile(present((v) => v.quality.latency_p50_ms), 0.5),
    latency_p95_ms: percentile(present((v) => v.quality.latency_p95_ms), 0.95),
    mean_cost_usd: mean(present((v) => v.cost.cost_usd_est)),
    void_share: voidShare,
    unreliable: voidShare !== null && voidShare > 0.1,
  };
}

function rankKey(row: Omit<LeaderboardRow, 'rank'>, k: number): [number, number, string] {
  return [row.metrics.pass_hat_k[String(k)] ?? -1, row.metrics.pass_at_1 ?? -1, `${row.harness}/${row.model}`];
}

/** The leaderboard of scoring.md §8.5: one row per (harness, model, pack version), control packs excluded. */
export function leaderboard(tasks: readonly TaskStats[], verdicts: readonly VerdictRow[], settings: BootstrapSettings): LeaderboardTable[] {
  const rowKey = (t: { harness: string | null; model: string | null; pack: string; pack_version: string | null }): string => JSON.stringify([t.pack, t.pack_version, t.harness, t.model]);
  const rows = groupBy(headlineTasks(tasks), rowKey);
  const convs = groupBy(verdicts, rowKey);
  const built = [...rows.entries()].map(([key, list]) => ({
    pack: list[0]?.pack ?? '',
    pack_version: list[0]?.pack_version ?? null,
    task_set_hash: sha256Parts([...new Set(list.map((t) => t.task_id))].sort()).slice(0, 16),
    row: leaderboardRow(list, convs.get(key) ?? [], settings),
  }));
  const tables = groupBy(built, (b) => JSON.stringify([b.pack, b.pack_version, b.task_set_hash]));
  return [...tables.values()].map((group) => {
    const sorted = group.map((g) => g.row).sort((a, b) => {
      const [ah, a1, an] = rankKey(a, settings.k);
      const [bh, b1, bn] = rankKey(b, settings.k);
      return bh - ah || b1 - a1 || (an < bn ? -1 : an > bn ? 1 : 0);
    });
    const first = group[0];
    return { pack: first?.pack ?? '', pack_version: first?.pack_version ?? null, task_set_hash: first?.task_set_hash ?? '', rows: sorted.map((r, i) => ({ rank: i + 1, ...r })) };
  });
}
