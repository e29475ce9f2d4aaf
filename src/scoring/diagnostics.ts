/**
 * Diagnostics on every conversation (scoring.md §10.1): per-turn response latency, barge-in stop
 * time, whether the answers the caller asked for were said aloud, transcript quality, and the
 * duplex acts (`duplex-diagnostics.ts`). They
 * sit beside the verdict; no gate, pass or reward reads them. Pure functions of the snapshot.
 */
import type { Pack, Task } from '../packs/index.ts';
import type { CallerFile, FinalState, TimelineEvent } from '../snapshot/index.ts';
import { duplexChecks } from './duplex-diagnostics.ts';
import { percentile, responseLatencies } from './evidence.ts';
import { caseFold, normalise } from './normalisers.ts';
import type { Diagnostics, DuplexCheck, SaidAloudCheck, VerdictRow } from './types.ts';

/** Each barge-in's stop time: from the caller's last speech start before it to the cut utterance's end. */
export function bargeInStops(events: readonly TimelineEvent[]): number[] {
  const out: number[] = [];
  for (const b of events) {
    if (b.type !== 'barge_in') continue;
    const start = events.filter((e) => e.type === 'speech.started' && e.side === 'caller' && e.at_ms <= b.at_ms).at(-1);
    const stop = events.find((e) => e.type === 'speech.completed' && e.side === 'agent' && e.utterance_id === b.utterance_id);
    if (start && stop) out.push(Math.max(0, stop.at_ms - start.at_ms));
  }
  return out;
}

/** The agent's next speech after an event: its transcripts until the caller speaks again. */
function nextAgentSpeech(events: readonly TimelineEvent[], afterSeq: number): string {
  const said: string[] = [];
  for (const e of events) {
    if (e.seq <= afterSeq || e.type !== 'transcript') continue;
    if (e.side === 'caller' && said.length) break;
    if (e.side === 'agent') said.push(e.text);
  }
  return said.join(' ');
}

/** Text as compared for said-aloud: the scorer's case fold, `_` and `-` read as spaces, other punctuation dropped. */
function spoken(text: string): string {
  return ` ${caseFold(text.replace(/[_-]/g, ' ').replace(/[^\p{L}\p{N}$., ]/gu, ' ').replace(/[.,](?!\d)/g, ' '))} `;
}

/** Whether the speech carries a value: a text as whole words, a number as any figure said (a `_cents` field as dollars). */
export function carriesValue(speech: string, key: string, value: string | number): boolean {
  if (typeof value === 'string') return spoken(speech).includes(spoken(value));
  const figures = speech.match(/\$?\d[\d,]*(?:\.\d{1,2})?/g) ?? [];
  if (key.endsWith('_cents')) return figures.some((f) => normalise('money_cents', f.includes('$') || f.includes('.') ? f : `$${f}`).value === value);
  return figures.some((f) => normalise('number', f.replace(/[$,]/g, '')).value === value);
}

type ToolEvent = Extract<TimelineEvent, { type: 'tool' }>;

function okData(e: ToolEvent | undefined): Record<string, unknown> {
  const data = e?.output.ok === true ? e.output.data : undefined;
  return data !== null && typeof data === 'object' ? (data as Record<string, unknown>) : {};
}

/**
 * The said-aloud check: for each call the task expects because it answers the caller
 * (`why.because: answers_caller`) of a read tool, the key values are the text and number fields the
 * task's expected output names; each is looked up in the call's actual output (the n-th expected
 * call of a tool in its n-th successful call; the task's value when there is none) and in the
 * agent's next speech after that call.
 */
export function saidAloud(task: Task | undefined, pack: Pack | undefined, events: readonly TimelineEvent[]): SaidAloudCheck[] {
  if (!task || !pack) return [];
  const checks: SaidAloudCheck[] = [];
  const seen = new Map<string, number>();
  for (const expected of task.exp_tool_calls) {
    // The n-th expected call of a tool is looked up in its n-th successful call.
    const nth = seen.get(expected.name) ?? 0;
    seen.set(expected.name, nth + 1);
    const tool = pack.module.tools.find((t) => t.name === expected.name);
    if (expected.why?.because !== 'answers_caller' || tool?.effect !== 'read') continue;
    const call = events.filter((e): e is ToolEvent => e.type === 'tool' && e.name === expected.name && e.executed && e.output.ok === true)[nth];
    const actual = okData(call);
    const speech = call ? nextAgentSpeech(events, call.seq) : '';
    for (const [key, named] of Object.entries(expected.output?.data ?? {})) {
      const value = actual[key] ?? named;
      if (typeof value !== 'string' && typeof value !== 'number') continue;
      checks.push({ tool: expected.name, key, value, said: call !== undefined && carriesValue(speech, key, value) });
    }
  }
  return checks;
}

function words(text: string): string[] {
  return spoken(text).trim().split(' ').filter(Boolean);
}

/** Word-level edit distance (substitutions, insertions, deletions). */
function editDistance(ref: readonly string[], hyp: readonly string[]): number {
  let row = Array.from({ length: hyp.length + 1 }, (_, j) => j);
  for (let i = 1; i <= ref.length; i++) {
    const next = [i];
    for (let j = 1; j <= hyp.length; j++) next.push(Math.min((row[j] ?? 0) + 1, (next[j - 1] ?? 0) + 1, (row[j - 1] ?? 0) + (ref[i - 1] === hyp[j - 1] ? 0 : 1)));
    row = next;
  }
  return row[hyp.length] ?? 0;
}

/**
 * Transcript quality where two transcripts of the agent exist: the provider's (timeline
 * `transcript` events) against what the caller's ears heard (`caller.json` agent turns, only when
 * the caller had ears), over the utterances both hold: word error rate, four decimals.
 */
export function transcriptWer(events: readonly TimelineEvent[], caller: CallerFile | null | undefined): number | null {
  if (!caller?.ears) return null;
  const provider = new Map<string, string>();
  for (const e of events) if (e.type === 'transcript' && e.side === 'agent' && e.utterance_id) provider.set(e.utterance_id, `${provider.get(e.utterance_id) ?? ''} ${e.text}`);
  let errors = 0;
  let total = 0;
  for (const turn of caller.turns) {
    const ref = turn.side === 'agent' && turn.utterance_id ? provider.get(turn.utterance_id) : undefined;
    if (ref === undefined) continue;
    const refWords = words(ref);
    errors += editDistance(refWords, words(turn.text));
    total += refWords.length;
  }
  return total ? Math.round((errors / total) * 10_000) / 10_000 : null;
}

/** Every diagnostic of one conversation; judge scores stay null (only `mivas score --judge` adds them). */
export function diagnosticsOf(
  events: readonly TimelineEvent[] | null,
  caller: CallerFile | null | undefined,
  task: Task | undefined,
  pack: Pack | undefined,
  final: FinalState | null = null,
): Diagnostics {
  const list = events ?? [];
  return { turn_latencies_ms: responseLatencies(list), barge_in_stops_ms: bargeInStops(list), said_aloud: saidAloud(task, pack, list), transcript_wer: transcriptWer(list, caller), judge: null, duplex: duplexChecks(list, caller, task, final) };
}

/** A run's diagnostics in one place (scores.json `aggregates.diagnostics`, the terminal summary); never part of a headline. */
export interface DiagnosticsSummary {
  readonly turns: number;
  readonly latency_p50_ms: number | null;
  readonly latency_p95_ms: number | null;
  readonly barge_in_stop_max_ms: number | null;
  readonly said_aloud_checked: number;
  readonly said_aloud_said: number;
  readonly cost_usd_est: number | null;
  /** Why calls of the run show no cost (each distinct `unpriced: <why>`, joined), or null when every call was priced. */
  readonly cost_note: string | null;
  readonly transcript_wer_mean: number | null;
  /** Mean judge score per criterion over the judged conversations; null when none was judged. */
  readonly judge_mean: Readonly<Record<string, number>> | null;
  readonly judged: number;
  /** Duplex acts over the run (docs/caller.md): corrections and barge-ins said, how many the agent yielded to and its slowest stop; back-channels said and how many took the floor; corrections whose stale value a later call or the final state used. */
  readonly duplex: {
    readonly cut_ins: number;
    readonly yielded: number;
    readonly stop_max_ms: number | null;
    readonly back_channels: number;
    readonly back_channels_took_floor: number;
    readonly corrections: number;
    readonly stale_used: number;
  };
}

function mean(values: readonly number[]): number | null {
  return values.length ? Math.round((values.reduce((a, b) => a + b, 0) / values.length) * 10_000) / 10_000 : null;
}

/** Sums a run's diagnostics over its conversations (every turn of every conversation for the latency percentiles). */
export function diagnosticsSummary(conversations: readonly Pick<VerdictRow, 'cost' | 'diagnostics'>[]): DiagnosticsSummary {
  const turns = conversations.flatMap((c) => c.diagnostics.turn_latencies_ms);
  const stops = conversations.flatMap((c) => c.diagnostics.barge_in_stops_ms);
  const checks = conversations.flatMap((c) => c.diagnostics.said_aloud);
  const costs = conversations.flatMap((c) => c.cost.cost_usd_est ?? []);
  const notes = [...new Set(conversations.flatMap((c) => (c.cost.cost_usd_est === null && c.cost.cost_note !== null ? [c.cost.cost_note] : [])))];
  const judged = conversations.flatMap((c) => c.diagnostics.judge ?? []);
  const criteria = [...new Set(judged.flatMap((j) => Object.keys(j.scores)))].sort();
  return {
    turns: turns.length,
    latency_p50_ms: percentile(turns, 0.5),
    latency_p95_ms: percentile(turns, 0.95),
    barge_in_stop_max_ms: stops.length ? Math.max(...stops) : null,
    said_aloud_checked: checks.length,
    said_aloud_said: checks.filter((c) => c.said).length,
    cost_usd_est: costs.length ? Math.round(costs.reduce((a, b) => a + b, 0) * 1_000_000) / 1_000_000 : null,
    cost_note: notes.length ? notes.join('; ') : null,
    transcript_wer_mean: mean(conversations.flatMap((c) => c.diagnostics.transcript_wer ?? [])),
    judge_mean: judged.length ? Object.fromEntries(criteria.map((c) => [c, mean(judged.flatMap((j) => j.scores[c] ?? [])) ?? 0])) : null,
    judged: judged.length,
    duplex: duplexSummary(conversations.flatMap((c) => c.diagnostics.duplex ?? [])),
  };
}

/** Whether a correction's stale value was used after it: by a later call or in the final state. */
export function staleUsed(check: DuplexCheck): boolean {
  return check.stale_calls.length > 0 || check.stale_in_state === true;
}

function duplexSummary(checks: readonly DuplexCheck[]): DiagnosticsSummary['duplex'] {
  const cutIns = checks.filter((c) => c.act !== 'back_channel');
  const stops = cutIns.flatMap((c) => c.stop_ms ?? []);
  const backChannels = checks.filter((c) => c.act === 'back_channel');
  const corrections = checks.filter((c) => c.act === 'correction');
  return {
    cut_ins: cutIns.length,
    yielded: cutIns.filter((c) => c.agent_stopped === true).length,
    stop_max_ms: stops.length ? Math.max(...stops) : null,
    back_channels: backChannels.length,
    back_channels_took_floor: backChannels.filter((c) => c.agent_stopped === true).length,
    corrections: corrections.length,
    stale_used: corrections.filter(staleUsed).length,
  };
}
