/**
 * Paired comparison of two runs on the same tasks (docs/scoring.md, "Intervals and comparing runs"). The unit
 * is the task, as in the bootstrap: trials of one task are correlated, tasks are not. The verdict
 * is the per-task pass rate's: every trial counts, and the difference is significant exactly when
 * its 95% interval leaves out 0. pass^k's reading (a task passes only when every trial passed) has
 * its own exact McNemar test beside it. Pure and deterministic (the paired bootstrap uses the
 * pinned mulberry32 with the given seed).
 */
import type { Interval } from './bootstrap.ts';
import { collapsed, mulberry32, newcombeDifference, quantileSorted } from './estimators.ts';

/** The significance level and power every paired figure is stated at. */
export const PAIRED_ALPHA = 0.05;
export const PAIRED_POWER = 0.8;

/** One task in both runs: scored trials n and passes c on each side. */
export interface PairedTask {
  readonly task_id: string;
  readonly a: { readonly n: number; readonly c: number };
  readonly b: { readonly n: number; readonly c: number };
}

/** The 2×2 table of task outcomes, a task passing a run when every scored trial of it passed. */
export interface PairedTable {
  readonly tasks: number;
  readonly both: number;
  /** A passes, B does not (discordant in A's favour). */
  readonly a_only: number;
  readonly b_only: number;
  readonly neither: number;
}

/** How the rate difference's interval was computed. */
export type RateIntervalMethod = 'paired_bootstrap' | 'newcombe_wilson';

/** Everything the comparison page states about one pair of runs. */
export interface PairedComparison {
  /** pass^k's reading: the 2×2 table of tasks passed on every trial. */
  readonly table: PairedTable;
  /** Exact two-sided McNemar p over the table's discordant tasks; 1 when there are none (pass^k's comparison, not the verdict). */
  readonly mcnemar_p: number;
  /** Share of tasks A passes on every trial minus B's share (the same table). */
  readonly difference: number | null;
  /** The verdict's figure: mean over tasks of c_A/n_A − c_B/n_B (every trial counts). */
  readonly rate_difference: number | null;
  /** Its 95% interval over tasks: the paired bootstrap, or Newcombe–Wilson where the bootstrap has no width. */
  readonly rate_difference_ci: Interval;
  readonly rate_ci_method: RateIntervalMethod | null;
  /** True exactly when rate_difference_ci leaves out 0: the verdict and its interval are one computation. */
  readonly rate_significant: boolean;
  /** Observed discordance ψ = (a_only + b_only) / tasks. */
  readonly discordance: number | null;
  /** Smallest |difference| the exact test detects with 80% power at α 0.05, at the observed discordance; null when none can be. */
  readonly mdd: number | null;
  /** The smallest MDD over every discordance ψ: no smaller difference is detectable at this n. */
  readonly mdd_floor: number | null;
  /** Tasks left out because one side has no scored trial (every trial void). */
  readonly not_comparable: readonly string[];
}

/** A task's outcome in one run: it passes when every scored trial passed (c = n ≥ 1). */
export function taskPassed(side: { readonly n: number; readonly c: number }): boolean {
  return side.n > 0 && side.c === side.n;
}

const logFactorials: number[] = [0];

function logFactorial(n: number): number {
  for (let i = logFactorials.length; i <= n; i++) logFactorials.push((logFactorials[i - 1] ?? 0) + Math.log(i));
  return logFactorials[n] ?? 0;
}

/** P(X = k) for X ~ Binomial(n, p), computed in log space. */
export function binomialPmf(n: number, k: number, p: number): number {
  if (k < 0 || k > n) return 0;
  if (p <= 0) return k === 0 ? 1 : 0;
  if (p >= 1) return k === n ? 1 : 0;
  return Math.exp(logFactorial(n) - logFactorial(k) - logFactorial(n - k) + k * Math.log(p) + (n - k) * Math.log(1 - p));
}

/** P(X ≤ k) for X ~ Binomial(n, p). */
export function binomialCdf(n: number, k: number, p: number): number {
  let sum = 0;
  for (let i = 0; i <= Math.min(k, n); i++) sum += binomialPmf(n, i, p);
  return Math.min(1, sum);
}

/**
 * Exact McNemar test: under no difference each discordant task is equally likely to favour
 * either run, so the smaller count is Binomial(b + c, ½); p = min(1, 2·P(X ≤ min(b, c))).
 */
export function exactMcNemar(aOnly: number, bOnly: number): number {
  const m = aOnly + bOnly;
  if (m === 0) return 1;
  return Math.min(1, 2 * binomialCdf(m, Math.min(aOnly, bOnly), 0.5));
}

const boundsCache = new Map<string, readonly number[]>();

/** Per m = 0..tasks, the largest lower-tail count the exact test rejects at m discordant tasks (−1: none). */
function rejectionBounds(tasks: number, alpha: number): readonly number[] {
  const key = `${tasks}:${alpha}`;
  const cached = boundsCache.get(key);
  if (cached) return cached;
  const bounds = [-1];
  for (let m = 1; m <= tasks; m++) {
    let lo = -1;
    let cdf = 0;
    while (lo + 1 < m) {
      const next = cdf + binomialPmf(m, lo + 1, 0.5);
      if (2 * next > alpha) break;
      cdf = next;
      lo++;
    }
    bounds.push(lo);
  }
  boundsCache.set(key, bounds);
  return bounds;
}

/**
 * Exact power of the two-sided exact McNemar test over `tasks` tasks when a share ψ of tasks is
 * discordant and the pass rates differ by δ (0 ≤ δ ≤ ψ): the discordant count M is
 * Binomial(tasks, ψ) and, given M = m, the count favouring the better run is Binomial(m, (ψ+δ)/2ψ).
 */
export function mcnemarPower(tasks: number, psi: number, delta: number, alpha = PAIRED_ALPHA): number {
  if (psi <= 0 || tasks < 1) return 0;
  const q = Math.min(1, (psi + Math.min(delta, psi)) / (2 * psi));
  const bounds = rejectionBounds(tasks, alpha);
  let power = 0;
  for (let m = 1; m <= tasks; m++) {
    const lo = bounds[m] ?? -1;
    if (lo < 0) continue;
    const pm = binomialPmf(tasks, m, psi);
    if (pm < 1e-15) continue;
    // Reject when the count for the better run is ≥ m − lo or ≤ lo.
    power += pm * (binomialCdf(m, lo, q) + binomialCdf(m, lo, 1 - q));
  }
  return Math.min(1, power);
}

function bisect(reaches: (delta: number) => boolean, hi: number): number | null {
  if (!reaches(hi)) return null;
  let lo = 0;
  let top = hi;
  for (let i = 0; i < 40 && top - lo > 1e-5; i++) {
    const mid = (lo + top) / 2;
    if (reaches(mid)) top = mid;
    else lo = mid;
  }
  return top;
}

/**
 * Minimum detectable difference in task pass rate at this number of tasks: the smallest δ the
 * exact McNemar test finds with `power` at `alpha`, for discordance ψ; null when even δ = ψ
 * (every discordant task favouring one run) falls short.
 */
export function minimumDetectableDifference(tasks: number, psi: number, alpha = PAIRED_ALPHA, power = PAIRED_POWER): number | null {
  if (tasks < 1 || psi <= 0) return null;
  return bisect((d) => mcnemarPower(tasks, psi, d, alpha) >= power, Math.min(1, psi));
}

/** The best power any discordance gives a difference δ (ψ from δ to 1, on a grid of 41 points). */
export function bestPower(tasks: number, delta: number, alpha = PAIRED_ALPHA): number {
  let best = 0;
  for (let i = 0; i <= 40; i++) best = Math.max(best, mcnemarPower(tasks, delta + ((1 - delta) * i) / 40, delta, alpha));
  return best;
}

/** The floor over every discordance: no difference smaller than this is detectable at this n, whatever share of tasks is discordant. */
export function mddFloor(tasks: number, alpha = PAIRED_ALPHA, power = PAIRED_POWER): number | null {
  if (tasks < 1) return null;
  const key = `${tasks}:${alpha}:${power}`;
  if (!floorCache.has(key)) floorCache.set(key, bisect((d) => d > 0 && bestPower(tasks, d, alpha) >= power, 1));
  return floorCache.get(key) ?? null;
}

const floorCache = new Map<string, number | null>();

/** A percentile bootstrap interval of the mean of per-task differences (tasks resampled with replacement). */
export function pairedBootstrap(differences: readonly number[], seed: number, resamples: number): Interval {
  if (!differences.length || resamples < 1) return null;
  const random = mulberry32(seed);
  const means: number[] = [];
  for (let r = 0; r < resamples; r++) {
    let sum = 0;
    for (let i = 0; i < differences.length; i++) sum += differences[Math.floor(random() * differences.length)] ?? 0;
    means.push(sum / differences.length);
  }
  means.sort((x, y) => x - y);
  const lo = quantileSorted(means, 0.025);
  const hi = quantileSorted(means, 0.975);
  return lo === null || hi === null ? null : [lo, hi];
}

/**
 * The per-task pass-rate difference's interval: the paired bootstrap over tasks, unless every
 * resample gives the same mean (every task differs by the same amount: identical runs, or 0% vs
 * a run that passes each task once in five), where Newcombe's interval over the tasks, from each
 * run's Wilson interval, replaces it.
 */
export function rateDifferenceInterval(a: readonly number[], b: readonly number[], seed: number, resamples: number): { ci: Interval; method: RateIntervalMethod | null } {
  const n = Math.min(a.length, b.length);
  if (!n) return { ci: null, method: null };
  const boot = pairedBootstrap(a.slice(0, n).map((x, i) => x - (b[i] ?? 0)), seed, resamples);
  if (boot && !collapsed(boot)) return { ci: boot, method: 'paired_bootstrap' };
  const mean = (xs: readonly number[]): number => xs.slice(0, n).reduce((s, x) => s + x, 0) / n;
  return { ci: newcombeDifference(mean(a), mean(b), n), method: 'newcombe_wilson' };
}

/** True when an interval leaves out 0. */
export function excludesZero(ci: Interval): boolean {
  return ci !== null && (ci[0] > 0 || ci[1] < 0);
}

/** Compares two runs over the tasks both ran: the rate difference and its interval (the verdict), and pass^k's 2×2 table, exact test and MDD. */
export function comparePaired(tasks: readonly PairedTask[], settings: { readonly seed: number; readonly resamples: number }): PairedComparison {
  const comparable = tasks.filter((t) => t.a.n > 0 && t.b.n > 0);
  const count = (pick: (a: boolean, b: boolean) => boolean): number => comparable.filter((t) => pick(taskPassed(t.a), taskPassed(t.b))).length;
  const table: PairedTable = { tasks: comparable.length, both: count((a, b) => a && b), a_only: count((a, b) => a && !b), b_only: count((a, b) => !a && b), neither: count((a, b) => !a && !b) };
  const n = table.tasks;
  const rateA = comparable.map((t) => t.a.c / t.a.n);
  const rateB = comparable.map((t) => t.b.c / t.b.n);
  const rate = rateDifferenceInterval(rateA, rateB, settings.seed, settings.resamples);
  const psi = n ? (table.a_only + table.b_only) / n : null;
  return {
    table,
    mcnemar_p: exactMcNemar(table.a_only, table.b_only),
    difference: n ? (table.a_only - table.b_only) / n : null,
    rate_difference: n ? rateA.reduce((s, x, i) => s + x - (rateB[i] ?? 0), 0) / n : null,
    rate_difference_ci: rate.ci,
    rate_ci_method: rate.method,
    rate_significant: excludesZero(rate.ci),
    discordance: psi,
    mdd: psi === null ? null : minimumDetectableDifference(n, psi),
    mdd_floor: mddFloor(n),
    not_comparable: tasks.filter((t) => t.a.n === 0 || t.b.n === 0).map((t) => t.task_id),
  };
}
