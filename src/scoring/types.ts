import type { VoidReason } from '../snapshot/index.ts';

/** A conversation's status (scoring.md §3); only PASS and FAIL are scored. */
export type Status = 'PASS' | 'FAIL' | 'VOID' | 'UNMAPPED' | 'PENDING';

/** Why a conversation could not be tied to a task (scoring.md §2.2, §2.3). */
export type UnmappedReason = 'mapping_conflict' | 'no_task' | 'unknown_task' | 'pack_version_mismatch';

/** One state difference (scoring.md §4.2), under the verdict's own rules. */
export interface StateDiffEntry {
  readonly table: string;
  readonly kind: 'missing' | 'extra' | 'changed';
  readonly key: Readonly<Record<string, unknown>> | null;
  readonly field: string | null;
  readonly expected: unknown;
  readonly actual: unknown;
  readonly expected_normalised: unknown;
  readonly actual_normalised: unknown;
  readonly rule: string;
  readonly allowed: boolean;
  readonly unparsed: boolean;
}

/** The database-state gate's outcome. */
export interface StateGateResult {
  readonly pass: boolean;
  readonly missing: number;
  readonly extra: number;
  readonly changed: number;
  readonly tables: readonly { readonly table: string; readonly mode: 'exact' | 'subset'; readonly pass: boolean }[];
  readonly diff: readonly StateDiffEntry[];
}

/** Why one argument or output matcher failed. */
export interface MatcherFailure {
  readonly argument: string;
  readonly reason: 'absent' | 'mismatch' | 'not_any_of' | 'blank' | 'unparsed' | 'not_executed' | 'out_of_scope';
  readonly expected: unknown;
  readonly actual: unknown;
  readonly rule: string;
}

/** One same-name candidate for an unmatched expected call. */
export interface CandidateReason {
  readonly seq: number;
  readonly agent: string;
  readonly failures: readonly MatcherFailure[];
  /** 1-based index of the expected call that holds this candidate, when it was compatible. */
  readonly used_by: number | null;
}

/** An expected call with no partner. */
export interface MissingCall {
  readonly index: number;
  readonly name: string;
  readonly never_called: boolean;
  readonly candidates: readonly CandidateReason[];
}

/** A tool event as the tool gate reports it. */
export interface ActualCall {
  readonly seq: number;
  readonly at_ms: number;
  readonly name: string;
  readonly kind: 'industry' | 'handoff' | 'session';
  readonly agent: string;
  readonly executed: boolean;
  readonly refusal: string | null;
  readonly ok: boolean | null;
  readonly error_code: string | null;
  readonly canonical_arguments: Readonly<Record<string, unknown>> | null;
}

/** A call named by seq, tool and agent. */
export interface CallRef {
  readonly seq: number;
  readonly name: string;
  readonly agent: string;
}

/** The tool-call gate's outcome (scoring.md §5.6). */
export interface ToolGateResult {
  readonly pass: boolean;
  readonly score: number;
  readonly matched: readonly { readonly expected: number; readonly seq: number }[];
  readonly missing: readonly MissingCall[];
  readonly forbidden: readonly (CallRef & { readonly executed: boolean })[];
  readonly scope_violations: readonly (CallRef & { readonly owners: readonly string[] })[];
  readonly extra: readonly CallRef[];
  readonly scope_refusals: readonly CallRef[];
  readonly expected_calls: readonly unknown[];
  readonly actual_calls: readonly ActualCall[];
}

/** Verdicts of the handoff gate (scoring.md §6). */
export type HandoffVerdict = 'optimal' | 'detour' | 'none_required' | 'incomplete' | 'out_of_order';

/** The handoff gate's outcome. */
export interface HandoffGateResult {
  readonly pass: boolean;
  readonly verdict: HandoffVerdict;
  readonly expected_path: readonly string[];
  readonly actual_path: readonly string[];
  readonly agent_sequence: readonly string[];
  readonly transfer_refusals: readonly CallRef[];
  readonly first_unmatched: string | null;
}

/** Health and latency figures copied beside the verdict (never read by it). */
export interface QualityFigures {
  readonly smoke_pass: boolean | null;
  readonly smoke_failed: readonly string[];
  readonly first_agent_audio_ms: number | null;
  readonly dead_air_max_s: number | null;
  readonly outbound_dropouts: number | null;
  readonly clipping_events: number | null;
  readonly latency_p50_ms: number | null;
  readonly latency_p95_ms: number | null;
}

/** One answer the caller asked for: the tool, the output field, its value, and whether the agent said it. */
export interface SaidAloudCheck {
  readonly tool: string;
  readonly key: string;
  readonly value: string | number;
  readonly said: boolean;
}

/** Judge scores 1–5 on the fixed rubric (src/scoring/judge-rubric.ts); added by `mivas score --judge`, never by scoring. */
export interface JudgeScores {
  readonly model: string;
  readonly prompt_version: string;
  readonly scores: Readonly<Record<string, number>>;
}

/** One act the caller said over the agent (a duplex act, docs/caller.md), as the diagnostics read it. */
export interface DuplexCheck {
  readonly act: 'correction' | 'barge_in' | 'back_channel';
  readonly pin: number | null;
  /** The caller's line (`c_…`) and the agent utterance (`u_…`) it was said over. */
  readonly caller_utterance_id: string | null;
  readonly over_utterance_id: string;
  /** When the caller's speech reached the server (timeline clock); null when the timeline lacks it. */
  readonly at_ms: number | null;
  /** Whether the agent's audio stopped after the caller started: yielded (correction, barge-in), or wrongly took the floor (back-channel). */
  readonly agent_stopped: boolean | null;
  /** The caller's speech at the server → the agent's cut utterance ending, in ms, when it stopped. */
  readonly stop_ms: number | null;
  /** Correction: the tool calls from the correction on that carried the stale value (timeline seqs). */
  readonly stale_calls: readonly number[];
  /** Correction: whether the final state's graded tables carry the stale value; null for the other acts or without a final state. */
  readonly stale_in_state: boolean | null;
}

/** The diagnostics of one conversation (scores.json `conversations[].diagnostics`). */
export interface Diagnostics {
  /** Per caller turn: end of the caller's speech → the agent's first audio after it, in ms. */
  readonly turn_latencies_ms: readonly number[];
  /** Per barge-in: the caller starting to speak → the agent's interrupted utterance stopping, in ms. */
  readonly barge_in_stops_ms: readonly number[];
  readonly said_aloud: readonly SaidAloudCheck[];
  /** Word error rate of the caller's ears against the provider's transcript of the agent; null without both. */
  readonly transcript_wer: number | null;
  /** Null until `mivas score --judge` annotates the conversation; a missing judge is null, never 0. */
  readonly judge: JudgeScores | null;
  /** One per act the caller said over the agent; empty without duplex acts (absent in scores written before them). */
  readonly duplex?: readonly DuplexCheck[];
}

/** Token usage and estimated cost copied from the summary. */
export interface CostFigures {
  readonly input_tokens: number | null;
  readonly output_tokens: number | null;
  readonly cost_usd_est: number | null;
  /** Why `cost_usd_est` is null although a price table was consulted (`unpriced: <why>`), else null. */
  readonly cost_note: string | null;
  readonly price_table_version: string | null;
}

/** Links and compact evidence for the drill-down. */
export interface Evidence {
  readonly trace_id: string | null;
  readonly trace: string;
  readonly transcript: string;
  readonly snapshot_uri: string | null;
  readonly audio_uri: string | null;
}

/** One conversation's full verdict (scoring.md §9 JSON `conversations`). */
export interface ConversationVerdict {
  readonly conversation_id: string;
  readonly run_id: string | null;
  readonly task_id: string | null;
  readonly pack: string;
  readonly pack_version: string | null;
  readonly harness: string | null;
  readonly model: string | null;
  readonly category: string | null;
  readonly difficulty: string | null;
  readonly audio_condition: string | null;
  readonly trial_index: number | null;
  readonly started_at: string | null;
  readonly duration_s: number | null;
  readonly end_reason: string | null;
  readonly status: Status;
  readonly unmapped_reason: UnmappedReason | null;
  readonly void_reason: VoidReason | null;
  readonly void_detail: readonly string[];
  readonly pack_drift: boolean;
  readonly combined_pass: boolean | null;
  readonly reward: number | null;
  readonly fail_reasons: readonly string[];
  readonly state: StateGateResult | null;
  readonly tools: ToolGateResult | null;
  readonly handoff: HandoffGateResult | null;
  readonly quality: QualityFigures;
  readonly cost: CostFigures;
  readonly evidence: Evidence;
  /** Diagnostics beside the verdict (scoring.md §10.1); nothing in the verdict reads them. */
  readonly diagnostics: Diagnostics;
}

/**
 * The few facts of a verdict that the run's figures read (trial indexes, per-task figures, status
 * counts, the run's diagnostics, the leaderboard's quality columns, run metadata and the terminal
 * table's "not passed" lines). A `ConversationVerdict` is one; `mivas score` keeps only these per
 * conversation and spills the whole verdict to a file (`src/scoring/verdict-spill.ts`).
 */
export type VerdictRow = Pick<
  ConversationVerdict,
  'conversation_id' | 'run_id' | 'task_id' | 'pack' | 'pack_version' | 'harness' | 'model' | 'category' | 'difficulty' | 'audio_condition' | 'trial_index' | 'started_at' | 'duration_s' | 'status' | 'unmapped_reason' | 'void_reason' | 'void_detail' | 'reward'
> & {
  /** At least the first two reasons (the terminal table shows two). */
  readonly fail_reasons: readonly string[];
  readonly state: { readonly pass: boolean } | null;
  readonly tools: { readonly pass: boolean } | null;
  readonly handoff: { readonly pass: boolean } | null;
  readonly quality: Pick<QualityFigures, 'first_agent_audio_ms' | 'latency_p50_ms' | 'latency_p95_ms'>;
  readonly cost: Pick<CostFigures, 'cost_usd_est' | 'cost_note'>;
  readonly diagnostics: Pick<Diagnostics, 'turn_latencies_ms' | 'barge_in_stops_ms' | 'transcript_wer' | 'judge' | 'duplex'> & { readonly said_aloud: readonly { readonly said: boolean }[] };
};
