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
function interval(samples: number[], tasks: number): Interval {
  if (!samples.length) return null;
  samples.sort((a, b) => a - b);
  const lo = quantileSorted(samples, 0.025);
  const hi = quantileSorted(samples, 0.975);
  if (lo === null || hi === null) return null;
  return collapsed([lo, hi]) ? wilsonInterval(lo, tasks) : [lo, hi];
}

interface Resample {
  readonly pass1: number;
  readonly reward: number;
  readonly hat: readonly (number | null)[];
  readonly at: readonly (number | null)[];
}

function resampleOnce(pool: readonly BootstrapUnit[], k: number, random: () => number): Resample {
  let n = 0;
  let c = 0;
  let reward = 0;
  const hatSum = new Array<number>(k).fill(0);
  const atSum = new Array<number>(k).fill(0);
  const eligible = new Array<number>(k).fill(0);
  for (let i = 0; i < pool.length; i++) {
    const u = pool[Math.floor(random() * pool.length)] as BootstrapUnit;
    n += u.n;
    c += u.c;
    reward += u.rewardSum;
    for (let j = 0; j < k; j++) {
      const hat = u.passHat[j];
      if (hat === null || hat === undefined) continue;
      hatSum[j] = (hatSum[j] ?? 0) + hat;
      atSum[j] = (atSum[j] ?? 0) + (u.passAt[j] ?? 0);
      eligible[j] = (eligible[j] ?? 0) + 1;
    }
  }
  const mean = (sums: number[]): (number | null)[] => sums.map((s, j) => ((eligible[j] ?? 0) ? s / (eligible[j] ?? 1) : null));
  return { pass1: c / n, reward: reward / n, hat: mean(hatSum), at: mean(atSum) };
}

/**
 * 95% percentile bootstrap over tasks (trials of one task are correlated, so conversations are
 * never resampled alone): each resample draws tasks with replacement and recomputes every statistic.
 */
export function bootstrapIntervals(units: readonly BootstrapUnit[], settings: BootstrapSettings): BootstrapIntervals {
  const pool = units.filter((u) => u.n > 0);
  const k = settings.k;
  const pass1: number[] = [];
  const reward: number[] = [];
  const hat = Array.from({ length: k }, () => [] as number[]);
  const at = Array.from({ length: k }, () => [] as number[]);
  const random = mulberry32(settings.seed);
  for (let b = 0; pool.length && b < settings.resamples; b++) {
    const r = resampleOnce(pool, k, random);
    pass1.push(r.pass1);
    reward.push(r.reward);
    r.hat.forEach((v, j) => v !== null && hat[j]?.push(v));
    r.at.forEach((v, j) => v !== null && at[j]?.push(v));
  }
  // pass^k and pass@k leave out tasks with fewer than k trials: their Wilson fallback counts only the tasks that have k.
  const eligible = (j: number): number => pool.filter((u) => u.passHat[j] !== null && u.passHat[j] !== undefined).length;
  const perK = (lists: number[][]): Record<string, Interval> => Object.fromEntries(lists.map((list, j) => [String(j + 1), interval(list, eligible(j))]));
  return { pass_at_1: interval(pass1, pool.length), mean_reward: interval(reward, pool.length), pass_hat_k: perK(hat), pass_at_k: perK(at) };
}
