import { z } from 'zod';

/**
 * `<pack>/<call_id>.caller.json`: the caller's side of a call dialed by mivas's own caller
 * (architecture.md §17, docs/caller.md). The server cannot see the caller's mind, so the run command
 * writes this part next to the server's snapshot, keyed by the same call id: what the caller
 * heard and said (joined to the timeline by utterance id), every model request and reply, the
 * audio condition it rendered, and its own usage and cost, kept apart from the agent's. Optional:
 * Bluejay calls and calls dialed by other clients have none. The scorer reads it for the
 * caller-deviation void.
 */

export const CALLER_PART = 'caller.json';

/** Key of a call's caller part relative to the snapshot root. */
export function callerPartKey(pack: string, callId: string): string {
  return `${pack}/${callId}.${CALLER_PART}`;
}

/** Why the caller ended its side (typed, so a simulator fault is never counted against the agent). */
export const callerEndReasonSchema = z.enum([
  /** Said its closing line, then hung up once the agent was quiet. */
  'closing_line',
  'turn_cap',
  'duration_cap',
  /** The agent said nothing for the caller's patience. */
  'agent_silent',
  /** The person or program playing an `external` caller hung up. */
  'external_hangup',
  /** The caller model chose to hang up without its closing line. */
  'model_hangup',
  /** The caller model or an ear/mouth endpoint failed past its retries. */
  'mind_error',
  /** A frozen cache had no entry for the conversation so far. */
  'cache_miss',
  /** A replayed caller ran out of recorded lines. */
  'replay_end',
]);
export type CallerEndReasonName = z.infer<typeof callerEndReasonSchema>;

/** Where a caller line came from. */
export const callerLineSourceSchema = z.enum(['opening', 'pin', 'closing', 'free', 'external', 'replay']);
export type CallerLineSource = z.infer<typeof callerLineSourceSchema>;

/** A caller line said over the agent (a duplex act, docs/caller.md): which act, over which agent utterance, how far into it. */
export const callerDuplexSchema = z
  .object({
    act: z.enum(['correction', 'barge_in', 'back_channel']),
    over_utterance_id: z.string(),
    /** Agent audio the caller had received of that utterance when it started the line. */
    at_agent_ms: z.number().nonnegative(),
  })
  .strict();
export type CallerDuplexRecord = z.infer<typeof callerDuplexSchema>;

/** One utterance either side, in the order the caller lived them. */
export const callerTurnSchema = z
  .object({
    seq: z.number().int().nonnegative(),
    side: z.enum(['agent', 'caller']),
    /** The server's `u_…` id (agent) or the caller's own `c_…` id; both are on the timeline. */
    utterance_id: z.string().nullable(),
    /** Caller: the words said. Agent: the words the caller's ears heard. */
    text: z.string(),
    source: callerLineSourceSchema.nullable(),
    /** The pin number (1-based, task order) when source is pin or closing from a pin. */
    pin: z.number().int().positive().nullable(),
    interrupted: z.boolean(),
    audio_ms: z.number().nonnegative(),
    /** Set on a caller line said over the agent (absent: a line in its turn). */
    duplex: callerDuplexSchema.optional(),
  })
  .strict();
export type CallerTurnRecord = z.infer<typeof callerTurnSchema>;

/** One request to a caller endpoint (chat, transcription or speech) and what came back. */
export const callerExchangeSchema = z
  .object({
    kind: z.enum(['chat', 'transcription', 'speech']),
    /** seq of the turn this exchange served (the agent turn answered, the caller turn spoken). */
    turn_seq: z.number().int().nonnegative().nullable(),
    model: z.string(),
    seed: z.number().int().nullable(),
    /** sha256 of the caller instructions (the system message). */
    prompt_hash: z.string().nullable(),
    /** The cache key: sha256 of the request that matters (for chat: model, seed, messages, tools). */
    request_hash: z.string(),
    cached: z.boolean(),
    /** The request body; the system message's content is replaced by `sha256:<prompt_hash>`. */
    request: z.unknown(),
    /** The parsed response body (speech: a summary of the audio, not the bytes). */
    response: z.unknown(),
    system_fingerprint: z.string().nullable(),
    usage: z.record(z.string(), z.number()).nullable(),
    error: z.string().nullable(),
  })
  .strict();
export type CallerExchangeRecord = z.infer<typeof callerExchangeSchema>;

/** The caller's own usage, never summed into the agent's. */
export const callerUsageSchema = z
  .object({
    chat_requests: z.number().int().nonnegative(),
    chat_cached: z.number().int().nonnegative(),
    prompt_tokens: z.number().int().nonnegative(),
    completion_tokens: z.number().int().nonnegative(),
    cached_prompt_tokens: z.number().int().nonnegative(),
    transcription_requests: z.number().int().nonnegative(),
    transcription_seconds: z.number().nonnegative(),
    speech_requests: z.number().int().nonnegative(),
    speech_characters: z.number().int().nonnegative(),
  })
  .strict();
export type CallerUsage = z.infer<typeof callerUsageSchema>;

export const callerFileSchema = z
  .object({
    version: z.literal(1),
    call_id: z.string(),
    run_id: z.string().nullable(),
    task_id: z.string().nullable(),
    trial: z.number().int().positive().nullable(),
    kind: z.enum(['scripted', 'llm', 'external', 'replay']),
    model: z.string().nullable(),
    seed: z.number().int().nullable(),
    prompt_hash: z.string().nullable(),
    /** The caller instructions built from the task (null for kinds without a model). */
    instructions: z.string().nullable(),
    end_reason: callerEndReasonSchema.nullable(),
    /** True when the caller closed the socket; false when the server (or the network) did. */
    hung_up: z.boolean(),
    close_code: z.number().int().nullable(),
    mouth: z.object({ engine: z.string(), voice: z.string().nullable() }).strict(),
    ears: z.object({ model: z.string() }).strict().nullable(),
    /** The audio condition rendered on the caller's outbound audio, with every parameter. */
    audio_condition: z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()])).nullable(),
    /** The recorded call this caller re-spoke (frozen replay), as `<pack>/<call_id>`. */
    replay_of: z.string().nullable(),
    turns: z.array(callerTurnSchema),
    exchanges: z.array(callerExchangeSchema),
    usage: callerUsageSchema,
    /** From the caller price settings; null when none are set. */
    cost_usd_est: z.number().nonnegative().nullable(),
  })
  .strict();
export type CallerFile = z.infer<typeof callerFileSchema>;

/** An all-zero caller usage. */
export function emptyCallerUsage(): CallerUsage {
  return { chat_requests: 0, chat_cached: 0, prompt_tokens: 0, completion_tokens: 0, cached_prompt_tokens: 0, transcription_requests: 0, transcription_seconds: 0, speech_requests: 0, speech_characters: 0 };
}
