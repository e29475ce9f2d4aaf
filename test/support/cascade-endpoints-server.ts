import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { SpeechCreateParams } from 'openai/resources/audio/speech';
import type { TranscriptionCreateParamsBase } from 'openai/resources/audio/transcriptions';
import type {
  ChatCompletionAssistantMessageParam,
  ChatCompletionCreateParamsStreaming,
  ChatCompletionFunctionTool,
  ChatCompletionMessageFunctionToolCall,
  ChatCompletionStreamOptions,
  ChatCompletionSystemMessageParam,
  ChatCompletionToolMessageParam,
  ChatCompletionUserMessageParam,
} from 'openai/resources/chat/completions';
import type { FunctionDefinition } from 'openai/resources/shared';
import { z } from 'zod';
import { tone } from './realtime-server.ts';

/** A strict object whose keys are fields of the `openai` package's type `T`: a key `T` lacks does not compile. */
function sdk<T>() {
  return <S extends { [K in keyof S]: K extends keyof T ? z.ZodType : never }>(shape: S) => z.strictObject(shape);
}

const toolCallSchema = sdk<ChatCompletionMessageFunctionToolCall>()({
  id: z.string().min(1),
  type: z.literal('function'),
  function: sdk<ChatCompletionMessageFunctionToolCall.Function>()({ name: z.string().min(1), arguments: z.string().refine((a) => typeof JSON.parse(a) === 'object', 'JSON object text') }),
});
const messageSchema = z.union([
  sdk<ChatCompletionSystemMessageParam>()({ role: z.literal('system'), content: z.string().min(1) }),
  sdk<ChatCompletionUserMessageParam>()({ role: z.literal('user'), content: z.string().min(1) }),
  sdk<ChatCompletionAssistantMessageParam>()({ role: z.literal('assistant'), content: z.string().nullable(), tool_calls: z.array(toolCallSchema).min(1).optional() }),
  sdk<ChatCompletionToolMessageParam>()({ role: z.literal('tool'), content: z.string(), tool_call_id: z.string().min(1) }),
]);
const chatSchema = sdk<ChatCompletionCreateParamsStreaming>()({
  model: z.string().min(1),
  messages: z.array(messageSchema).min(1),
  stream: z.literal(true),
  stream_options: sdk<ChatCompletionStreamOptions>()({ include_usage: z.literal(true) }),
  tools: z
    .array(sdk<ChatCompletionFunctionTool>()({ type: z.literal('function'), function: sdk<FunctionDefinition>()({ name: z.string().regex(/^[a-zA-Z0-9_-]{1,64}$/), description: z.string().optional(), parameters: z.record(z.string(), z.unknown()).optional() }) }))
    .min(1)
    .optional(),
});
const speechSchema = sdk<SpeechCreateParams>()({ model: z.string().min(1), input: z.string().min(1).max(4096), voice: z.string().min(1), response_format: z.literal('pcm') });
/** The multipart text fields of a transcription request (`file` is the upload, checked apart). */
const transcriptionFieldsSchema = sdk<TranscriptionCreateParamsBase>()({ model: z.string().min(1), response_format: z.literal('json'), stream: z.enum(['true', 'false']).optional() });

/** Why a chat request is not one the OpenAI API takes, or null: its shape, then every tool message answering an earlier assistant call. */
export function chatProblem(body: unknown): string | null {
  const parsed = chatSchema.safeParse(body);
  if (!parsed.success) return z.prettifyError(parsed.error).replace(/\s+/g, ' ');
  const asked = new Set<string>();
  for (const m of parsed.data.messages) {
    if (m.role === 'assistant') for (const c of m.tool_calls ?? []) asked.add(c.id);
    if (m.role === 'tool' && !asked.has(m.tool_call_id)) return `a tool message answers ${m.tool_call_id}, which no earlier assistant message called`;
  }
  return null;
}

/** Why a speech request is not one the OpenAI API takes, or null. */
export function speechProblem(body: unknown): string | null {
  const parsed = speechSchema.safeParse(body);
  return parsed.success ? null : z.prettifyError(parsed.error).replace(/\s+/g, ' ');
}

/**
 * Stand-ins for the cascaded harness's three OpenAI-compatible endpoints, each on its own
 * loopback port (so each has its own base URL, as a real stack would): `/v1/audio/transcriptions`
 * (multipart in, `{text}` or SSE `transcript.text.delta` / `transcript.text.done` out),
 * `/v1/chat/completions` (streamed `chat.completion.chunk` SSE with `tool_calls` deltas by index,
 * a final usage chunk and `data: [DONE]`) and `/v1/audio/speech` (raw PCM16 in chunks). Tests
 * script them: each request waits in a queue until the test answers it, or a handler answers on
 * its own. Every request is recorded. They are strict: each request body is checked against the
 * `openai` package's request types (keys bound to them at compile time, unknown and missing fields
 * refused), and one that fails is answered 400 with an OpenAI error body and kept in `violations`.
 */

/** A chat message as the harness sent it. */
export interface SeenMessage {
  readonly role: string;
  readonly content?: string | null;
  readonly tool_calls?: readonly { readonly id: string; readonly type: string; readonly function: { readonly name: string; readonly arguments: string } }[];
  readonly tool_call_id?: string;
}

/** One `/chat/completions` request as received. */
export interface ChatRequest {
  readonly body: { readonly model: string; readonly messages: readonly SeenMessage[]; readonly tools?: readonly { readonly type: string; readonly function: { readonly name: string } }[]; readonly stream?: boolean; readonly stream_options?: unknown };
  readonly headers: IncomingMessage['headers'];
}

/** How the stand-in answers a chat request: text (streamed word by word) and/or tool calls. */
export interface ChatAnswer {
  readonly text?: string;
  readonly calls?: readonly { readonly name: string; readonly args?: unknown; readonly id?: string | null }[];
  readonly usage?: { readonly prompt_tokens: number; readonly completion_tokens: number; readonly cached?: number } | null;
  /** Awaited before the first chunk goes out (a slow first token). */
  readonly beforeFirstChunk?: () => Promise<void> | void;
}

/** One `/audio/transcriptions` request: the multipart fields and the uploaded WAV. */
export interface SttRequest {
  readonly fields: Readonly<Record<string, string>>;
  readonly wav: Buffer;
  readonly headers: IncomingMessage['headers'];
}

/** One `/audio/speech` request. */
export interface TtsRequest {
  readonly body: { readonly model: string; readonly input: string; readonly voice: string; readonly response_format?: string };
  readonly headers: IncomingMessage['headers'];
}

/** A request waiting for the test's answer. */
export interface Pending<Req, Ans> {
  readonly request: Req;
  respond(answer: Ans): void;
}

type Handler<Req, Ans> = (request: Req) => Ans | Promise<Ans>;

/** A queue of requests of one kind: taken in order by the test, or answered by a handler. */
class RequestQueue<Req, Ans> {
  readonly seen: Req[] = [];
  private readonly waiting: Pending<Req, Ans>[] = [];
  private readonly takers: ((p: Pending<Req, Ans>) => void)[] = [];
  handler: Handler<Req, Ans> | null = null;

  arrive(request: Req, answer: (a: Ans) => void): void {
    this.seen.push(request);
    const pending: Pending<Req, Ans> = { request, respond: answer };
    if (this.handler) {
      void Promise.resolve(this.handler(request)).then(answer);
      return;
    }
    const taker = this.takers.shift();
    if (taker) taker(pending);
    else this.waiting.push(pending);
  }

  next(): Promise<Pending<Req, Ans>> {
    const ready = this.waiting.shift();
    if (ready) return Promise.resolve(ready);
    return new Promise((resolve) => this.takers.push(resolve));
  }
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

async function listen(server: Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return (server.address() as AddressInfo).port;
}

/** Writes one SSE event. */
function sse(res: ServerResponse, data: unknown): void {
  res.write(`data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`);
}

/** The three cascade endpoints on three loopback ports. */
export class CascadeStandIn {
  readonly chat = new RequestQueue<ChatRequest, ChatAnswer>();
  readonly stt = new RequestQueue<SttRequest, string>();
  readonly tts = new RequestQueue<TtsRequest, Buffer>();
  /** Speech requests the harness aborted (barge-in) before the stand-in finished answering. */
  readonly ttsAborted: string[] = [];
  /** Stream the transcription as SSE when the request asks for it. */
  sttSse = true;
  /** Why requests were refused (each answered 400). */
  readonly violations: string[] = [];
  private counter = 0;

  private readonly servers: { stt: Server; llm: Server; tts: Server };
  readonly ports: { stt: number; llm: number; tts: number };
  readonly ttsRateHz: number;

  private constructor(
    servers: { stt: Server; llm: Server; tts: Server },
    ports: { stt: number; llm: number; tts: number },
    ttsRateHz: number,
  ) {
    this.servers = servers;
    this.ports = ports;
    this.ttsRateHz = ttsRateHz;
  }

  /** Starts the three servers; speech answers default to a tone of `ttsMs(text)` at `ttsRateHz`. */
  static async start(options: { ttsRateHz?: number; ttsMs?: (text: string) => number } = {}): Promise<CascadeStandIn> {
    const rate = options.ttsRateHz ?? 24_000;
    const ttsMs = options.ttsMs ?? ((text: string) => 120 + 40 * text.split(/\s+/).length);
    const holder: { standIn: CascadeStandIn | null } = { standIn: null };
    const at = (): CascadeStandIn => {
      if (!holder.standIn) throw new Error('stand-in not started');
      return holder.standIn;
    };
    const stt = createServer((req, res) => void at().onStt(req, res));
    const llm = createServer((req, res) => void at().onChat(req, res));
    const tts = createServer((req, res) => void at().onTts(req, res));
    const ports = { stt: await listen(stt), llm: await listen(llm), tts: await listen(tts) };
    const standIn = new CascadeStandIn({ stt, llm, tts }, ports, rate);
    standIn.tts.handler = (r) => tone(ttsMs(r.body.input), rate, 300 + (r.body.input.length % 7) * 20);
    holder.standIn = standIn;
    return standIn;
  }

  /** The environment that points the cascaded harness at these stand-ins. */
  env(extra: Record<string, string> = {}): Record<string, string> {
    return {
      MIVAS_HARNESS: 'cascaded',
      MIVAS_CASCADE_STT_BASE_URL: `http://127.0.0.1:${this.ports.stt}/v1`,
      MIVAS_CASCADE_STT_MODEL: 'whisper-standin',
      MIVAS_CASCADE_STT_API_KEY: 'stt-key',
      MIVAS_CASCADE_LLM_BASE_URL: `http://127.0.0.1:${this.ports.llm}/v1`,
      MIVAS_CASCADE_LLM_MODEL: 'llama-standin',
      MIVAS_CASCADE_TTS_BASE_URL: `http://127.0.0.1:${this.ports.tts}/v1`,
      MIVAS_CASCADE_TTS_MODEL: 'kokoro',
      MIVAS_CASCADE_TTS_VOICE: 'af_heart',
      MIVAS_CASCADE_TTS_RATE_HZ: String(this.ttsRateHz),
      ...extra,
    };
  }

  async close(): Promise<void> {
    await Promise.all(
      Object.values(this.servers).map(
        (s) =>
          new Promise<void>((resolve) => {
            s.closeAllConnections();
            s.close(() => resolve());
          }),
      ),
    );
  }

  /** Answers a request the OpenAI API would refuse: 400 with its error body. */
  private refuse(res: ServerResponse, problem: string): void {
    this.violations.push(problem);
    res.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: problem, type: 'invalid_request_error', param: null, code: null } }));
  }

  private async onStt(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (req.url !== '/v1/audio/transcriptions' || req.method !== 'POST') return void res.writeHead(404).end();
    const raw = await readBody(req);
    // Parsed with the platform's own multipart reader, as a real server would.
    const form = await new Request('http://stand-in/', { method: 'POST', headers: { 'content-type': req.headers['content-type'] ?? '' }, body: new Uint8Array(raw) }).formData();
    const fields: Record<string, string> = {};
    let wav = Buffer.alloc(0);
    for (const [key, value] of form.entries()) {
      if (typeof value === 'string') fields[key] = value;
      else if (key === 'file') wav = Buffer.from(await value.arrayBuffer());
    }
    const fieldsOk = transcriptionFieldsSchema.safeParse(fields);
    if (!fieldsOk.success) return this.refuse(res, `transcription: ${z.prettifyError(fieldsOk.error).replace(/\s+/g, ' ')}`);
    if (wav.subarray(0, 4).toString('latin1') !== 'RIFF') return this.refuse(res, 'transcription: file is not a WAV upload');
    this.stt.arrive({ fields, wav, headers: req.headers }, (text) => {
      if (fields.stream === 'true' && this.sttSse) {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        const words = text.split(' ');
        words.forEach((w, i) => sse(res, { type: 'transcript.text.delta', delta: i ? ` ${w}` : w }));
        sse(res, { type: 'transcript.text.done', text });
        return void res.end();
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ text }));
    });
  }

  private async onChat(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (req.url !== '/v1/chat/completions' || req.method !== 'POST') return void res.writeHead(404).end();
    const raw: unknown = JSON.parse((await readBody(req)).toString('utf8'));
    const problem = chatProblem(raw);
    if (problem) return this.refuse(res, `chat: ${problem}`);
    const body = raw as ChatRequest['body'];
    this.chat.arrive({ body, headers: req.headers }, (answer) => void this.streamAnswer(res, body.model, answer));
  }

  private async streamAnswer(res: ServerResponse, model: string, answer: ChatAnswer): Promise<void> {
    const id = `chatcmpl-${++this.counter}`;
    const chunk = (delta: unknown, finish: string | null = null): unknown => ({ id, object: 'chat.completion.chunk', created: 1_790_000_000, model, choices: [{ index: 0, delta, finish_reason: finish }] });
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    await answer.beforeFirstChunk?.();
    sse(res, chunk({ role: 'assistant', content: '' }));
    const words = (answer.text ?? '').split(' ').filter(Boolean);
    words.forEach((w, i) => sse(res, chunk({ content: i ? ` ${w}` : w })));
    (answer.calls ?? []).forEach((call, index) => {
      const args = JSON.stringify(call.args ?? {});
      const half = Math.floor(args.length / 2);
      const callId = call.id === null ? undefined : (call.id ?? `call_${this.counter}_${index}`);
      sse(res, chunk({ tool_calls: [{ index, ...(callId ? { id: callId } : {}), type: 'function', function: { name: call.name, arguments: '' } }] }));
      sse(res, chunk({ tool_calls: [{ index, function: { arguments: args.slice(0, half) } }] }));
      sse(res, chunk({ tool_calls: [{ index, function: { arguments: args.slice(half) } }] }));
    });
    sse(res, chunk({}, answer.calls?.length ? 'tool_calls' : 'stop'));
    const u = answer.usage === undefined ? { prompt_tokens: 500, completion_tokens: 40, cached: 100 } : answer.usage;
    if (u) sse(res, { id, object: 'chat.completion.chunk', created: 1_790_000_000, model, choices: [], usage: { prompt_tokens: u.prompt_tokens, completion_tokens: u.completion_tokens, total_tokens: u.prompt_tokens + u.completion_tokens, prompt_tokens_details: { cached_tokens: u.cached ?? 0 } } });
    sse(res, '[DONE]');
    res.end();
  }

  private async onTts(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (req.url !== '/v1/audio/speech' || req.method !== 'POST') return void res.writeHead(404).end();
    const raw: unknown = JSON.parse((await readBody(req)).toString('utf8'));
    const problem = speechProblem(raw);
    if (problem) return this.refuse(res, `speech: ${problem}`);
    const body = raw as TtsRequest['body'];
    let aborted = false;
    res.on('close', () => {
      if (!res.writableFinished) {
        aborted = true;
        this.ttsAborted.push(body.input);
      }
    });
    this.tts.arrive({ body, headers: req.headers }, (pcm) => {
      if (aborted) return;
      res.writeHead(200, { 'content-type': 'audio/pcm' });
      // Odd-sized chunks, so the harness must carry a byte across them.
      for (let i = 0; i < pcm.length; i += 4_801) res.write(pcm.subarray(i, i + 4_801));
      res.end();
    });
  }
}
