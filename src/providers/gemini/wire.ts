import { z } from 'zod';
import type { Usage } from '../../snapshot/index.ts';
import type { AgentSetup } from '../model-session.ts';

/**
 * The Gemini Live API (BidiGenerateContent) messages mivas sends and reads, in the JSON field names
 * of googleapis/js-genai `src/types.ts` (LiveClientSetup, LiveClientContent, LiveClientRealtimeInput,
 * LiveClientToolResponse, LiveServerMessage) and its recorded sessions under
 * `test/system/recordings/live_*.websocket.log` (docs/providers.md, "Gemini Live").
 */

/** Audio the harness sends: PCM16 mono 16 kHz, named by its MIME type with the rate. */
export const GEMINI_INPUT_MIME = 'audio/pcm;rate=16000';
export const GEMINI_INPUT_RATE_HZ = 16_000;
/** Audio the Live API sends: PCM16 mono 24 kHz. */
export const GEMINI_OUTPUT_RATE_HZ = 24_000;

/** A Gemini `Schema` (the OpenAPI subset `FunctionDeclaration.parameters` takes). */
export type GeminiSchema = { [key: string]: unknown };

const SCHEMA_KEYS = new Set(['description', 'enum', 'format', 'nullable', 'minimum', 'maximum', 'minItems', 'maxItems', 'minLength', 'maxLength', 'pattern', 'title']);

/**
 * A pack's JSON Schema as the Live API's `parameters` Schema: upper-case `type`, nested
 * `properties` and `items`, `required`, `enum` (a `const` becomes a one-value enum), `anyOf`;
 * keywords the Schema type lacks (`additionalProperties`, `$schema`, `default`) are dropped.
 * `parametersJsonSchema` is not used: the Live API has been reported to call functions with empty
 * arguments when given it (googleapis/python-genai#1147, livekit/agents#3135).
 */
export function geminiSchema(json: unknown): GeminiSchema {
  if (json === null || typeof json !== 'object' || Array.isArray(json)) return { type: 'STRING' };
  const src = json as Record<string, unknown>;
  const out: GeminiSchema = {};
  let type = src.type;
  if (Array.isArray(type)) {
    if (type.includes('null')) out.nullable = true;
    type = type.find((t) => t !== 'null');
  }
  if (typeof type === 'string') out.type = type.toUpperCase();
  for (const [key, value] of Object.entries(src)) if (SCHEMA_KEYS.has(key)) out[key] = value;
  if ('const' in src && !('enum' in src)) out.enum = [src.const];
  if (Array.isArray(out.enum)) out.enum = out.enum.map(String);
  if (src.properties && typeof src.properties === 'object') {
    out.properties = Object.fromEntries(Object.entries(src.properties as Record<string, unknown>).map(([k, v]) => [k, geminiSchema(v)]));
    if (!out.type) out.type = 'OBJECT';
  }
  if (Array.isArray(src.required)) out.required = src.required;
  if (src.items) out.items = geminiSchema(src.items);
  if (Array.isArray(src.anyOf)) out.anyOf = src.anyOf.map(geminiSchema);
  if (!out.type && !out.anyOf) out.type = out.enum ? 'STRING' : 'OBJECT';
  return out;
}

/** The agent's tools as one `Tool` of `functionDeclarations`. */
export function geminiTools(agent: AgentSetup): { functionDeclarations: { name: string; description: string; parameters: GeminiSchema }[] }[] {
  if (agent.tools.length === 0) return [];
  return [{ functionDeclarations: agent.tools.map((t) => ({ name: t.name, description: t.description, parameters: geminiSchema(t.parameters) })) }];
}

/** What the first message of a stream needs. */
export interface SetupOptions {
  readonly model: string;
  readonly voice: string;
  readonly silenceMs: number;
  /** A resumption handle from `sessionResumptionUpdate` (a reconnect), or null for a new session. */
  readonly resumeHandle: string | null;
  /** The stream will be seeded with history in `clientContent` before realtime input. */
  readonly seeded: boolean;
}

/**
 * `{setup}`: the model (`models/<id>`), audio responses in the configured voice, the agent's
 * instructions and function declarations, automatic activity detection tuned for phone audio
 * (high start and end sensitivity, the configured silence), transcription both ways, session
 * resumption, a sliding context window, and `historyConfig.initialHistoryInClientContent` when
 * the stream is to be seeded (the models that take `clientContent` only as initial history).
 */
export function setupMessage(agent: AgentSetup, o: SetupOptions): Record<string, unknown> {
  const setup: Record<string, unknown> = {
    model: o.model.startsWith('models/') ? o.model : `models/${o.model}`,
    generationConfig: { responseModalities: ['AUDIO'], speechConfig: { voiceConfig: { prebuiltVoiceConfig: { voiceName: o.voice } } } },
    systemInstruction: { parts: [{ text: agent.instructions }] },
    tools: geminiTools(agent),
    realtimeInputConfig: {
      automaticActivityDetection: { disabled: false, startOfSpeechSensitivity: 'START_SENSITIVITY_HIGH', endOfSpeechSensitivity: 'END_SENSITIVITY_HIGH', silenceDurationMs: o.silenceMs },
      activityHandling: 'START_OF_ACTIVITY_INTERRUPTS',
    },
    inputAudioTranscription: {},
    outputAudioTranscription: {},
    sessionResumption: o.resumeHandle ? { handle: o.resumeHandle } : {},
    contextWindowCompression: { slidingWindow: {} },
  };
  if (o.seeded && !o.resumeHandle) setup.historyConfig = { initialHistoryInClientContent: true };
  return { setup };
}

const partSchema = z.looseObject({ text: z.string().optional(), inlineData: z.object({ mimeType: z.string().optional(), data: z.string() }).optional() });
const modalityCountSchema = z.array(z.object({ modality: z.string().optional(), tokenCount: z.number().int().nonnegative().optional() })).optional();

/** The server messages the harness acts on (`LiveServerMessage`); unknown fields are stripped. */
export const serverMessageSchema = z.looseObject({
  setupComplete: z.looseObject({}).optional(),
  serverContent: z
    .looseObject({
      modelTurn: z.looseObject({ parts: z.array(partSchema).default([]) }).optional(),
      turnComplete: z.boolean().optional(),
      interrupted: z.boolean().optional(),
      generationComplete: z.boolean().optional(),
      inputTranscription: z.looseObject({ text: z.string().optional() }).optional(),
      outputTranscription: z.looseObject({ text: z.string().optional() }).optional(),
    })
    .optional(),
  toolCall: z.looseObject({ functionCalls: z.array(z.looseObject({ id: z.string().nullish(), name: z.string().optional(), args: z.record(z.string(), z.unknown()).nullish() })).default([]) }).optional(),
  toolCallCancellation: z.looseObject({ ids: z.array(z.string()).default([]) }).optional(),
  usageMetadata: z
    .looseObject({
      promptTokenCount: z.number().int().nonnegative().optional(),
      responseTokenCount: z.number().int().nonnegative().optional(),
      totalTokenCount: z.number().int().nonnegative().optional(),
      cachedContentTokenCount: z.number().int().nonnegative().optional(),
      promptTokensDetails: modalityCountSchema,
      responseTokensDetails: modalityCountSchema,
      cacheTokensDetails: modalityCountSchema,
    })
    .optional(),
  goAway: z.looseObject({ timeLeft: z.string().optional() }).optional(),
  sessionResumptionUpdate: z.looseObject({ newHandle: z.string().nullish(), resumable: z.boolean().optional() }).optional(),
  error: z.unknown().optional(),
});
export type ServerMessage = z.infer<typeof serverMessageSchema>;

/** One frame from the Live API (text or binary, both JSON): parsed, or null when it is not a message. */
export function parseServerMessage(data: string): ServerMessage | null {
  try {
    const parsed = serverMessageSchema.safeParse(JSON.parse(data));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

function byModality(details: { modality?: string; tokenCount?: number }[] | undefined, modality: string): number {
  return (details ?? []).filter((d) => d.modality === modality).reduce((n, d) => n + (d.tokenCount ?? 0), 0);
}

/** `usageMetadata` in the six price classes: prompt and response tokens split by modality, cached ones net of their class. */
export function usageFromGemini(u: NonNullable<ServerMessage['usageMetadata']>): Usage {
  const input = u.promptTokenCount ?? 0;
  const output = u.responseTokenCount ?? 0;
  const inAudio = byModality(u.promptTokensDetails, 'AUDIO');
  const inText = u.promptTokensDetails ? byModality(u.promptTokensDetails, 'TEXT') : input;
  const cachedAudio = byModality(u.cacheTokensDetails, 'AUDIO');
  const cachedText = u.cacheTokensDetails ? byModality(u.cacheTokensDetails, 'TEXT') : (u.cachedContentTokenCount ?? 0);
  const outAudio = byModality(u.responseTokensDetails, 'AUDIO');
  const outText = u.responseTokensDetails ? byModality(u.responseTokensDetails, 'TEXT') : output;
  return {
    input_tokens: input,
    output_tokens: output,
    total_tokens: u.totalTokenCount ?? input + output,
    input_text_tokens: Math.max(0, inText - cachedText),
    input_audio_tokens: Math.max(0, inAudio - cachedAudio),
    cached_text_tokens: cachedText,
    cached_audio_tokens: cachedAudio,
    output_text_tokens: outText,
    output_audio_tokens: outAudio,
  };
}
