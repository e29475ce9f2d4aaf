/** Latency summary of a sample, in milliseconds. */
export interface LatencySummary {
  readonly n: number;
  readonly p50: number;
  readonly p99: number;
  readonly max: number;
  readonly mean: number;
}

/** The value at quantile q (0..1) of a sorted sample, nearest rank. */
export function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return 0;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[rank] ?? 0;
}

/** Summarises latencies (ms) rounded to microseconds. */
export function summarize(samples: readonly number[]): LatencySummary {
  const sorted = [...samples].sort((a, b) => a - b);
  const round = (v: number): number => Math.round(v * 1000) / 1000;
  const mean = sorted.reduce((s, v) => s + v, 0) / Math.max(1, sorted.length);
  return { n: sorted.length, p50: round(quantile(sorted, 0.5)), p99: round(quantile(sorted, 0.99)), max: round(sorted.at(-1) ?? 0), mean: round(mean) };
}

/** Percent of samples above a threshold, to two decimals. */
export function percentAbove(samples: readonly number[], threshold: number): number {
  if (samples.length === 0) return 0;
  return Math.round((samples.filter((v) => v > threshold).length / samples.length) * 10_000) / 100;
}
