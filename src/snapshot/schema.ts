import { z } from 'zod';

/**
 * The snapshot contract (docs/architecture.md, "The snapshot contract"): the server writes every file through
 * these schemas and the scorer reads through them. Keys are snake_case on disk and in memory:
 * the timeline is built directly in its wire form so there is one representation, not two.
 */

/** Why a call ended. */
export const endReasonSchema = z.enum([
  'caller_hangup',
  'agent_end_call',
  'human_transfer',
  'max_duration',
  'caller_silence',
  'provider_error',
  'internal_error',
  'drain_deadline',
  'caller_flood',
]);
export type EndReason = z.infer<typeof endReasonSchema>;

/** The void taxonomy of scoring.md §3, plus `caller_deviation` (issue 16: the simulated caller broke its task; docs/caller.md). */
export const voidReasonSchema = z.enum(['snapshot_missing', 'infra_error', 'provider_error', 'no_agent_audio', 'caller_never_spoke', 'caller_dropped_early', 'caller_deviation']);
export type VoidReason = z.infer<typeof voidReasonSchema>;

export const toolKindSchema = z.enum(['industry', 'handoff', 'session']);
export const sideSchema = z.enum(['caller', 'agent']);
export const refusalSchema = z.enum(['UNKNOWN_TOOL', 'TOOL_NOT_AVAILABLE', 'HANDOFF_NOT_ALLOWED', 'INVALID_ARGUMENTS']);

const base = { seq: z.number().int().nonnegative(), at_ms: z.number().nonnegative() };

/** One cascaded turn's latency breakdown: the `turn.latency` event and the summary's `turn_latency` rows. */
const turnLatencyFields = {
  endpoint_ms: z.number().nonnegative(),
  stt_ms: z.number().nonnegative(),
  llm_first_token_ms: z.number().nonnegative().nullable(),
  tts_first_byte_ms: z.number().nonnegative().nullable(),
  total_ms: z.number().nonnegative().nullable(),
};

/** The envelope as recorded (handoff outputs are `{assistant}` and stay as sent). */
const recordedOutput = z.record(z.string(), z.unknown());

export const timelineEventSchema = z.discriminatedUnion('type', [
  z.object({ ...base, type: z.literal('call.started'), call_id: z.string(), pack: z.string(), harness: z.string(), task_id: z.string().nullable(), run_id: z.string().nullable() }).strict(),
  z.object({ ...base, type: z.literal('call.ended'), end_reason: endReasonSchema, close_code: z.number().int().nullable() }).strict(),
  z.object({ ...base, type: z.literal('speech.started'), side: sideSchema, utterance_id: z.string() }).strict(),
  z.object({ ...base, type: z.literal('speech.completed'), side: sideSchema, utterance_id: z.string(), interrupted: z.boolean() }).strict(),
  z.object({ ...base, type: z.literal('transcript'), side: sideSchema, text: z.string(), utterance_id: z.string().nullable() }).strict(),
  z
    .object({
      ...base,
      type: z.literal('tool'),
      kind: toolKindSchema,
      name: z.string(),
      agent: z.string(),
      tool_call_id: z.string().nullable(),
      /** Who made the call when not the model itself: `http` an external harness through the tool routes, `platform` a platform under test on its own side (relays), `inferred` a hop deduced in observe mode; absent for the model's own calls. */
      origin: z.enum(['http', 'platform', 'inferred']).optional(),
      arguments: z.unknown(),
      canonical_arguments: z.record(z.string(), z.unknown()).nullable(),
      output: recordedOutput,
      duration_ms: z.number().nonnegative(),
      executed: z.boolean(),
      refusal: refusalSchema.nullable(),
      internal_fault: z.string().nullable(),
    })
    .strict(),
  z.object({ ...base, type: z.literal('handoff'), from: z.string(), to: z.string() }).strict(),
  z.object({ ...base, type: z.literal('nudge'), attempt: z.number().int().positive() }).strict(),
  /** The agent's side hung up on its own (a relay's bot closed its socket). */
  z.object({ ...base, type: z.literal('agent.hangup') }).strict(),
  z.object({ ...base, type: z.literal('barge_in'), utterance_id: z.string(), played_ms: z.number().nonnegative() }).strict(),
  z.object({ ...base, type: z.literal('audio.underrun'), utterance_id: z.string(), gap_ms: z.number().nonnegative() }).strict(),
  z.object({ ...base, type: z.literal('audio.clock_reset'), utterance_id: z.string(), behind_ms: z.number().nonnegative() }).strict(),
  z.object({ ...base, type: z.literal('mark.echo'), name: z.string() }).strict(),
  z.object({ ...base, type: z.literal('frame.ignored'), reason: z.string() }).strict(),
  z.object({ ...base, type: z.literal('provider.ready'), connect_ms: z.number().nonnegative() }).strict(),
  z.object({ ...base, type: z.literal('response.first_audio'), response_id: z.string().nullable(), ttft_ms: z.number().nonnegative() }).strict(),
  z.object({ ...base, type: z.literal('provider.error'), code: z.string(), message: z.string(), fatal: z.boolean() }).strict(),
  z.object({ ...base, type: z.literal('item.injected'), role: z.literal('user'), text: z.string() }).strict(),
  z
    .object({
      ...base,
      type: z.literal('turn.latency'),
      ...turnLatencyFields,
    })
    .strict(),
  z.object({ ...base, type: z.literal('response.done'), response_id: z.string().nullable(), status: z.string(), usage: z.record(z.string(), z.number()).nullable() }).strict(),
]);
export type TimelineEvent = z.infer<typeof timelineEventSchema>;

/** timeline.json */
export const timelineFileSchema = z.object({ events: z.array(timelineEventSchema) }).strict();
export type TimelineFile = z.infer<typeof timelineFileSchema>;

/** final.json: every table's rows ordered by primary key. */
export const finalStateSchema = z.record(z.string(), z.array(z.record(z.string(), z.unknown())));
export type FinalState = z.infer<typeof finalStateSchema>;

/** Token usage in the six price classes (wire.md §2.9). */
export const usageSchema = z
  .object({
    input_tokens: z.number().int().nonnegative(),
    output_tokens: z.number().int().nonnegative(),
    total_tokens: z.number().int().nonnegative(),
    input_text_tokens: z.number().int().nonnegative(),
    input_audio_tokens: z.number().int().nonnegative(),
    cached_text_tokens: z.number().int().nonnegative(),
    cached_audio_tokens: z.number().int().nonnegative(),
    output_text_tokens: z.number().int().nonnegative(),
    output_audio_tokens: z.number().int().nonnegative(),
    /** Session audio seconds the provider reported (GPT-Live's `session.usage.updated`), summed over the call's sessions; absent where none is reported. */
    audio_seconds: z.number().nonnegative().optional(),
  })
  .strict();
export type Usage = z.infer<typeof usageSchema>;
/** The token classes of a usage record (every field but the optional `audio_seconds`). */
export type TokenClass = Exclude<keyof Usage, 'audio_seconds'>;

/** The six-check smoke rubric (scoring.md §10); a check that does not apply is null. */
export const smokeSchema = z
  .object({
    both_sides_spoke: z.boolean(),
    tools_recorded: z.boolean().nullable(),
    trace_id_present: z.boolean().nullable(),
    dead_air_max_s: z.number().nonnegative(),
    dead_air_ok: z.boolean(),
    outbound_dropouts: z.number().int().nonnegative(),
    clipping_events: z.number().int().nonnegative(),
    clean_audio: z.boolean(),
    first_agent_audio_ms: z.number().nonnegative().nullable(),
    first_audio_ok: z.boolean(),
    pass: z.boolean(),
  })
  .strict();
export type Smoke = z.infer<typeof smokeSchema>;

/** What the timeline's bounds cost (src/snapshot/timeline.ts): present only when `truncated` is true. */
export const truncationSchema = z
  .object({
    /** Events counted but not kept once the event or byte limit was reached (`call.ended` is always kept). */
    events_dropped: z.number().int().nonnegative(),
    /** Values nested deeper than the limit, replaced by a marker string. */
    values_cut: z.number().int().nonnegative(),
    /** Which limits were reached. */
    limits: z.array(z.enum(['bytes', 'depth', 'events'])).min(1),
  })
  .strict();
export type Truncation = z.infer<typeof truncationSchema>;

/** summary.json: written last; its presence means the set is complete. */
export const summarySchema = z
  .object({
    call_id: z.string(),
    run_id: z.string().nullable(),
    task_id: z.string().nullable(),
    pack: z.string(),
    pack_version: z.string(),
    template_hash: z.string(),
    harness: z.string(),
    model: z.string().nullable(),
    started_at: z.string(),
    ended_at: z.string(),
    duration_ms: z.number().nonnegative(),
    end_reason: endReasonSchema,
    close_code: z.number().int().nullable(),
    void_reason: voidReasonSchema.nullable(),
    /** Why the call ended with internal_error (setup failure, a rejected timeline event, a dump error) or caller_flood (which limit the caller's input broke). */
    end_detail: z.string().optional(),
    smoke: smokeSchema,
    usage: usageSchema,
    cost_usd_est: z.number().nonnegative().nullable(),
    /** Present when the price table was consulted and priced nothing: `unpriced: <why>` (docs/providers.md, Prices). */
    cost_note: z.string().optional(),
    price_table_version: z.string().nullable(),
    truncated: z.boolean(),
    /** Present when `truncated`: what the timeline's bounds left out. */
    truncation: truncationSchema.optional(),
    trace_id: z.string().nullable(),
    /** How evenly the agent's frames left past each utterance's lead (absent in snapshots before session 3). */
    pacing: z
      .object({ intervals: z.number().int().nonnegative(), off_over_5ms: z.number().int().nonnegative(), max_off_ms: z.number().nonnegative() })
      .strict()
      .optional(),
    /** Per caller turn, end of caller speech → first agent audio and its parts (harnesses that measure it: cascaded). */
    turn_latency: z
      .array(
        z
          .object(turnLatencyFields)
          .strict(),
      )
      .optional(),
    counts: z
      .object({ tool_calls: z.number().int().nonnegative(), handoffs: z.number().int().nonnegative(), rows_written: z.number().int().nonnegative() })
      .strict(),
  })
  .strict();
export type Summary = z.infer<typeof summarySchema>;

/** The five parts of a snapshot, in upload order: the summary is last. */
export const SNAPSHOT_PARTS = ['timeline.json', 'final.json', 'db', 'wav', 'summary.json'] as const;
export type SnapshotPart = (typeof SNAPSHOT_PARTS)[number];

/** Key of one snapshot part relative to the snapshot root: `<pack>/<call_id>.<part>`. */
export function snapshotKey(pack: string, callId: string, part: SnapshotPart): string {
  return `${pack}/${callId}.${part}`;
}

/** An all-zero usage record. */
export function emptyUsage(): Usage {
  return {
    input_tokens: 0,
    output_tokens: 0,
    total_tokens: 0,
    input_text_tokens: 0,
    input_audio_tokens: 0,
    cached_text_tokens: 0,
    cached_audio_tokens: 0,
    output_text_tokens: 0,
    output_audio_tokens: 0,
  };
}

/** Sums two usage records class by class; reported audio seconds are summed when either has them. */
export function addUsage(a: Usage, b: Usage): Usage {
  const out = emptyUsage();
  for (const key of Object.keys(out) as TokenClass[]) out[key] = a[key] + b[key];
  if (a.audio_seconds === undefined && b.audio_seconds === undefined) return out;
  return { ...out, audio_seconds: (a.audio_seconds ?? 0) + (b.audio_seconds ?? 0) };
}
