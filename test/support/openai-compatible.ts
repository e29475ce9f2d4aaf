import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { z } from 'zod';
import { parseWav } from '../../src/audio/index.ts';
import { decodeModemAll, encodeModem } from './text-modem.ts';

/**
 * Local stand-ins for the three OpenAI-compatible endpoints the caller uses, on one loopback
 * HTTP server, speaking the public wire shapes (docs/caller.md cites them):
 * - `POST /v1/chat/completions`: a scriptable model. The test's `chat` function sees each
 *   request body and returns the choice (a tool call, text, or an HTTP error); the stand-in wraps
 *   it in a `chat.completion` object with `id`, `created`, `model`, `system_fingerprint`,
 *   `choices[0].message` (`content`, `tool_calls[{id, type:"function", function:{name,
 *   arguments}}]`), `finish_reason` and `usage` (`prompt_tokens`, `completion_tokens`,
 *   `total_tokens`, `prompt_tokens_details.cached_tokens`).
 * - `POST /v1/audio/transcriptions`: multipart/form-data with `file` (a WAV) and `model`; the
 *   audio is read back as modem text (test/support/text-modem.ts; every message it holds, joined
 *   by a space) and answered `{text, usage: {type:"duration", seconds}}`.
 * - `POST /v1/audio/speech`: `{model, voice, input, response_format:"pcm"}` answered with raw
 *   PCM16 mono at 24 kHz (the text as modem tones), streamed in uneven chunks.
 * Every request is recorded, with its headers, for the tests to check.
 */

/** What the scripted model answers one request with. */
export type ChatChoice =
  | { readonly tool: string; readonly args?: Record<string, unknown> }
  | { readonly content: string }
  | { readonly status: number; readonly body?: string };

const chatRequestSchema = z.looseObject({
  model: z.string().min(1),
  messages: z.array(z.looseObject({ role: z.enum(['system', 'user', 'assistant', 'tool', 'developer']), content: z.string().nullable().optional() })).min(1),
  tools: z.array(z.looseObject({ type: z.literal('function'), function: z.looseObject({ name: z.string(), description: z.string().optional(), parameters: z.record(z.string(), z.unknown()).optional() }) })).optional(),
  tool_choice: z.union([z.enum(['auto', 'required', 'none']), z.looseObject({ type: z.literal('function') })]).optional(),
  temperature: z.number().optional(),
  seed: z.number().int().optional(),
  max_tokens: z.number().int().optional(),
  n: z.number().int().optional(),
  stream: z.boolean().optional(),
});
export type StandInChatRequest = z.infer<typeof chatRequestSchema>;

const speechRequestSchema = z.looseObject({ model: z.string().min(1), voice: z.string().min(1), input: z.string().min(1), response_format: z.string().optional() });

/** One recorded request. */
export interface RecordedRequest {
  readonly path: string;
  readonly headers: IncomingMessage['headers'];
  readonly body: unknown;
}

export interface StandInOptions {
  /** The scripted model; default: always stay silent. */
  readonly chat?: (request: StandInChatRequest, index: number) => ChatChoice;
  /** The fingerprint every completion reports (null: the field is left out, as some servers do). */
  readonly fingerprint?: string | null;
  /** Answer transcriptions with this status instead (a failing ear). */
  readonly transcriptionStatus?: number;
}

export class OpenAICompatibleStandIn {
  readonly requests: RecordedRequest[] = [];
  private chatCount = 0;

  private readonly server: Server;
  readonly port: number;
  private readonly options: StandInOptions;

  private constructor(
    server: Server,
    port: number,
    options: StandInOptions,
  ) {
    this.server = server;
    this.port = port;
    this.options = options;
  }

  static async start(options: StandInOptions = {}): Promise<OpenAICompatibleStandIn> {
    let standIn: OpenAICompatibleStandIn | null = null;
    const server = createServer((req, res) => {
      void standIn?.handle(req, res);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    standIn = new OpenAICompatibleStandIn(server, (server.address() as AddressInfo).port, options);
    return standIn;
  }

  /** http://127.0.0.1:<port>/v1 */
  get baseUrl(): string {
    return `http://127.0.0.1:${this.port}/v1`;
  }

  /** Requests to one path (`/v1/chat/completions`, …). */
  of(path: string): RecordedRequest[] {
    return this.requests.filter((r) => r.path === path);
  }

  chatRequests(): StandInChatRequest[] {
    return this.of('/v1/chat/completions').map((r) => r.body as StandInChatRequest);
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks);
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    try {
      if (req.method === 'POST' && path === '/v1/chat/completions') return this.chat(req, res, raw);
      if (req.method === 'POST' && path === '/v1/audio/transcriptions') return await this.transcribe(req, res, raw);
      if (req.method === 'POST' && path === '/v1/audio/speech') return await this.speak(req, res, raw);
      this.json(res, 404, { error: { message: `no route ${req.method} ${path}`, type: 'invalid_request_error' } });
    } catch (err) {
      this.json(res, 400, { error: { message: err instanceof Error ? err.message : String(err), type: 'invalid_request_error' } });
    }
  }

  private chat(req: IncomingMessage, res: ServerResponse, raw: Buffer): void {
    const body = chatRequestSchema.parse(JSON.parse(raw.toString('utf8')));
    this.requests.push({ path: '/v1/chat/completions', headers: req.headers, body });
    const index = this.chatCount++;
    const choice = this.options.chat?.(body, index) ?? { tool: 'stay_silent' };
    if ('status' in choice) return this.json(res, choice.status, { error: { message: choice.body ?? 'stand-in error', type: 'server_error' } });
    const promptTokens = body.messages.reduce((n, m) => n + Math.ceil((m.content ?? '').length / 4), 0);
    const message =
      'tool' in choice
        ? { role: 'assistant', content: null, refusal: null, tool_calls: [{ id: `call_${index.toString(16).padStart(6, '0')}`, type: 'function', function: { name: choice.tool, arguments: JSON.stringify(choice.args ?? {}) } }] }
        : { role: 'assistant', content: choice.content, refusal: null };
    const completionTokens = 'tool' in choice ? 12 : Math.ceil(choice.content.length / 4);
    this.json(res, 200, {
      id: `chatcmpl-standin${index}`,
      object: 'chat.completion',
      created: 1_780_000_000 + index,
      model: body.model,
      ...(this.options.fingerprint === null ? {} : { system_fingerprint: this.options.fingerprint ?? 'fp_standin01' }),
      choices: [{ index: 0, message, logprobs: null, finish_reason: 'tool' in choice ? 'tool_calls' : 'stop' }],
      usage: { prompt_tokens: promptTokens, completion_tokens: completionTokens, total_tokens: promptTokens + completionTokens, prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 } },
    });
  }

  private async transcribe(req: IncomingMessage, res: ServerResponse, raw: Buffer): Promise<void> {
    const type = req.headers['content-type'] ?? '';
    if (!type.startsWith('multipart/form-data')) throw new Error(`expected multipart/form-data, got ${type}`);
    const form = await new Request('http://stand-in/', { method: 'POST', headers: { 'content-type': type }, body: new Uint8Array(raw) }).formData();
    const file = form.get('file');
    const model = form.get('model');
    if (!(file instanceof Blob) || typeof model !== 'string' || !model) throw new Error('file and model are required');
    const wav = parseWav(Buffer.from(await file.arrayBuffer()));
    const fields = Object.fromEntries([...form.entries()].filter(([k]) => k !== 'file').map(([k, v]) => [k, String(v)]));
    this.requests.push({ path: '/v1/audio/transcriptions', headers: req.headers, body: { ...fields, file: { name: file instanceof File ? file.name : null, type: file.type, bytes: file.size, rate_hz: wav.rateHz, channels: wav.channels } } });
    if (this.options.transcriptionStatus) return this.json(res, this.options.transcriptionStatus, { error: { message: 'stand-in error', type: 'server_error' } });
    const seconds = wav.data.length / 2 / wav.channels / wav.rateHz;
    this.json(res, 200, { text: decodeModemAll(wav.data, wav.rateHz).join(' '), usage: { type: 'duration', seconds: Math.round(seconds * 1000) / 1000 } });
  }

  private async speak(req: IncomingMessage, res: ServerResponse, raw: Buffer): Promise<void> {
    const body = speechRequestSchema.parse(JSON.parse(raw.toString('utf8')));
    this.requests.push({ path: '/v1/audio/speech', headers: req.headers, body });
    if (body.response_format !== 'pcm') throw new Error('this stand-in only speaks response_format "pcm"');
    const pcm = encodeModem(body.input, 24_000);
    res.writeHead(200, { 'Content-Type': 'audio/pcm', 'Transfer-Encoding': 'chunked' });
    // Uneven chunks, one of odd length, as a streaming server may cut them.
    for (let i = 0, size = 4_097; i < pcm.length; i += size, size = size === 4_097 ? 6_000 : 4_097) {
      res.write(pcm.subarray(i, i + size));
      await new Promise((resolve) => setImmediate(resolve));
    }
    res.end();
  }

  private json(res: ServerResponse, status: number, body: unknown): void {
    res.writeHead(status, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify(body));
  }
}
