import type { Incoming, Outgoing } from '@elevenlabs/types';
import { z } from 'zod';
import { parseJsonAs } from '../../core/index.ts';

/**
 * The ElevenLabs Agents conversation WebSocket as mivas speaks it, in the types of
 * `@elevenlabs/types` 0.23.0 (the AsyncAPI-generated agent-socket messages,
 * `generated/types/asyncapi-types.ts`): what mivas sends is typed by `Outgoing`, so a renamed
 * field fails `tsc`; what it reads is parsed by zod schemas checked against `Incoming` below.
 */

/** The public conversation path; `?agent_id=<id>` names the agent. */
export const ELEVENLABS_PATH = '/v1/convai/conversation';
/** The audio format mivas asks the team to set on its agent, both ways (CHIRP's rate: nothing resampled). */
export const ELEVENLABS_FORMAT = 'pcm_16000';
export const ELEVENLABS_RATE_HZ = 16_000;
/** The dynamic variable carrying mivas's call id (docs/platforms.md). */
export const CALL_ID_VARIABLE = 'mivas_call_id';

/** What mivas sends. */
export type ElevenLabsClientMessage =
  | Outgoing.ConversationInitiationClientToOrchestratorEvent
  | Outgoing.UserAudio
  | Outgoing.PongClientToOrchestratorEvent
  | Outgoing.ClientToolResultClientToOrchestratorEvent;

/** The first frame: the call id as a dynamic variable, nothing of the agent overridden. */
export function initiation(callId: string): Outgoing.ConversationInitiationClientToOrchestratorEvent {
  return { type: 'conversation_initiation_client_data', dynamic_variables: { [CALL_ID_VARIABLE]: callId } };
}

/** The server messages the relay acts on; others are ignored. */
export const elevenLabsEventSchema = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('conversation_initiation_metadata'),
    conversation_initiation_metadata_event: z.object({ conversation_id: z.string(), agent_output_audio_format: z.string(), user_input_audio_format: z.string() }),
  }),
  z.object({ type: z.literal('audio'), audio_event: z.object({ audio_base_64: z.string(), event_id: z.number() }) }),
  z.object({ type: z.literal('ping'), ping_event: z.object({ event_id: z.number(), ping_ms: z.number().nullish() }) }),
  z.object({ type: z.literal('client_tool_call'), client_tool_call: z.object({ tool_name: z.string().min(1), tool_call_id: z.string().min(1), parameters: z.record(z.string(), z.unknown()), event_id: z.number() }) }),
  z.object({ type: z.literal('agent_tool_response'), agent_tool_response: z.object({ tool_name: z.string(), tool_call_id: z.string(), tool_type: z.string(), is_error: z.boolean(), is_called: z.boolean(), event_id: z.number() }) }),
  z.object({ type: z.literal('interruption'), interruption_event: z.object({ event_id: z.number() }) }),
]);
export type ElevenLabsEvent = z.infer<typeof elevenLabsEventSchema>;

/** Each parsed event is assignable to its `Incoming` type (a `never` where one is not). */
type ElevenLabsEventsAreTyped = [
  Extract<ElevenLabsEvent, { type: 'audio' }> extends Pick<Incoming.AudioClientEvent, 'type' | 'audio_event'> ? true : never,
  Extract<ElevenLabsEvent, { type: 'ping' }>['ping_event'] extends Incoming.PingEvent ? true : never,
  Extract<ElevenLabsEvent, { type: 'client_tool_call' }> extends Incoming.ClientToolCallClientEvent ? true : never,
  Extract<ElevenLabsEvent, { type: 'agent_tool_response' }> extends Incoming.AgentToolResponseClientEvent ? true : never,
  Extract<ElevenLabsEvent, { type: 'conversation_initiation_metadata' }>['conversation_initiation_metadata_event'] extends Pick<Incoming.ConversationInitiationMetadataEvent, 'conversation_id'> ? true : never,
];

/** Compiles only while every parsed event matches its `Incoming` type: a field ElevenLabs renames fails `tsc` here. */
export const ELEVENLABS_EVENTS_TYPED: ElevenLabsEventsAreTyped = [true, true, true, true, true];

/** One frame, or null when it is not JSON or not a message the relay acts on. */
export function parseElevenLabsEvent(data: string): ElevenLabsEvent | null {
  return parseJsonAs(elevenLabsEventSchema, data);
}
