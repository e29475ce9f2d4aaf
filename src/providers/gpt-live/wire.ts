import type { InitialItem, SessionStartEvent } from 'openai/resources/live/live';
import type { ResponseInputItem } from 'openai/resources/responses/responses';
import { z } from 'zod';
import type { AgentSetup } from '../model-session.ts';
import type { SeedTurn } from '../stream-history.ts';
import { parseTaggedEvent, type OtherEvent } from '../tagged-event.ts';

/**
 * The GPT-Live messages mivas sends and reads, in the field names of the `openai` SDK's
 * `resources/live/live.d.ts` (openai@7.59.0: `SessionStartEvent`, `SessionConfig`,
 * `InputAudioAppendEvent`, `InstructionsAppendEvent`, `ResponseItemCreateEvent`,
 * `ResponseCreateEvent`, `SessionCloseEvent`, `ServerEvent`), checked on 2026-12-01
 * (docs/providers.md, "GPT-Live"). The builders are typed by those interfaces, so an SDK bump
 * that renames a field fails `tsc`.
 */

/** The PCM rate mivas asks for; `AudioFormat.AudioPCM.rate` allows 16000 or 24000, one rate for both directions. */
export const GPT_LIVE_RATE_HZ = 24_000;

/** At most 128 startup history messages (`SessionConfig.input`). */
export const GPT_LIVE_MAX_SEED_MESSAGES = 128;
/**
 * The startup history is capped at a rendered 8,192 tokens by default; mivas keeps the seed under
 * this many characters (about 4 characters a token, with room for the message framing).
 */
export const GPT_LIVE_MAX_SEED_CHARS = 24_000;

/** One function tool of the Responses backend (`FunctionTool`). */
export interface GptLiveFunctionTool {
  readonly type: 'function';
  readonly name: string;
  readonly description: string;
  readonly parameters: Record<string, unknown>;
}

/** The agent's tools as the delegated Responses backend's function tools. */
export function gptLiveTools(agent: AgentSetup): GptLiveFunctionTool[] {
  return agent.tools.map((t) => ({ type: 'function', name: t.name, description: t.description, parameters: t.parameters as Record<string, unknown> }));
}

/** What `session.start` needs beyond the agent. */
export interface StartOptions {
  readonly model: string;
  readonly voice: string;
  /** The Responses model the Live model delegates tool work to. */
  readonly backendModel: string;
  /** The conversation so far, for a specialist's new session (empty for the first). */
  readonly seed: readonly SeedTurn[];
}

/**
 * The seed as startup history: one text part per message, the newest messages kept within the
 * message and size caps (older ones dropped first).
 */
export function seedInput(seed: readonly SeedTurn[]): InitialItem[] {
  const kept: SeedTurn[] = [];
  let chars = 0;
  for (const turn of [...seed].reverse()) {
    if (kept.length >= GPT_LIVE_MAX_SEED_MESSAGES || chars + turn.text.length > GPT_LIVE_MAX_SEED_CHARS) break;
    kept.unshift(turn);
    chars += turn.text.length;
  }
  return kept.map((t) =>
    t.role === 'user' ? { type: 'message', role: 'user', content: [{ type: 'input_text', text: t.text }] } : { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: t.text }] },
  );
}

/**
 * `session.start`: the model, the agent's instructions as the frontend instructions, PCM at
 * 24 kHz both ways, the voice, and Responses delegation whose backend gets the same instructions
 * and the agent's tools as function tools; a specialist's session also gets the history as
 * `input`. Everything here is immutable after startup, hence a new session per specialist.
 */
export function sessionStart(agent: AgentSetup, o: StartOptions): SessionStartEvent {
  const input = seedInput(o.seed);
  return {
    type: 'session.start',
    session: {
      model: o.model,
      instructions: agent.instructions,
      audio: { format: { type: 'audio/pcm', rate: GPT_LIVE_RATE_HZ }, output: { voice: o.voice } },
      delegation: { type: 'responses', responses: { model: o.backendModel, instructions: agent.instructions, tools: gptLiveTools(agent), tool_choice: 'auto' } },
      ...(input.length ? { input } : {}),
    },
  };
}

/** A function's result for the Responses backend (`response.item.create` with a `function_call_output` item). */
export function toolOutputEvent(callId: string, output: string): { type: 'response.item.create'; item: ResponseInputItem.FunctionCallOutput } {
  return { type: 'response.item.create', item: { type: 'function_call_output', call_id: callId, output } };
}

const functionCallSchema = z.looseObject({ type: z.literal('function_call'), call_id: z.string().min(1), name: z.string().min(1), arguments: z.string() });

/** The server events the harness acts on (the SDK's `ServerEvent`); others parse as `other`. */
export const liveEventSchema = z.discriminatedUnion('type', [
  z.looseObject({ type: z.literal('session.started'), session: z.looseObject({ id: z.string() }) }),
  z.looseObject({ type: z.literal('session.output_audio.delta'), delta: z.string() }),
  z.looseObject({ type: z.literal('session.input_transcript.delta'), delta: z.string() }),
  z.looseObject({ type: z.literal('session.output_transcript.delta'), delta: z.string() }),
  z.looseObject({ type: z.literal('session.delegation.created'), delegation: z.looseObject({ id: z.string(), target: z.string() }) }),
  z.looseObject({ type: z.literal('response.event'), event: z.looseObject({ type: z.string(), item: z.unknown().optional() }), delegation_id: z.string().nullish() }),
  z.looseObject({ type: z.literal('session.closed'), reason: z.string() }),
  z.looseObject({ type: z.literal('session.usage.updated'), usage: z.looseObject({ seconds: z.number().nonnegative() }) }),
  z.looseObject({ type: z.literal('error'), error: z.looseObject({ code: z.string(), message: z.string() }) }),
]);
export type LiveEvent = z.infer<typeof liveEventSchema> | OtherEvent;

const LISTED = new Set(liveEventSchema.options.map((o) => o.shape.type.value));

/** One frame: the event, `other` for a type the harness ignores, or null when it is not JSON of a known shape. */
export function parseLiveEvent(data: string): LiveEvent | null {
  return parseTaggedEvent(liveEventSchema, LISTED, data);
}

/**
 * A function call of the delegated Responses backend: a nested `response.output_item.done` whose
 * item is a `function_call` (the Responses streaming event `ResponseOutputItemDoneEvent` with a
 * `ResponseFunctionToolCall`), or null for any other nested event.
 */
export function functionCallOf(event: { type: string; item?: unknown }): z.infer<typeof functionCallSchema> | null {
  if (event.type !== 'response.output_item.done') return null;
  const call = functionCallSchema.safeParse(event.item);
  return call.success ? call.data : null;
}
