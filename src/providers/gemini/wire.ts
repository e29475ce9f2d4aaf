import { ActivityHandling, Behavior, EndSensitivity, MediaModality, Modality, StartSensitivity, Type, type FunctionDeclaration, type LiveConnectConfig, type ModalityTokenCount, type Schema, type Tool, type UsageMetadata } from '@google/genai';
import type { Usage } from '../../snapshot/index.ts';
import type { AgentSetup } from '../model-session.ts';
import type { SeedTurn } from '../stream-history.ts';

/**
 * The Gemini Live API as mivas uses it, mapped onto the types of Google's own SDK (`@google/genai`
 * 3.3: `LiveConnectConfig`, `Tool`, `FunctionDeclaration`, `Schema`, `UsageMetadata`); the SDK
 * builds and parses the wire messages (docs/providers.md, "Gemini Live").
 */

/** Audio the harness sends: PCM16 mono 16 kHz, named by its MIME type with the rate. */
export const GEMINI_INPUT_MIME = 'audio/pcm;rate=16000';
export const GEMINI_INPUT_RATE_HZ = 16_000;
/** Audio the Live API sends: PCM16 mono 24 kHz. */
export const GEMINI_OUTPUT_RATE_HZ = 24_000;

/** JSON Schema keywords the SDK's `Schema` has under the same name and meaning. */
const SCHEMA_KEYS = ['description', 'format', 'nullable', 'minimum', 'maximum', 'pattern', 'title'] as const;
/** Length bounds, which the SDK's `Schema` types as strings (int64 in the API's JSON). */
const LENGTH_KEYS = ['minItems', 'maxItems', 'minLength', 'maxLength'] as const;
const TYPES = new Set<string>(Object.values(Type));

/**
 * A pack's JSON Schema as the SDK's `Schema`: upper-case `type`, nested `properties` and `items`,
 * `required`, `enum` (a `const` becomes a one-value enum), `anyOf`; keywords `Schema` lacks
 * (`additionalProperties`, `$schema`, `default`) are dropped. `parametersJsonSchema` is not used:
 * the Live API has been reported to call functions with empty arguments when given it
 * (googleapis/python-genai#1147, livekit/agents#3135).
 */
export function geminiSchema(json: unknown): Schema {
  if (json === null || typeof json !== 'object' || Array.isArray(json)) return { type: Type.STRING };
  const src = json as Record<string, unknown>;
  const out: Schema = {};
  let type = src.type;
  if (Array.isArray(type)) {
    if (type.includes('null')) out.nullable = true;
    type = type.find((t) => t !== 'null');
  }
  if (typeof type === 'string' && TYPES.has(type.toUpperCase())) out.type = type.toUpperCase() as Type;
  for (const key of SCHEMA_KEYS) if (key in src) (out as Record<string, unknown>)[key] = src[key];
  for (const key of LENGTH_KEYS) if (typeof src[key] === 'number') out[key] = String(src[key]);
  const values = Array.isArray(src.enum) ? src.enum : 'const' in src ? [src.const] : null;
  if (values) out.enum = values.map(String);
  if (src.properties && typeof src.properties === 'object') {
    out.properties = Object.fromEntries(Object.entries(src.properties as Record<string, unknown>).map(([k, v]) => [k, geminiSchema(v)]));
    out.type ??= Type.OBJECT;
  }
  if (Array.isArray(src.required)) out.required = src.required.map(String);
  if (src.items) out.items = geminiSchema(src.items);
  if (Array.isArray(src.anyOf)) out.anyOf = src.anyOf.map(geminiSchema);
  if (!out.type && !out.anyOf) out.type = out.enum ? Type.STRING : Type.OBJECT;
  return out;
}

/**
 * One tool as a `FunctionDeclaration`. A tool without arguments has no `parameters` at all: the
 * API refuses an OBJECT whose `properties` is empty ("should be non-empty for OBJECT type"), and
 * the SDK documents `parameters` as one that "can be left unset" for a function with no
 * parameters (`FunctionDeclaration` in types.ts). `behavior: BLOCKING`: the model waits for the
 * result, which the turn logic relies on (a call ends the model's response; the model answers
 * the result by itself); left unset, current Live models treat calls as NON_BLOCKING.
 */
export function geminiDeclaration(tool: AgentSetup['tools'][number]): FunctionDeclaration {
  const parameters = geminiSchema(tool.parameters);
  const noArguments = parameters.type === Type.OBJECT && Object.keys(parameters.properties ?? {}).length === 0;
  return { name: tool.name, description: tool.description, behavior: Behavior.BLOCKING, ...(noArguments ? {} : { parameters }) };
}

/** The agent's tools as one `Tool` of `functionDeclarations` (none when it has no tools). */
export function geminiTools(agent: AgentSetup): Tool[] {
  if (agent.tools.length === 0) return [];
  return [{ functionDeclarations: agent.tools.map(geminiDeclaration) }];
}

/** What a stream's `LiveConnectConfig` needs besides the agent. */
export interface StreamOptions {
  readonly voice: string;
  readonly silenceMs: number;
  /** A resumption handle from `sessionResumptionUpdate` (a reconnect), or null for a new session. */
  readonly resumeHandle: string | null;
  /** The conversation so far (a handoff's next specialist), or none. */
  readonly seed: readonly SeedTurn[];
}

/**
 * The `LiveConnectConfig` of one specialist's stream: audio responses in the configured voice, the
 * agent's instructions (and, after a handoff, the conversation so far as a second part) and
 * function declarations, automatic activity detection tuned for phone audio (high start and end
 * sensitivity, the configured silence), transcription both ways, session resumption and a
 * sliding context window.
 */
export function liveConfig(agent: AgentSetup, o: StreamOptions): LiveConnectConfig {
  const seed = seedText(o.seed);
  const tools = geminiTools(agent);
  return {
    responseModalities: [Modality.AUDIO],
    speechConfig: { voiceConfig: { prebuiltVoiceConfig: { voiceName: o.voice } } },
    systemInstruction: { parts: [{ text: agent.instructions }, ...(seed ? [{ text: seed }] : [])] },
    ...(tools.length ? { tools } : {}),
    realtimeInputConfig: {
      automaticActivityDetection: { disabled: false, startOfSpeechSensitivity: StartSensitivity.START_SENSITIVITY_HIGH, endOfSpeechSensitivity: EndSensitivity.END_SENSITIVITY_HIGH, silenceDurationMs: o.silenceMs },
      activityHandling: ActivityHandling.START_OF_ACTIVITY_INTERRUPTS,
    },
    inputAudioTranscription: {},
    outputAudioTranscription: {},
    sessionResumption: o.resumeHandle ? { handle: o.resumeHandle } : {},
    contextWindowCompression: { slidingWindow: {} },
  };
}

/** The heading of the conversation-so-far part of a later specialist's instructions. */
export const SEED_HEADING = 'The call so far, before it was transferred to you (for context; do not repeat it):';

/** The conversation so far as one text, a line per turn (`Caller:` / `Agent:`), or null when there is none. */
export function seedText(turns: readonly SeedTurn[]): string | null {
  if (turns.length === 0) return null;
  return [SEED_HEADING, ...turns.map((t) => `${t.role === 'user' ? 'Caller' : 'Agent'}: ${t.text}`)].join('\n');
}

function tokens(details: readonly ModalityTokenCount[] | undefined, modality: MediaModality): number {
  return (details ?? []).filter((d) => d.modality === modality).reduce((n, d) => n + (d.tokenCount ?? 0), 0);
}

/**
 * `usageMetadata` in the six price classes. Input is the prompt plus the tool-use prompt (tool
 * results fed back to the model); output is the response plus the thinking tokens (billed as
 * output). Audio is what the modality details call AUDIO; every other input or output token
 * (text, and any count the details leave out) is priced as text; cached tokens are net of their
 * class.
 */
export function usageFromGemini(u: UsageMetadata): Usage {
  const prompt = u.promptTokenCount ?? 0;
  const toolUse = u.toolUsePromptTokenCount ?? 0;
  const response = u.responseTokenCount ?? 0;
  const thoughts = u.thoughtsTokenCount ?? 0;
  const inAudio = tokens(u.promptTokensDetails, MediaModality.AUDIO) + tokens(u.toolUsePromptTokensDetails, MediaModality.AUDIO);
  const cachedAudio = tokens(u.cacheTokensDetails, MediaModality.AUDIO);
  const cachedText = Math.max(0, (u.cachedContentTokenCount ?? 0) - cachedAudio);
  const outAudio = tokens(u.responseTokensDetails, MediaModality.AUDIO);
  const input = prompt + toolUse;
  const output = response + thoughts;
  return {
    input_tokens: input,
    output_tokens: output,
    total_tokens: u.totalTokenCount ?? input + output,
    input_text_tokens: Math.max(0, input - inAudio - cachedText),
    input_audio_tokens: Math.max(0, inAudio - cachedAudio),
    cached_text_tokens: cachedText,
    cached_audio_tokens: cachedAudio,
    output_text_tokens: Math.max(0, output - outAudio),
    output_audio_tokens: outAudio,
  };
}
