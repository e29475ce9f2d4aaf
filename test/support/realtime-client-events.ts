import type * as R from 'openai/resources/realtime/realtime';
import type { ClientEvent, ClientEventCheck } from './realtime-server.ts';

/**
 * The client events each realtime vendor accepts, as strict checks for the realtime stand-in
 * (`RealtimeStandIn.start({ check })`): an unknown event type, an unknown field at any depth the
 * shape describes, or a missing required field is refused.
 *
 * OpenAI's shapes are derived from the `openai` package's own types
 * (`openai/resources/realtime/realtime.d.ts`, openai@7.59): `exactly<T>()` only compiles when its
 * field list names every key of T and no other, and its required list exactly T's required keys,
 * and the event table must name every member of `RealtimeClientEvent['type']`, so an SDK bump
 * that adds, drops or renames a field fails `tsc` until the stand-in follows. Azure, xAI and
 * Qwen-Omni publish no typed SDK for Node; their shapes are the documented differences from GA
 * (docs/providers.md, "What each variant sends" and "Strict stand-ins").
 */

/** How a JSON value is checked: an object's fields, a union told apart by one field, an array's items, or anything (null). */
export type Shape = ObjectShape | UnionShape | ArrayShape | null;
export interface ObjectShape {
  readonly kind: 'object';
  readonly fields: Readonly<Record<string, Shape>>;
  readonly required: readonly string[];
}
export interface UnionShape {
  readonly kind: 'union';
  readonly by: string;
  readonly options: Readonly<Record<string, Shape>>;
}
export interface ArrayShape {
  readonly kind: 'array';
  readonly item: Shape;
}

/** The keys T requires (not marked `?`). */
type RequiredKeys<T> = { [K in keyof T]-?: Record<never, never> extends Pick<T, K> ? never : K }[keyof T];

/** An object with exactly these fields, of which `required` must be present (a vendor's documented list). */
export function objectOf(fields: Readonly<Record<string, Shape>>, required: readonly string[] = []): ObjectShape {
  return { kind: 'object', fields, required };
}

/** The shape of SDK type T: the compiler holds `fields` to T's keys and `required` to T's required keys. */
function exactly<T>(fields: { readonly [K in keyof T]-?: Shape }, required: { readonly [K in RequiredKeys<T>]-?: true }): ObjectShape {
  return objectOf(fields, Object.keys(required));
}

/** A union of U told apart by its field `by`; the compiler holds `options` to every value U gives that field. */
function taggedBy<U, D extends keyof U & string>(by: D, options: { readonly [K in NonNullable<U[D]> & string]: Shape }): UnionShape {
  return { kind: 'union', by, options };
}

/** A union told apart by `by`, with the options a vendor documents. */
export function unionOf(by: string, options: Readonly<Record<string, Shape>>): UnionShape {
  return { kind: 'union', by, options };
}

export function arrayOf(item: Shape): ArrayShape {
  return { kind: 'array', item };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Every way `value` breaks `shape`, each as `path: why`. A null value is not checked further (nullable fields). */
export function shapeViolations(value: unknown, shape: Shape, path: string): string[] {
  if (shape === null || value === null) return [];
  if (shape.kind === 'array') return Array.isArray(value) ? value.flatMap((v, i) => shapeViolations(v, shape.item, `${path}[${i}]`)) : [`${path}: not an array`];
  if (!isRecord(value)) return [`${path}: not an object`];
  if (shape.kind === 'union') {
    const tag = value[shape.by];
    if (typeof tag !== 'string' || !Object.hasOwn(shape.options, tag)) return [`${path}.${shape.by}: ${JSON.stringify(tag)} is not one of ${Object.keys(shape.options).join(', ')}`];
    return shapeViolations(value, shape.options[tag] ?? null, path);
  }
  const unknown = Object.keys(value).filter((k) => !Object.hasOwn(shape.fields, k)).map((k) => `${path}.${k}: unknown field`);
  const missing = shape.required.filter((k) => !Object.hasOwn(value, k)).map((k) => `${path}.${k}: missing`);
  const nested = Object.entries(value).flatMap(([k, v]) => (Object.hasOwn(shape.fields, k) ? shapeViolations(v, shape.fields[k] ?? null, `${path}.${k}`) : []));
  return [...unknown, ...missing, ...nested];
}

/** A vendor rule beyond shapes: why this (already well-shaped) event is refused given the earlier ones, or null. */
export type EventRule = (event: ClientEvent, earlier: readonly ClientEvent[]) => string | null;

/** A strict check: the event's type must be in `events`, its fields must fit that shape, then every rule must pass. */
export function strictEvents(events: Readonly<Record<string, Shape>>, rules: readonly EventRule[] = []): ClientEventCheck {
  const table = unionOf('type', events);
  return (json, earlier) => {
    const problems = shapeViolations(json, table, 'event');
    const type = isRecord(json) ? String(json.type) : typeof json;
    if (problems.length) return `${type}: ${problems.join('; ')}`;
    for (const rule of rules) {
      const why = rule(json as ClientEvent, earlier);
      if (why) return `${type}: ${why}`;
    }
    return null;
  };
}

// ---- OpenAI Realtime GA, from the SDK's types ----

const FORMAT = taggedBy<R.RealtimeAudioFormats, 'type'>('type', {
  'audio/pcm': exactly<R.RealtimeAudioFormats.AudioPCM>({ rate: null, type: null }, {}),
  'audio/pcmu': exactly<R.RealtimeAudioFormats.AudioPCMU>({ type: null }, {}),
  'audio/pcma': exactly<R.RealtimeAudioFormats.AudioPCMA>({ type: null }, {}),
});

const TURN_DETECTION = taggedBy<R.RealtimeAudioInputTurnDetection, 'type'>('type', {
  server_vad: exactly<R.RealtimeAudioInputTurnDetection.ServerVad>(
    { type: null, create_response: null, idle_timeout_ms: null, interrupt_response: null, prefix_padding_ms: null, silence_duration_ms: null, threshold: null },
    { type: true },
  ),
  semantic_vad: exactly<R.RealtimeAudioInputTurnDetection.SemanticVad>({ type: null, create_response: null, eagerness: null, interrupt_response: null }, { type: true }),
});

const GA_AUDIO = exactly<R.RealtimeAudioConfig>(
  {
    input: exactly<R.RealtimeAudioConfigInput>(
      {
        format: FORMAT,
        noise_reduction: exactly<R.RealtimeAudioConfigInput.NoiseReduction>({ strength: null, type: null }, {}),
        transcription: exactly<R.AudioTranscription>({ delay: null, keywords: null, language: null, languages: null, model: null, prompt: null }, {}),
        turn_detection: TURN_DETECTION,
      },
      {},
    ),
    output: exactly<R.RealtimeAudioConfigOutput>({ format: FORMAT, speed: null, voice: null }, {}),
  },
  {},
);

/** A flat function tool, as GA and xAI take it. */
const FUNCTION_TOOL = exactly<R.RealtimeFunctionTool>({ description: null, name: null, parameters: null, type: null }, {});

const GA_SESSION = taggedBy<R.SessionUpdateEvent['session'], 'type'>('type', {
  realtime: exactly<R.RealtimeSessionCreateRequest>(
    {
      type: null,
      audio: GA_AUDIO,
      include: null,
      instructions: null,
      max_output_tokens: null,
      model: null,
      output_modalities: null,
      parallel_tool_calls: null,
      prompt: null,
      reasoning: null,
      tool_choice: null,
      tools: arrayOf(taggedBy<R.RealtimeToolsConfigUnion, 'type'>('type', { function: FUNCTION_TOOL, mcp: null })),
      tracing: null,
      truncation: null,
    },
    { type: true },
  ),
  transcription: null,
});

const USER_CONTENT = exactly<R.RealtimeConversationItemUserMessage.Content>({ audio: null, detail: null, image_url: null, text: null, transcript: null, type: null }, {});

const GA_ITEM = taggedBy<R.ConversationItem, 'type'>('type', {
  message: taggedBy<Extract<R.ConversationItem, { type: 'message' }>, 'role'>('role', {
    user: exactly<R.RealtimeConversationItemUserMessage>({ content: arrayOf(USER_CONTENT), role: null, type: null, id: null, object: null, status: null }, { content: true, role: true, type: true }),
    system: null,
    assistant: null,
  }),
  function_call_output: exactly<R.RealtimeConversationItemFunctionCallOutput>({ call_id: null, output: null, type: null, id: null, object: null, status: null }, { call_id: true, output: true, type: true }),
  function_call: null,
  mcp_approval_response: null,
  mcp_list_tools: null,
  mcp_call: null,
  mcp_approval_request: null,
});

const RESPONSE_PARAMS = exactly<R.RealtimeResponseCreateParams>(
  { audio: null, conversation: null, input: null, instructions: null, max_output_tokens: null, metadata: null, output_modalities: null, parallel_tool_calls: null, prompt: null, reasoning: null, tool_choice: null, tools: null },
  {},
);

/** Every GA client event (openai@7.59 `RealtimeClientEvent`), each with its SDK shape. */
const GA_EVENTS = {
  'session.update': exactly<R.SessionUpdateEvent>({ session: GA_SESSION, type: null, event_id: null }, { session: true, type: true }),
  'input_audio_buffer.append': exactly<R.InputAudioBufferAppendEvent>({ audio: null, type: null, event_id: null }, { audio: true, type: true }),
  'input_audio_buffer.commit': exactly<R.InputAudioBufferCommitEvent>({ type: null, event_id: null }, { type: true }),
  'input_audio_buffer.clear': exactly<R.InputAudioBufferClearEvent>({ type: null, event_id: null }, { type: true }),
  'output_audio_buffer.clear': exactly<R.OutputAudioBufferClearEvent>({ type: null, event_id: null }, { type: true }),
  'conversation.item.create': exactly<R.ConversationItemCreateEvent>({ item: GA_ITEM, type: null, event_id: null, previous_item_id: null }, { item: true, type: true }),
  'conversation.item.retrieve': exactly<R.ConversationItemRetrieveEvent>({ item_id: null, type: null, event_id: null }, { item_id: true, type: true }),
  'conversation.item.delete': exactly<R.ConversationItemDeleteEvent>({ item_id: null, type: null, event_id: null }, { item_id: true, type: true }),
  'conversation.item.truncate': exactly<R.ConversationItemTruncateEvent>(
    { audio_end_ms: null, content_index: null, item_id: null, type: null, event_id: null },
    { audio_end_ms: true, content_index: true, item_id: true, type: true },
  ),
  'response.create': exactly<R.ResponseCreateEvent>({ type: null, event_id: null, response: RESPONSE_PARAMS }, { type: true }),
  'response.cancel': exactly<R.ResponseCancelEvent>({ type: null, event_id: null, response_id: null }, { type: true }),
} satisfies Record<R.RealtimeClientEvent['type'], Shape>;

/** `openai/realtime`: every GA client event as openai@7.59 types it. */
export const openaiEventsCheck: ClientEventCheck = strictEvents(GA_EVENTS);

// ---- Azure OpenAI: GA, with the transcription model naming a deployment ----

function transcriptionModelOf(event: ClientEvent): unknown {
  const session = isRecord(event.session) ? event.session : {};
  const audio = isRecord(session.audio) ? session.audio : {};
  const input = isRecord(audio.input) ? audio.input : {};
  return isRecord(input.transcription) ? input.transcription.model : undefined;
}

/**
 * `azure/realtime`: the GA events ("The Azure OpenAI Realtime API follows the OpenAI Realtime API
 * specification", learn.microsoft.com realtime-audio-reference, ms.date 2026-05-13), and its one
 * documented deviation: `audio.input.transcription.model` names a transcription deployment of the
 * resource, so a model the resource has no deployment of is refused.
 */
export function azureEventsCheck(deployments: readonly string[]): ClientEventCheck {
  const deploymentRule: EventRule = (event) => {
    if (event.type !== 'session.update') return null;
    const model = transcriptionModelOf(event);
    return model === undefined || (typeof model === 'string' && deployments.includes(model)) ? null : `audio.input.transcription.model ${JSON.stringify(model)} is not a deployment of this resource (${deployments.join(', ')})`;
  };
  return strictEvents(GA_EVENTS, [deploymentRule]);
}

// ---- xAI Grok Voice Agent ----

/** xAI's PCM rates (docs.x.ai voice agent guide, Session Parameters). */
const XAI_PCM_RATES = [8000, 16000, 22050, 24000, 32000, 44100, 48000];

const XAI_FORMAT = objectOf({ type: null, rate: null }, ['type']);

/** xAI's session parameters (the table of docs.x.ai/docs/guides/voice/agent; test/fixtures/providers/xai.session-update.json `documented_fields`). */
const XAI_SESSION = objectOf({
  instructions: null,
  voice: null,
  tools: arrayOf(unionOf('type', { function: FUNCTION_TOOL, file_search: null, web_search: null, x_search: null, mcp: null })),
  turn_detection: objectOf({ type: null, threshold: null, silence_duration_ms: null, prefix_padding_ms: null }, ['type']),
  audio: objectOf({
    input: objectOf({ format: XAI_FORMAT, transcription: objectOf({ model: null, language_hint: null }) }),
    output: objectOf({ format: XAI_FORMAT, speed: null }),
  }),
  reasoning: objectOf({ effort: null }),
  replace: null,
});

/** xAI takes PCM at its listed rates only. */
const xaiRateRule: EventRule = (event) => {
  if (event.type !== 'session.update' || !isRecord(event.session) || !isRecord(event.session.audio)) return null;
  for (const side of ['input', 'output'] as const) {
    const format = isRecord(event.session.audio[side]) ? event.session.audio[side].format : undefined;
    if (isRecord(format) && format.type === 'audio/pcm' && !XAI_PCM_RATES.includes(Number(format.rate))) return `audio.${side}.format.rate ${String(format.rate)} is not an xAI PCM rate`;
  }
  return null;
};

/**
 * `xai/grok-voice`: GA event names, xAI's own session shape (no `type`, no `tool_choice`;
 * top-level voice and VAD), and only the client events its guide lists: it names
 * `conversation.item.truncate`, `conversation.item.retrieve` and `output_audio_buffer.clear`
 * unsupported, and `conversation.item.delete` is not in its list, so all four are refused.
 */
export const xaiEventsCheck: ClientEventCheck = strictEvents(
  {
    'session.update': objectOf({ type: null, session: XAI_SESSION, event_id: null }, ['type', 'session']),
    'input_audio_buffer.append': GA_EVENTS['input_audio_buffer.append'],
    'input_audio_buffer.commit': GA_EVENTS['input_audio_buffer.commit'],
    'input_audio_buffer.clear': GA_EVENTS['input_audio_buffer.clear'],
    'conversation.item.create': GA_EVENTS['conversation.item.create'],
    'response.create': GA_EVENTS['response.create'],
    'response.cancel': GA_EVENTS['response.cancel'],
  },
  [xaiRateRule],
);

// ---- Qwen-Omni-Realtime (DashScope) ----

/** The Qwen-Omni session fields: the client-events page's list (the qwen fixture's `documented_fields`) and those DashScope's SDK sends. */
const QWEN_OMNI_SESSION = objectOf({
  modalities: null,
  voice: null,
  instructions: null,
  input_audio_format: null,
  output_audio_format: null,
  audio: objectOf({ input: objectOf({ format: null }), output: objectOf({ format: null }) }),
  sample_rate: null,
  input_audio_transcription: objectOf({ model: null, language: null, corpus: null }),
  turn_detection: objectOf({ type: null, threshold: null, silence_duration_ms: null, prefix_padding_ms: null, idle_timeout_ms: null }, ['type']),
  tools: arrayOf(objectOf({ type: null, function: objectOf({ name: null, description: null, parameters: null }, ['name']) }, ['type', 'function'])),
  translation: null,
  enable_search: null,
  smooth_output: null,
  temperature: null,
  top_p: null,
  top_k: null,
  max_tokens: null,
  repetition_penalty: null,
  presence_penalty: null,
  seed: null,
});

const QWEN_OMNI_ITEM = unionOf('type', {
  message: objectOf({ id: null, type: null, role: null, content: arrayOf(objectOf({ type: null, text: null }, ['type', 'text'])) }, ['type', 'role', 'content']),
  function_call_output: objectOf({ id: null, type: null, call_id: null, output: null }, ['type', 'call_id', 'output']),
});

/** A bare response.create on an empty Qwen conversation is rejected (wire.md §3.3), so a user item must come first. */
const qwenSeedFirstRule: EventRule = (event, earlier) =>
  event.type === 'response.create' && !earlier.some((e) => e.type === 'conversation.item.create') ? 'response.create before any conversation item (Qwen rejects it on an empty conversation)' : null;

const eventIdOnly = { type: null, event_id: null };

/**
 * `qwen/omni-realtime`: beta event names and the client events DashScope's SDK sends
 * (`dashscope/audio/qwen_omni/omni_realtime.py`, dashscope/dashscope-sdk-python 2fc79c6:
 * `session.update`, `input_audio_buffer.append|commit|clear`, `input_image_buffer.append`,
 * `conversation.item.create`, `response.create` with `{instructions, modalities}`,
 * `response.cancel`, `session.finish`); no `tool_choice`, no truncate, delete or retrieve.
 */
export const qwenOmniEventsCheck: ClientEventCheck = strictEvents(
  {
    'session.update': objectOf({ ...eventIdOnly, session: QWEN_OMNI_SESSION }, ['type', 'session']),
    'session.finish': objectOf(eventIdOnly, ['type']),
    'input_audio_buffer.append': objectOf({ ...eventIdOnly, audio: null }, ['type', 'audio']),
    'input_image_buffer.append': objectOf({ ...eventIdOnly, image: null }, ['type', 'image']),
    'input_audio_buffer.commit': objectOf(eventIdOnly, ['type']),
    'input_audio_buffer.clear': objectOf(eventIdOnly, ['type']),
    'conversation.item.create': objectOf({ ...eventIdOnly, item: QWEN_OMNI_ITEM }, ['type', 'item']),
    'response.create': objectOf({ ...eventIdOnly, response: objectOf({ instructions: null, modalities: null }) }, ['type']),
    'response.cancel': objectOf(eventIdOnly, ['type']),
  },
  [qwenSeedFirstRule],
);
