import { voidReasonSchema, type VoidReason } from '../snapshot/index.ts';
import { bootstrapIntervals, type BootstrapIntervals, type BootstrapSettings, type BootstrapUnit } from './bootstrap.ts';
import { flipRate, passAtK, passHatK } from './estimators.ts';
import type { VerdictRow } from './types.ts';

/** Packs scored but kept out of leaderboards and headline figures (the wiring smoke). */
export const HEADLINE_EXCLUDED_PACKS: ReadonlySet<string> = new Set(['control-industry']);

/** The label of the extrapolated column: never the headline (scoring.md §8.2). */
export const P_K_LABEL = 'p^k (extrapolated from pass@1)';

/** One task's trials for one (harness, model, pack version): n scored, c passes, voids by type. */
export interface TaskStats {
  readonly label: string;
  readonly pack: string;
  readonly pack_version: string | null;
  readonly harness: string | null;
  readonly model: string | null;
  readonly task_id: string;
  readonly category: string | null;
  readonly difficulty: string | null;
  readonly audio_condition: string | null;
  readonly n: number;
  readonly c: number;
  readonly voids: number;
  readonly voids_by_type: Readonly<Record<string, number>>;
  readonly reward_sum: number;
  readonly pass_hat_k: Readonly<Record<string, number | null>>;
  readonly pass_at_k: Readonly<Record<string, number | null>>;
  readonly flip_rate: number | null;
}

/** The metrics of scoring.md §8 over one population of tasks. */
export interface GroupMetrics {
  readonly tasks: number;
  readonly scored: number;
  readonly pass: number;
  readonly fail: number;
  readonly voids: number;
  readonly voids_by_type: Readonly<Record<string, number>>;
  readonly pass_at_1: number | null;
  /** Unweighted task mean of c/n; shown beside pass@1 when they differ. */
  readonly pass_hat_1_task_mean: number | null;
  readonly pass_hat_k: Readonly<Record<string, number | null>>;
  readonly pass_at_k: Readonly<Record<string, number | null>>;
  readonly p_k_extrapolated: { readonly label: string; readonly values: Readonly<Record<string, number | null>> };
  readonly left_out: Readonly<Record<string, readonly string[]>>;
  readonly mean_reward: number | null;
  readonly histogram: { readonly n: number; readonly counts: readonly number[]; readonly other: readonly { readonly task: string; readonly c: number; readonly n: number }[] };
  readonly flip: { readonly mean: number | null; readonly mixed_share: number | null };
  readonly ci: BootstrapIntervals;
}

function unitKey(v: VerdictRow): string {
  return JSON.stringify([v.pack, v.pack_version, v.harness, v.model, v.task_id]);
}

/**
 * A void with no summary (no pack version, maybe no harness) joins the one trial set of its pack
 * and task that agrees on what is known; ambiguous or unmatched ones keep a set of their own.
 */
function orphanUnit(v: VerdictRow, groups: ReadonlyMap<string, readonly VerdictRow[]>): string | undefined {
  const matches = [...groups.entries()].filter(([, list]) => {
    const first = list[0];
    return first && first.pack === v.pack && first.task_id === v.task_id && first.pack_version !== null && (v.harness === null || first.harness === v.harness) && (v.model === null || first.model === v.model);
  });
  return matches.length === 1 ? matches[0]?.[0] : undefined;
}

function emptyVoids(): Record<string, number> {
  return Object.fromEntries(voidReasonSchema.options.map((r) => [r, 0]));
}

function kRange(k: number): number[] {
  return Array.from({ length: k }, (_, i) => i + 1);
}

/** Groups scored and void conversations into per-task trial sets (UNMAPPED and PENDING have no task). */
export function taskStats(verdicts: readonly VerdictRow[], k: number): TaskStats[] {
  const groups = new Map<string, VerdictRow[]>();
  const counted = verdicts.filter((v) => v.task_id && (v.status === 'PASS' || v.status === 'FAIL' || v.status === 'VOID'));
  for (const v of counted) if (v.pack_version !== null) groups.set(unitKey(v), [...(groups.get(unitKey(v)) ?? []), v]);
  for (const v of counted) {
    if (v.pack_version !== null) continue;
    const key = orphanUnit(v, groups) ?? unitKey(v);
    groups.set(key, [...(groups.get(key) ?? []), v]);
  }
  return [...groups.keys()].sort().map((key) => {
    const list = groups.get(key) ?? [];
    const first = list[0] as VerdictRow;
    const n = list.filter((v) => v.status !== 'VOID').length;
    const c = list.filter((v) => v.status === 'PASS').length;
    const byType = emptyVoids();
    for (const v of list) if (v.void_reason) byType[v.void_reason] = (byType[v.void_reason] ?? 0) + 1;
    return {
      label: `${first.pack}/${first.task_id} [${first.harness ?? '-'}/${first.model ?? '-'}]`,
      pack: first.pack,
      pack_version: first.pack_version,
      harness: first.harness,
      model: first.model,
      task_id: first.task_id ?? '',
      category: first.category,
      difficulty: first.difficulty,
      audio_condition: first.audio_condition,
      n,
      c,
      voids: list.length - n,
      voids_by_type: byType,
      reward_sum: list.reduce((s, v) => s + (v.reward ?? 0), 0),
      pass_hat_k: Object.fromEntries(kRange(k).map((j) => [String(j), passHatK(n, c, j)])),
      pass_at_k: Object.fromEntries(kRange(k).map((j) => [String(j), passAtK(n, c, j)])),
      flip_rate: flipRate(n, c),
    };
  });
}

function meanOf(values: readonly (number | null)[]): number | null {
  const present = values.filter((v): v is number => v !== null);
  return present.length ? present.reduce((a, b) => a + b, 0) / present.length : null;
}

function bootstrapUnit(t: TaskStats, k: number): BootstrapUnit {
  return { n: t.n, c: t.c, rewardSum: t.reward_sum, passHat: kRange(k).map((j) => t.pass_hat_k[String(j)] ?? null), passAt: kRange(k).map((j) => t.pass_at_k[String(j)] ?? null) };
}

/** Computes every §8 metric over a set of tasks, with bootstrap intervals over the tasks. */
export function groupMetrics(tasks: readonly TaskStats[], settings: BootstrapSettings): GroupMetrics {
  const k = settings.k;
  const scored = tasks.reduce((s, t) => s + t.n, 0);
  const pass = tasks.reduce((s, t) => s + t.c, 0);
  const byType = emptyVoids();
  for (const t of tasks) for (const [r, count] of Object.entries(t.voids_by_type)) byType[r] = (byType[r] ?? 0) + count;
  const withTrials = tasks.filter((t) => t.n > 0);
  const passAt1 = scored ? pass / scored : null;
  const hist = new Array<number>(k + 1).fill(0);
  for (const t of tasks) if (t.n === k) hist[t.c] = (hist[t.c] ?? 0) + 1;
  return {
    tasks: tasks.length,
    scored,
    pass,
    fail: scored - pass,
    voids: tasks.reduce((s, t) => s + t.voids, 0),
    voids_by_type: byType,
    pass_at_1: passAt1,
    pass_hat_1_task_mean: meanOf(withTrials.map((t) => t.c / t.n)),
    pass_hat_k: Object.fromEntries(kRange(k).map((j) => [String(j), meanOf(tasks.map((t) => t.pass_hat_k[String(j)] ?? null))])),
    pass_at_k: Object.fromEntries(kRange(k).map((j) => [String(j), meanOf(tasks.map((t) => t.pass_at_k[String(j)] ?? null))])),
    p_k_extrapolated: { label: P_K_LABEL, values: Object.fromEntries(kRange(k).map((j) => [String(j), passAt1 === null ? null : passAt1 ** j])) },
    left_out: Object.fromEntries(kRange(k).map((j) => [String(j), tasks.filter((t) => t.n < j).map((t) => t.label)])),
    mean_reward: scored ? tasks.reduce((s, t) => s + t.reward_sum, 0) / scored : null,
    histogram: { n: k, counts: hist, other: tasks.filter((t) => t.n !== k).map((t) => ({ task: t.label, c: t.c, n: t.n })) },
    flip: { mean: meanOf(tasks.map((t) => t.flip_rate)), mixed_share: withTrials.length ? withTrials.filter((t) => t.c > 0 && t.c < t.n).length / withTrials.length : null },
    ci: bootstrapIntervals(tasks.map((t) => bootstrapUnit(t, k)), settings),
  };
}

/** Void counts by type over conversations (for the headline line, UNMAPPED and PENDING beside them). */
export function statusCounts(verdicts: readonly VerdictRow[]): { pass: number; fail: number; void: number; unmapped: number; pending: number; voids_by_type: Record<VoidReason, number> } {
  const voids = emptyVoids() as Record<VoidReason, number>;
  for (const v of verdicts) if (v.void_reason) voids[v.void_reason] += 1;
  const count = (s: VerdictRow['status']): number => verdicts.filter((v) => v.status === s).length;
  return { pass: count('PASS'), fail: count('FAIL'), void: count('VOID'), unmapped: count('UNMAPPED'), pending: count('PENDING'), voids_by_type: voids };
}
