import { z } from 'zod';
import { parseJson } from '../../core/index.ts';

/**
 * Zod schemas of the realtime server events the harness acts on (wire.md §2.5), in GA names.
 * Beta names (Qwen, wire.md §2.8) are renamed to GA before parsing, so one schema serves both.
 * Fields the harness does not read are stripped, not rejected: providers add fields freely.
 */

const usageDetailsSchema = z.object({
  text_tokens: z.number().int().nonnegative().optional(),
  audio_tokens: z.number().int().nonnegative().optional(),
  image_tokens: z.number().int().nonnegative().optional(),
});

/** `response.done.response.usage` (wire.md §2.9); every field optional, since variants omit some. */
export const providerUsageSchema = z.object({
  total_tokens: z.number().int().nonnegative().optional(),
  input_tokens: z.number().int().nonnegative().optional(),
  output_tokens: z.number().int().nonnegative().optional(),
  input_token_details: usageDetailsSchema
    .extend({ cached_tokens: z.number().int().nonnegative().optional(), cached_tokens_details: usageDetailsSchema.nullish() })
    .nullish(),
  output_token_details: usageDetailsSchema.nullish(),
});
export type ProviderUsage = z.infer<typeof providerUsageSchema>;

const functionCallItemSchema = z.object({
  type: z.literal('function_call'),
  id: z.string().optional(),
  call_id: z.string(),
  name: z.string(),
  arguments: z.string().default(''),
});
const otherItemSchema = z.object({ type: z.string(), id: z.string().optional() });

const rateLimitSchema = z.object({
  name: z.string(),
  limit: z.number().optional(),
  remaining: z.number().optional(),
  reset_seconds: z.number().optional(),
});

/** The server events the realtime session acts on. */
export const serverEventSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('session.created') }),
  z.object({ type: z.literal('session.updated') }),
  z.object({ type: z.literal('input_audio_buffer.speech_started'), item_id: z.string().optional(), audio_start_ms: z.number().optional() }),
  z.object({ type: z.literal('input_audio_buffer.speech_stopped'), item_id: z.string().optional(), audio_end_ms: z.number().optional() }),
  z.object({ type: z.literal('response.created'), response: z.object({ id: z.string().optional() }) }),
  z.object({ type: z.literal('response.output_audio.delta'), item_id: z.string(), delta: z.string() }),
  z.object({ type: z.literal('response.output_audio.done'), item_id: z.string() }),
  z.object({ type: z.literal('response.output_audio_transcript.done'), item_id: z.string().optional(), transcript: z.string() }),
  z.object({ type: z.literal('conversation.item.input_audio_transcription.completed'), item_id: z.string().optional(), transcript: z.string() }),
  z.object({ type: z.literal('response.function_call_arguments.done'), call_id: z.string(), name: z.string().optional(), arguments: z.string().default('') }),
  z.object({ type: z.literal('response.output_item.added'), item: z.union([functionCallItemSchema.partial({ name: true, arguments: true }), otherItemSchema]) }),
  z.object({ type: z.literal('response.output_item.done'), item: z.union([functionCallItemSchema, otherItemSchema]) }),
  z.object({
    type: z.literal('response.done'),
    response: z.object({ id: z.string().optional(), status: z.string().default('completed'), usage: providerUsageSchema.nullish() }),
  }),
  z.object({
    type: z.literal('error'),
    error: z.object({ type: z.string().optional(), code: z.string().nullish(), message: z.string().default(''), param: z.string().nullish(), event_id: z.string().nullish() }),
  }),
  z.object({ type: z.literal('rate_limits.updated'), rate_limits: z.array(rateLimitSchema) }),
]);
export type ServerEvent = z.infer<typeof serverEventSchema>;
export type RateLimit = z.infer<typeof rateLimitSchema>;

/** Beta event names and their GA equivalents (wire.md §2.8). */
const GA_NAME_OF_BETA: Readonly<Record<string, string>> = {
  'response.audio.delta': 'response.output_audio.delta',
  'response.audio.done': 'response.output_audio.done',
  'response.audio_transcript.delta': 'response.output_audio_transcript.delta',
  'response.audio_transcript.done': 'response.output_audio_transcript.done',
  'response.text.delta': 'response.output_text.delta',
  'response.text.done': 'response.output_text.done',
  'conversation.item.created': 'conversation.item.added',
};

const KNOWN_TYPES: ReadonlySet<string> = new Set(serverEventSchema.options.map((o) => o.shape.type.value));

/**
 * One server frame, parsed: `known` (an event the session acts on), `other` (a well-formed event
 * that only goes to the log), or `invalid` (not JSON, no type, or a known type with a bad shape).
 * Never throws, so a new provider event cannot break a live call (architecture.md convention 5).
 */
export type ParsedServerEvent =
  | { readonly kind: 'known'; readonly event: ServerEvent }
  | { readonly kind: 'other'; readonly type: string }
  | { readonly kind: 'invalid'; readonly type: string | null; readonly reason: string };

/** Any event: a type plus whatever else it carries (kept for the full parse). */
const envelopeSchema = z.looseObject({ type: z.string() });

/** Parses one text frame from a realtime server, renaming beta events to GA first. */
export function parseServerEvent(text: string): ParsedServerEvent {
  const json = parseJson(text);
  if (!json.ok) return { kind: 'invalid', type: null, reason: 'not JSON' };
  const envelope = envelopeSchema.safeParse(json.value);
  if (!envelope.success) return { kind: 'invalid', type: null, reason: 'no type' };
  const type = GA_NAME_OF_BETA[envelope.data.type] ?? envelope.data.type;
  if (!KNOWN_TYPES.has(type)) return { kind: 'other', type };
  const parsed = serverEventSchema.safeParse({ ...envelope.data, type });
  if (!parsed.success) return { kind: 'invalid', type, reason: parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ') };
  return { kind: 'known', event: parsed.data };
}
