import type { Summary, TimelineEvent } from '../snapshot/index.ts';
import type { CostFigures, Evidence, QualityFigures } from './types.ts';

/** Nearest-rank percentile of a list of numbers; null when empty. */
export function percentile(values: readonly number[], p: number): number | null {
  if (!values.length) return null;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))] ?? null;
}

/** Response latencies: each caller utterance's end to the start of the next agent utterance, in ms. */
export function responseLatencies(events: readonly TimelineEvent[]): number[] {
  const out: number[] = [];
  let callerDoneAt: number | null = null;
  for (const e of events) {
    if (e.type === 'speech.completed' && e.side === 'caller') callerDoneAt = e.at_ms;
    if (e.type === 'speech.started' && e.side === 'agent' && callerDoneAt !== null) {
      out.push(Math.max(0, e.at_ms - callerDoneAt));
      callerDoneAt = null;
    }
  }
  return out;
}

const SMOKE_CHECKS = [
  ['both_sides_spoke', (s: Summary['smoke']) => s.both_sides_spoke],
  ['tools_recorded', (s: Summary['smoke']) => s.tools_recorded !== false],
  ['trace_id_present', (s: Summary['smoke']) => s.trace_id_present !== false],
  ['dead_air_ok', (s: Summary['smoke']) => s.dead_air_ok],
  ['clean_audio', (s: Summary['smoke']) => s.clean_audio],
  ['first_audio_ok', (s: Summary['smoke']) => s.first_audio_ok],
] as const;

/** Smoke rubric and latency figures (diagnostics beside the verdict, scoring.md §10). */
export function qualityOf(summary: Summary | null, events: readonly TimelineEvent[] | null): QualityFigures {
  const latencies = events ? responseLatencies(events) : [];
  const smoke = summary?.smoke;
  return {
    smoke_pass: smoke ? smoke.pass : null,
    smoke_failed: smoke ? SMOKE_CHECKS.filter(([, ok]) => !ok(smoke)).map(([name]) => name) : [],
    first_agent_audio_ms: smoke?.first_agent_audio_ms ?? null,
    dead_air_max_s: smoke?.dead_air_max_s ?? null,
    outbound_dropouts: smoke?.outbound_dropouts ?? null,
    clipping_events: smoke?.clipping_events ?? null,
    latency_p50_ms: percentile(latencies, 0.5),
    latency_p95_ms: percentile(latencies, 0.95),
  };
}

/** Token usage and cost from the summary. */
export function costOf(summary: Summary | null): CostFigures {
  return {
    input_tokens: summary?.usage.input_tokens ?? null,
    output_tokens: summary?.usage.output_tokens ?? null,
    cost_usd_est: summary?.cost_usd_est ?? null,
    cost_note: summary?.cost_note ?? null,
    price_table_version: summary?.price_table_version ?? null,
  };
}

function traceStep(e: TimelineEvent): string | null {
  if (e.type === 'handoff') return `${e.from}>${e.to}`;
  if (e.type !== 'tool' || e.kind === 'handoff') return null;
  if (!e.executed) return `${e.agent}:${e.name} refused ${e.refusal ?? ''}`.trim();
  const ok = e.output.ok === true ? 'ok' : `err ${typeof e.output.error_code === 'string' ? e.output.error_code : ''}`.trim();
  return `${e.agent}:${e.name} ${ok}`;
}

/** The compact ordered trace (`reception>identity; identity:verify_identity ok`) and the transcript. */
export function evidenceOf(summary: Summary | null, events: readonly TimelineEvent[] | null, uris: { snapshot: string | null; audio: string | null }): Evidence {
  const list = events ?? [];
  return {
    trace_id: summary?.trace_id ?? null,
    trace: list.flatMap((e) => traceStep(e) ?? []).join('; '),
    transcript: list.flatMap((e) => (e.type === 'transcript' ? [`${e.side}: ${e.text}`] : [])).join('\n'),
    snapshot_uri: uris.snapshot,
    audio_uri: uris.audio,
  };
}
