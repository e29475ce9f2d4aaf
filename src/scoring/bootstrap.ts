import { collapsed, mulberry32, quantileSorted, wilsonInterval } from './estimators.ts';

/** A task's contribution to the resampled statistics. */
export interface BootstrapUnit {
  readonly n: number;
  readonly c: number;
  readonly rewardSum: number;
  /** Per k = 1..K: pass^k and pass@k, null when n < k. */
  readonly passHat: readonly (number | null)[];
  readonly passAt: readonly (number | null)[];
}

/** A 95% interval (percentile bootstrap, or Wilson where the bootstrap collapses); null when no resample could compute the statistic. */
export type Interval = readonly [number, number] | null;

/** Intervals for every headline statistic. */
export interface BootstrapIntervals {
  readonly pass_at_1: Interval;
  readonly mean_reward: Interval;
  readonly pass_hat_k: Readonly<Record<string, Interval>>;
  readonly pass_at_k: Readonly<Record<string, Interval>>;
}

/** The bootstrap settings recorded in the output. */
export interface BootstrapSettings {
  readonly seed: number;
  readonly resamples: number;
  readonly k: number;
}

/** The pinned algorithm name recorded with seed and B; changing it bumps the scorer version. */
export const BOOTSTRAP_PRNG = 'mulberry32';

/**
 * The 95% percentile interval of the resampled values over `tasks` tasks. When every task has the
 * same value (all fail, all pass, or all at the same rate) every resample is equal and the
 * percentile interval has no width; the Wilson score interval over the tasks replaces it, counting
 * each task once (trials of a task may be fully correlated, so no more is known).
 */
function interval(samples: readonly number[], tasks: number): Interval {
  if (!samples.length) return null;
  // A typed array sorts numerically without a comparator call per step; the values are finite and never -0, so the order is the same.
  const sorted = Float64Array.from(samples).sort();
  const lo = quantileSorted(sorted, 0.025);
  const hi = quantileSorted(sorted, 0.975);
  if (lo === null || hi === null) return null;
  return collapsed([lo, hi]) ? wilsonInterval(lo, tasks) : [lo, hi];
}

/** The pool as flat columns (a resample reads them millions of times); a null pass^k is NaN and skipped, as before. */
interface Columns {
  readonly size: number;
  readonly n: Float64Array;
  readonly c: Float64Array;
  readonly reward: Float64Array;
  readonly hat: Float64Array;
  readonly at: Float64Array;
}

function columnsOf(pool: readonly BootstrapUnit[], k: number): Columns {
  const cols = { size: pool.length, n: new Float64Array(pool.length), c: new Float64Array(pool.length), reward: new Float64Array(pool.length), hat: new Float64Array(pool.length * k), at: new Float64Array(pool.length * k) };
  pool.forEach((u, i) => {
    cols.n[i] = u.n;
    cols.c[i] = u.c;
    cols.reward[i] = u.rewardSum;
    for (let j = 0; j < k; j++) {
      cols.hat[i * k + j] = u.passHat[j] ?? NaN;
      cols.at[i * k + j] = u.passAt[j] ?? 0;
    }
  });
  return cols;
}

/** Running sums of one resample, reused across resamples. */
interface Sums {
  readonly hat: Float64Array;
  readonly at: Float64Array;
  readonly eligible: Float64Array;
}

/** One resample: draws `size` tasks with replacement and adds them up in draw order (the same sums, in the same order, as one task object at a time). */
function resampleOnce(cols: Columns, k: number, random: () => number, sums: Sums, out: Pick<SampleLists, 'pass1' | 'reward' | 'hat' | 'at'>): void {
  let n = 0;
  let c = 0;
  let reward = 0;
  sums.hat.fill(0);
  sums.at.fill(0);
  sums.eligible.fill(0);
  for (let i = 0; i < cols.size; i++) {
    const u = Math.floor(random() * cols.size);
    n += cols.n[u] as number;
    c += cols.c[u] as number;
    reward += cols.reward[u] as number;
    for (let j = 0; j < k; j++) {
      const hat = cols.hat[u * k + j] as number;
      if (Number.isNaN(hat)) continue;
      sums.hat[j] = (sums.hat[j] as number) + hat;
      sums.at[j] = (sums.at[j] as number) + (cols.at[u * k + j] as number);
      sums.eligible[j] = (sums.eligible[j] as number) + 1;
    }
  }
  out.pass1.push(c / n);
  out.reward.push(reward / n);
  for (let j = 0; j < k; j++) {
    const eligible = sums.eligible[j] as number;
    if (!eligible) continue;
    out.hat[j]?.push((sums.hat[j] as number) / eligible);
    out.at[j]?.push((sums.at[j] as number) / eligible);
  }
}

interface SampleLists {
  readonly pass1: number[];
  readonly reward: number[];
  readonly hat: number[][];
  readonly at: number[][];
}

/**
 * 95% percentile bootstrap over tasks (trials of one task are correlated, so conversations are
 * never resampled alone): each resample draws tasks with replacement and recomputes every statistic.
 */
export function bootstrapIntervals(units: readonly BootstrapUnit[], settings: BootstrapSettings): BootstrapIntervals {
  const pool = units.filter((u) => u.n > 0);
  const k = settings.k;
  const lists: SampleLists = { pass1: [], reward: [], hat: Array.from({ length: k }, () => []), at: Array.from({ length: k }, () => []) };
  const cols = columnsOf(pool, k);
  const sums: Sums = { hat: new Float64Array(k), at: new Float64Array(k), eligible: new Float64Array(k) };
  const random = mulberry32(settings.seed);
  for (let b = 0; pool.length && b < settings.resamples; b++) resampleOnce(cols, k, random, sums, lists);
  // pass^k and pass@k leave out tasks with fewer than k trials: their Wilson fallback counts only the tasks that have k.
  const eligible = (j: number): number => pool.filter((u) => u.passHat[j] !== null && u.passHat[j] !== undefined).length;
  const perK = (lists: number[][]): Record<string, Interval> => Object.fromEntries(lists.map((list, j) => [String(j + 1), interval(list, eligible(j))]));
  return { pass_at_1: interval(lists.pass1, pool.length), mean_reward: interval(lists.reward, pool.length), pass_hat_k: perK(lists.hat), pass_at_k: perK(lists.at) };
}
