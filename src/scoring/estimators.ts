/**
 * The per-task reliability estimators of scoring.md §8.1, from n scored trials with c passes.
 * Products of ratios avoid huge binomials and stay exact for small n.
 */

/** Unbiased pass^k = C(c,k)/C(n,k); null when n < k (the task is left out). */
export function passHatK(n: number, c: number, k: number): number | null {
  if (n < k || k < 1) return null;
  let p = 1;
  for (let i = 0; i < k; i++) p *= Math.max(0, c - i) / (n - i);
  return p;
}

/** pass@k = 1 − C(n−c,k)/C(n,k); null when n < k. */
export function passAtK(n: number, c: number, k: number): number | null {
  if (n < k || k < 1) return null;
  let q = 1;
  for (let i = 0; i < k; i++) q *= Math.max(0, n - c - i) / (n - i);
  return 1 - q;
}

/** Flip rate c(n−c)/C(n,2): the chance two distinct trials disagree; null below two trials. */
export function flipRate(n: number, c: number): number | null {
  return n < 2 ? null : (c * (n - c)) / ((n * (n - 1)) / 2);
}

/** The pinned bootstrap PRNG (scoring.md §8.4): core's one seeded random source. */
export { mulberry32 } from '../core/index.ts';

/** Linear-interpolation (type 7) quantile of a sorted list. */
export function quantileSorted(sorted: ArrayLike<number>, p: number): number | null {
  if (!sorted.length) return null;
  const h = (sorted.length - 1) * p;
  const lo = Math.floor(h);
  const a = sorted[lo] ?? 0;
  const b = sorted[Math.min(lo + 1, sorted.length - 1)] ?? a;
  return a + (h - lo) * (b - a);
}

/** The two-sided 95% normal quantile every interval here is stated at. */
export const Z_95 = 1.959963984540054;

/**
 * Wilson score interval of a proportion p over n units: never collapses at 0 or 1 (0 of 72 gives
 * [0, 0.051]). The units are tasks, so a fraction p of them may be fractional (a task mean).
 */
export function wilsonInterval(p: number, n: number, z = Z_95): readonly [number, number] {
  if (n <= 0) return [0, 1];
  const q = Math.min(1, Math.max(0, p));
  const z2 = (z * z) / n;
  const centre = (q + z2 / 2) / (1 + z2);
  const half = (z / (1 + z2)) * Math.sqrt((q * (1 - q)) / n + z2 / (4 * n));
  // At 0 and 1 the bound on that side is exact (rounding would leave 3e-18).
  return [q === 0 ? 0 : Math.max(0, centre - half), q === 1 ? 1 : Math.min(1, centre + half)];
}

/**
 * Newcombe's hybrid score interval of pA − pB from each side's Wilson interval over n units: the
 * distance from each estimate to its own bounds is combined in quadrature. It ignores the
 * pairing, which for runs on the same tasks (positively correlated) only widens it.
 */
export function newcombeDifference(pA: number, pB: number, n: number, z = Z_95): readonly [number, number] {
  const [loA, hiA] = wilsonInterval(pA, n, z);
  const [loB, hiB] = wilsonInterval(pB, n, z);
  const d = pA - pB;
  return [d - Math.hypot(pA - loA, hiB - pB), d + Math.hypot(hiA - pA, pB - loB)];
}

/** True when an interval has (numerically) no width: every resample gave the same value. */
export function collapsed(interval: readonly [number, number]): boolean {
  return interval[1] - interval[0] < 1e-12;
}
