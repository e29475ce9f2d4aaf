import { z } from 'zod';
import { parseJson } from '../../core/index.ts';
import type { AgentSetup } from '../model-session.ts';
import type { SeedTurn } from '../stream-history.ts';
import { parseTaggedEvent, type OtherEvent } from '../tagged-event.ts';

/**
 * The Phonic speech-to-speech messages mivas sends and reads, in the field names of Phonic's Node
 * SDK (github.com/Phonic-Co/phonic-node at 8dd7d9d, 2026-08-06: `src/api/types/ConfigOptions.ts`,
 * `ConfigPayload`, `AudioChunkPayload`, `ToolCallOutputPayload`, `ResetPayload`,
 * `GenerateReplyPayload`, `InlineWebSocketTool`, `OpenAiFunction`, and the server payloads of
 * `src/api/resources/conversations/client/Socket.ts`), checked on 2026-12-01 (docs/providers.md,
 * "Phonic").
 */

/** PCM16 mono 16 kHz both ways (`pcm_16000`): CHIRP's rate, so nothing is resampled. */
export const PHONIC_RATE_HZ = 16_000;
export const PHONIC_PCM_FORMAT = 'pcm_16000';
/** Each `audio_chunk` may hold at most 40 ms; mivas sends 20 ms pieces (the SDK's advice). */
export const PHONIC_CHUNK_MS = 20;

/** One inline tool of `config.tools` (`InlineWebSocketTool` with an `OpenAiTool` schema). */
export interface PhonicTool {
  readonly type: 'custom_websocket';
  readonly tool_schema: { readonly type: 'function'; readonly function: { readonly name: string; readonly description: string; readonly parameters: Record<string, unknown>; readonly strict: true } };
  readonly execution_mode: 'sync';
}

/** The agent's tools as inline WebSocket tools, executed by mivas when Phonic sends `tool_call`. */
export function phonicTools(agent: AgentSetup): PhonicTool[] {
  return agent.tools.map((t) => ({
    type: 'custom_websocket',
    tool_schema: { type: 'function', function: { name: t.name, description: t.description, parameters: t.parameters as Record<string, unknown>, strict: true } },
    execution_mode: 'sync',
  }));
}

/** The conversation so far written into a specialist's system prompt (a `reset` need not keep history). */
export function promptWithHistory(instructions: string, seed: readonly SeedTurn[]): string {
  if (seed.length === 0) return instructions;
  const lines = seed.map((t) => `${t.role === 'user' ? 'Caller' : 'Agent'}: ${t.text}`);
  return `${instructions}\n\nThe conversation so far (the caller was transferred to you; do not greet again):\n${lines.join('\n')}`;
}

/** What a `config` needs beyond the agent. */
export interface ConfigOptions {
  readonly model: string;
  readonly voice: string;
  readonly seed: readonly SeedTurn[];
}

/**
 * `ConfigOptions` for an agent: the model, its instructions (with the history for a later
 * specialist) as `system_prompt`, the voice, PCM 16 kHz both ways, its tools, no welcome message
 * (the opening is asked for with `generate_reply`), audio streamed ahead of real time (mivas
 * paces playback itself).
 */
export function phonicConfig(agent: AgentSetup, o: ConfigOptions): Record<string, unknown> {
  return {
    model: o.model,
    system_prompt: promptWithHistory(agent.instructions, o.seed),
    voice_id: o.voice,
    input_format: PHONIC_PCM_FORMAT,
    output_format: PHONIC_PCM_FORMAT,
    generate_welcome_message: false,
    welcome_message: null,
    stream_ahead_of_real_time: true,
    tools: phonicTools(agent),
  };
}

/** A tool output as `tool_call_output.output`: the parsed JSON, or the text itself. */
export function outputValue(output: string): unknown {
  const json = parseJson(output);
  return json.ok ? json.value : output;
}

/** The server messages the harness acts on; others parse as `other`. */
export const phonicEventSchema = z.discriminatedUnion('type', [
  z.looseObject({ type: z.literal('ready_to_start_conversation') }),
  z.looseObject({ type: z.literal('conversation_created'), conversation_id: z.string() }),
  z.looseObject({ type: z.literal('audio_chunk'), audio: z.string(), text: z.string() }),
  z.looseObject({ type: z.literal('input_text'), text: z.string() }),
  z.looseObject({ type: z.literal('user_started_speaking') }),
  z.looseObject({ type: z.literal('assistant_finished_speaking') }),
  z.looseObject({ type: z.literal('tool_call'), tool_call_id: z.string().min(1), tool_name: z.string().min(1), parameters: z.record(z.string(), z.unknown()) }),
  z.looseObject({ type: z.literal('assistant_ended_conversation') }),
  z.looseObject({ type: z.literal('error'), error: z.looseObject({ message: z.string(), code: z.string().optional() }) }),
]);
export type PhonicEvent = z.infer<typeof phonicEventSchema> | OtherEvent;

const LISTED = new Set(phonicEventSchema.options.map((o) => o.shape.type.value));

/** One frame: the event, `other` for a type the harness ignores, or null when it is not JSON of a known shape. */
export function parsePhonicEvent(data: string): PhonicEvent | null {
  return parseTaggedEvent(phonicEventSchema, LISTED, data);
}
