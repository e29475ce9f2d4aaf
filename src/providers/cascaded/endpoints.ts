import { z } from 'zod';
import { randomUUID } from 'node:crypto';
import { wavHeader } from '../../audio/index.ts';
import { boundedFetch, OutboundLimitError, type OutboundBounds } from '../../core/index.ts';
import type { ToolSpec } from '../model-session.ts';
import { sseData } from './sse.ts';

/**
 * Where one OpenAI-compatible endpoint lives: `<baseUrl>/<path>`, with an optional bearer key, and
 * the bounds of each request to it (MIVAS_CASCADE_TIMEOUT_S and the body caps; the timeout covers
 * a streamed body too).
 */
export interface EndpointTarget {
  readonly baseUrl: string;
  readonly model: string;
  readonly apiKey: string | undefined;
  readonly bounds: OutboundBounds;
}

/** A chat message in the `/v1/chat/completions` shape (docs/providers.md, "Cascaded"). */
export type ChatMessage =
  | { readonly role: 'system'; readonly content: string }
  | { readonly role: 'user'; readonly content: string }
  | { role: 'assistant'; content: string | null; readonly tool_calls?: readonly ChatToolCall[] }
  | { readonly role: 'tool'; readonly tool_call_id: string; readonly content: string };

/** A completed tool call as the assistant message records it. */
export interface ChatToolCall {
  readonly id: string;
  readonly type: 'function';
  readonly function: { readonly name: string; readonly arguments: string };
}

/** Token counts of one completion (`usage` of the final chunk with `stream_options.include_usage`). */
export interface ChatUsage {
  readonly promptTokens: number;
  readonly completionTokens: number;
  readonly cachedTokens: number;
}

/** What a streamed completion yields: text as it arrives, then the tool calls and usage at the end. */
export type ChatStreamEvent = { readonly kind: 'first' } | { readonly kind: 'text'; readonly text: string } | { readonly kind: 'end'; readonly toolCalls: readonly ChatToolCall[]; readonly usage: ChatUsage | null; readonly finishReason: string | null };

/** A failed request: which stage, the HTTP status (null: network) and the start of the body. */
export class EndpointError extends Error {
  readonly stage: 'stt' | 'llm' | 'tts';
  readonly status: number | null;

  constructor(
    stage: 'stt' | 'llm' | 'tts',
    status: number | null,
    message: string,
  ) {
    super(message);
    this.stage = stage;
    this.status = status;
    this.name = 'EndpointError';
  }
}

function headers(target: EndpointTarget, json: boolean): Record<string, string> {
  const h: Record<string, string> = {};
  if (json) h['Content-Type'] = 'application/json';
  if (target.apiKey) h.Authorization = `Bearer ${target.apiKey}`;
  return h;
}

async function post(stage: EndpointError['stage'], target: EndpointTarget, path: string, body: BodyInit, json: boolean, signal: AbortSignal): Promise<Response> {
  let res: Response;
  try {
    res = await boundedFetch(target.bounds)(`${target.baseUrl}${path}`, { method: 'POST', headers: headers(target, json), body, signal });
  } catch (err) {
    if (signal.aborted) throw err;
    if (err instanceof OutboundLimitError) throw stageError(stage, err);
    throw new EndpointError(stage, null, `${stage} endpoint unreachable: ${err instanceof Error ? err.message : String(err)}`);
  }
  if (!res.ok) {
    const text = (await res.text().catch(() => '')).replace(/\s+/g, ' ').slice(0, 300);
    throw new EndpointError(stage, res.status, `${stage} endpoint answered HTTP ${res.status}${text ? `: ${text}` : ''}`);
  }
  return res;
}

/** A body read past a bound fails as the stage's EndpointError, so the call's failure names the stage. */
function stageError(stage: EndpointError['stage'], err: unknown): unknown {
  return err instanceof OutboundLimitError ? new EndpointError(stage, null, `${stage} endpoint: ${err.message}`) : err;
}

async function* staged<T>(stage: EndpointError['stage'], source: AsyncIterable<T>): AsyncGenerator<T> {
  try {
    yield* source;
  } catch (err) {
    throw stageError(stage, err);
  }
}

const transcriptionSchema = z.object({ text: z.string() });
const transcriptionEventSchema = z.union([z.object({ type: z.literal('transcript.text.delta'), delta: z.string() }), z.object({ type: z.literal('transcript.text.done'), text: z.string() }), z.looseObject({ type: z.string() })]);

/**
 * `POST /audio/transcriptions` (multipart: `file` as a WAV of the segment, `model`): the JSON
 * answer's `text`, or with `stream` the `transcript.text.done` event of the SSE answer (deltas are
 * joined when no done event comes).
 */
export async function transcribe(target: EndpointTarget, pcm: Buffer, rateHz: number, stream: boolean, signal: AbortSignal): Promise<string> {
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(Buffer.concat([wavHeader(pcm.length, rateHz, 1), pcm]))], { type: 'audio/wav' }), 'caller.wav');
  form.append('model', target.model);
  form.append('response_format', 'json');
  if (stream) form.append('stream', 'true');
  const res = await post('stt', target, '/audio/transcriptions', form, false, signal);
  if (!stream || !(res.headers.get('content-type') ?? '').includes('text/event-stream') || !res.body) {
    const answer: unknown = await res.json().catch((err: unknown) => {
      if (err instanceof OutboundLimitError) throw stageError('stt', err);
      return null;
    });
    const parsed = transcriptionSchema.safeParse(answer);
    if (!parsed.success) throw new EndpointError('stt', res.status, 'stt endpoint answered without a text field');
    return parsed.data.text.trim();
  }
  let deltas = '';
  for await (const data of staged('stt', sseData(res.body))) {
    if (data === '[DONE]') break;
    const event = transcriptionEventSchema.safeParse(safeJson(data));
    if (!event.success) continue;
    if (event.data.type === 'transcript.text.done' && 'text' in event.data && typeof event.data.text === 'string') return event.data.text.trim();
    if (event.data.type === 'transcript.text.delta' && 'delta' in event.data && typeof event.data.delta === 'string') deltas += event.data.delta;
  }
  return deltas.trim();
}

const chunkSchema = z.object({
  choices: z
    .array(
      z.object({
        delta: z
          .object({
            content: z.string().nullish(),
            tool_calls: z
              .array(z.object({ index: z.number().int().nonnegative().default(0), id: z.string().nullish(), function: z.object({ name: z.string().nullish(), arguments: z.string().nullish() }).nullish() }))
              .nullish(),
          })
          .nullish(),
        finish_reason: z.string().nullish(),
      }),
    )
    .default([]),
  usage: z
    .object({ prompt_tokens: z.number().int().nonnegative().default(0), completion_tokens: z.number().int().nonnegative().default(0), prompt_tokens_details: z.object({ cached_tokens: z.number().int().nonnegative().nullish() }).nullish() })
    .nullish(),
});

/** The tools as chat completions take them: `{type: "function", function: {name, description, parameters}}`. */
export function chatTools(tools: readonly ToolSpec[]): unknown[] {
  return tools.map((t) => ({ type: 'function', function: { name: t.name, description: t.description, parameters: t.parameters } }));
}

/**
 * `POST /chat/completions` with `stream: true` and `stream_options.include_usage`: yields `first` at the first
 * token (text or tool call), text deltas as they arrive, then one `end` with the tool calls assembled by `index` (an id the server
 * leaves out is made up), the usage of the final chunk and the finish reason.
 */
export async function* streamChat(target: EndpointTarget, messages: readonly ChatMessage[], tools: readonly ToolSpec[], signal: AbortSignal): AsyncGenerator<ChatStreamEvent> {
  const body: Record<string, unknown> = { model: target.model, messages, stream: true, stream_options: { include_usage: true } };
  if (tools.length) body.tools = chatTools(tools);
  const res = await post('llm', target, '/chat/completions', JSON.stringify(body), true, signal);
  if (!res.body) throw new EndpointError('llm', res.status, 'llm endpoint answered without a body');
  const calls = new Map<number, { id: string | null; name: string; arguments: string }>();
  let usage: ChatUsage | null = null;
  let finishReason: string | null = null;
  let first = true;
  for await (const data of staged('llm', sseData(res.body))) {
    if (data.trim() === '[DONE]') break;
    const chunk = chunkSchema.safeParse(safeJson(data));
    if (!chunk.success) continue;
    if (chunk.data.usage) usage = { promptTokens: chunk.data.usage.prompt_tokens, completionTokens: chunk.data.usage.completion_tokens, cachedTokens: chunk.data.usage.prompt_tokens_details?.cached_tokens ?? 0 };
    for (const choice of chunk.data.choices) {
      if (choice.finish_reason) finishReason = choice.finish_reason;
      const delta = choice.delta;
      if (first && (delta?.content || delta?.tool_calls?.length)) {
        first = false;
        yield { kind: 'first' };
      }
      if (delta?.content) yield { kind: 'text', text: delta.content };
      for (const part of delta?.tool_calls ?? []) {
        const call = calls.get(part.index) ?? { id: null, name: '', arguments: '' };
        if (part.id) call.id = part.id;
        if (part.function?.name) call.name += part.function.name;
        if (part.function?.arguments) call.arguments += part.function.arguments;
        calls.set(part.index, call);
      }
    }
  }
  const toolCalls = [...calls.entries()]
    .sort(([a], [b]) => a - b)
    .filter(([, c]) => c.name !== '')
    .map(([index, c]): ChatToolCall => ({ id: c.id ?? `call_${index}_${randomUUID().slice(0, 8)}`, type: 'function', function: { name: c.name, arguments: c.arguments } }));
  yield { kind: 'end', toolCalls, usage, finishReason };
}

/**
 * `POST /audio/speech` with `response_format: "pcm"` (raw 16-bit little-endian mono at the
 * endpoint's rate, 24 kHz for OpenAI and Kokoro): yields the body's bytes as they arrive.
 */
export async function* streamSpeech(target: EndpointTarget & { readonly voice: string }, text: string, signal: AbortSignal): AsyncGenerator<Buffer> {
  const res = await post('tts', target, '/audio/speech', JSON.stringify({ model: target.model, input: text, voice: target.voice, response_format: 'pcm' }), true, signal);
  if (!res.body) return;
  const reader = res.body.getReader();
  let finished = false;
  try {
    for (;;) {
      const { value, done } = await reader.read().catch((err: unknown) => {
        throw stageError('tts', err);
      });
      finished = done;
      if (done) break;
      if (value.length) yield Buffer.from(value.buffer, value.byteOffset, value.byteLength);
    }
  } finally {
    if (!finished) await reader.cancel().catch(() => undefined);
    reader.releaseLock();
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return null;
  }
}
