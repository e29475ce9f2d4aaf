/** Shared number and label formatting for the terminal table and the HTML report. */

/** A rate as a fixed three-decimal string, or an em dash when not computable. */
export function formatRate(value: number | null | undefined): string {
  return value === null || value === undefined || !Number.isFinite(value) ? '—' : value.toFixed(3);
}

/** A 95% interval as `[lo, hi]`, or empty when absent. */
export function formatInterval(interval: readonly [number, number] | null | undefined): string {
  return interval ? `[${interval[0].toFixed(3)}, ${interval[1].toFixed(3)}]` : '';
}

/** Void counts by type, e.g. `3 void: 2 no_agent_audio, 1 provider_error` (zero types left out). */
export function formatVoids(total: number, byType: Readonly<Record<string, number>>): string {
  const parts = Object.entries(byType)
    .filter(([, n]) => n > 0)
    .map(([type, n]) => `${n} ${type}`);
  return parts.length ? `${total} void: ${parts.join(', ')}` : `${total} void`;
}

/** The headline sentence of scoring.md §8.3: pass@1 with the scored count and voids beside it. */
export function formatHeadline(m: { pass_at_1: number | null; scored: number; voids: number; voids_by_type: Readonly<Record<string, number>> }, unmapped: number, pending: number): string {
  return `pass@1 ${formatRate(m.pass_at_1)} (n=${m.scored} scored; ${formatVoids(m.voids, m.voids_by_type)}; ${unmapped} unmapped; ${pending} pending)`;
}
