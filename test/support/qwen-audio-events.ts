import { z } from 'zod';
import type { ClientEventCheck } from './realtime-server.ts';

/**
 * The client events of the Qwen-Audio Realtime API, strictly, as the realtime stand-in's `check`
 * (help.aliyun.com/en/model-studio/fun-audiochat-client-events, read 2026-12-01): session.update
 * with its documented session fields, the input_audio_buffer, conversation.item and response
 * events. Anything else (among them `conversation.item.truncate`, which the page does not list),
 * an unknown field or a missing one is refused; so is a voice after the first session.update
 * (only the first may set it) and a turn_detection once audio was sent (only before the first audio).
 */

const eventId = { event_id: z.string().optional() };
const nestedTool = z.strictObject({ type: z.literal('function'), function: z.strictObject({ name: z.string().min(1), description: z.string().optional(), parameters: z.record(z.string(), z.unknown()).optional() }) });
const session = z.strictObject({
  modalities: z.array(z.enum(['text', 'audio'])).optional(),
  voice: z.string().min(1).optional(),
  instructions: z.string().optional(),
  turn_detection: z.strictObject({ type: z.enum(['server_vad', 'smart_turn']), threshold: z.number().min(-1).max(1).optional(), silence_duration_ms: z.number().int().min(200).max(6000).optional() }).nullable().optional(),
  tools: z.array(nestedTool).optional(),
  enable_speech_emotion: z.boolean().optional(),
  enable_search: z.boolean().optional(),
  max_history_turns: z.number().int().min(1).max(50).optional(),
});
const item = z.union([
  z.strictObject({ id: z.string().optional(), type: z.literal('message'), role: z.literal('user'), content: z.array(z.strictObject({ type: z.literal('input_text'), text: z.string() })).min(1) }),
  z.strictObject({ id: z.string().optional(), type: z.literal('function_call_output'), call_id: z.string().min(1), output: z.string() }),
]);

const clientEventSchema = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('session.update'), session, ...eventId }),
  z.strictObject({ type: z.literal('input_audio_buffer.append'), audio: z.string(), ...eventId }),
  z.strictObject({ type: z.literal('input_audio_buffer.commit'), ...eventId }),
  z.strictObject({ type: z.literal('input_audio_buffer.clear'), ...eventId }),
  z.strictObject({ type: z.literal('conversation.item.create'), item, previous_item_id: z.string().optional(), ...eventId }),
  z.strictObject({ type: z.literal('conversation.item.retrieve'), item_id: z.string(), ...eventId }),
  z.strictObject({ type: z.literal('conversation.item.delete'), item_id: z.string(), ...eventId }),
  z.strictObject({ type: z.literal('response.create'), ...eventId }),
  z.strictObject({ type: z.literal('response.cancel'), ...eventId }),
]);

/** The stand-in check for `qwen/audio-realtime`. */
export const qwenAudioCheck: ClientEventCheck = (json, earlier) => {
  const parsed = clientEventSchema.safeParse(json);
  if (!parsed.success) return `${(json as { type?: unknown } | null)?.type}: ${parsed.error.issues.map((i) => `${i.path.join('.')} ${i.message}`).join('; ')}`;
  const event = parsed.data;
  if (event.type !== 'session.update') return null;
  if (event.session.voice !== undefined && earlier.some((e) => e.type === 'session.update')) return 'session.update: voice after the first session.update';
  if (event.session.turn_detection !== undefined && earlier.some((e) => e.type === 'input_audio_buffer.append')) return 'session.update: turn_detection after the first audio';
  return null;
};
