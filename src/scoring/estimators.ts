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

/** mulberry32: the pinned bootstrap PRNG (scoring.md §8.4); returns floats in [0, 1). */
export function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Linear-interpolation (type 7) quantile of a sorted list. */
export function quantileSorted(sorted: readonly number[], p: number): number | null {
  if (!sorted.length) return null;
  const h = (sorted.length - 1) * p;
  const lo = Math.floor(h);
  const a = sorted[lo] ?? 0;
  const b = sorted[Math.min(lo + 1, sorted.length - 1)] ?? a;
  return a + (h - lo) * (b - a);
}
