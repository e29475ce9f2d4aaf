import type { IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';
import { closeStandInServer, ConnectionQueue } from './connection-queue.ts';
import { z } from 'zod';

/** Which event names the stand-in speaks: GA (OpenAI, Azure, xAI) or beta (Qwen, wire.md §2.8). */
export type StandInDialect = 'ga' | 'beta';

/** A client event as the stand-in received it: its type plus every other field. */
export type ClientEvent = z.infer<typeof clientEventSchema>;
const clientEventSchema = z.looseObject({ type: z.string() });

/** One entry of the wire log, both directions in order: `in` came from the harness, `out` went to it. */
export interface WireEntry {
  readonly seq: number;
  readonly dir: 'in' | 'out';
  readonly type: string;
  readonly event: Readonly<Record<string, unknown>>;
}

/** A piece of a scripted response: audio (PCM16 at the provider's output rate) or a function call. */
export type ResponsePart =
  | { readonly audio: Buffer; readonly transcript?: string; readonly chunkBytes?: number; readonly itemId?: string }
  | { readonly call: { readonly name: string; readonly args?: unknown; readonly rawArguments?: string; readonly callId?: string } };

/** The usage every scripted response reports unless told otherwise (wire.md §2.9 shape). */
export const DEFAULT_USAGE = {
  total_tokens: 300,
  input_tokens: 200,
  output_tokens: 100,
  input_token_details: { text_tokens: 120, audio_tokens: 80, image_tokens: 0, cached_tokens: 40, cached_tokens_details: { text_tokens: 30, audio_tokens: 10, image_tokens: 0 } },
  output_token_details: { text_tokens: 20, audio_tokens: 80 },
} as const;

/** What a response sent: its id, and per part the item id (audio) or call id (function call). */
export interface SentResponse {
  readonly responseId: string;
  readonly itemIds: readonly string[];
  readonly callIds: readonly string[];
}

/** A sine tone of `ms` milliseconds at `rateHz`: audible, so it is never mistaken for hold noise. */
export function tone(ms: number, rateHz: number, freqHz = 440): Buffer {
  const samples = Math.round((ms * rateHz) / 1000);
  const pcm = Buffer.alloc(samples * 2);
  for (let i = 0; i < samples; i++) pcm.writeInt16LE(Math.round(8000 * Math.sin((2 * Math.PI * freqHz * i) / rateHz)), i * 2);
  return pcm;
}

/** True when any sample is louder than `threshold` (the local caller's hold audio is digital silence). */
export function isAudible(pcm: Buffer, threshold = 1000): boolean {
  for (let i = 0; i + 1 < pcm.length; i += 2) if (Math.abs(pcm.readInt16LE(i)) > threshold) return true;
  return false;
}

const BETA_NAMES: Readonly<Record<string, string>> = {
  'response.output_audio.delta': 'response.audio.delta',
  'response.output_audio.done': 'response.audio.done',
  'response.output_audio_transcript.done': 'response.audio_transcript.done',
};

/**
 * How a stand-in answers `response.create` on its own, for tests that cannot drive it (the
 * preflight): `call-tools` calls the first offered tool once, then speaks after its output;
 * `ignore-tools` only ever speaks. Unset: the test answers.
 */
export type AutoRespond = 'call-tools' | 'ignore-tools';

/**
 * How a stand-in refuses the session setup: the `error` event it answers the first session.update
 * with, in the shape of openai-node 7.59's `RealtimeErrorEvent` / `RealtimeError`
 * (`resources/realtime/realtime.d.ts`: `error {type, code?, message, param?, event_id?}`), whose
 * doc says most errors leave the session open. No session.updated follows.
 */
export interface SetupRefusal {
  readonly type: string;
  readonly code: string | null;
  readonly message: string;
  readonly param: string | null;
}

/** A tool as a session.update offers it, flat (GA, xAI) or nested (Qwen). */
const offeredToolSchema = z.union([
  z.object({ type: z.literal('function'), name: z.string(), parameters: z.unknown().optional() }),
  z.object({ type: z.literal('function'), function: z.object({ name: z.string(), parameters: z.unknown().optional() }) }),
]);
const requiredSchema = z.object({ required: z.array(z.string()) });

/**
 * One harness connection to the stand-in. The test drives it: it awaits the harness's events
 * (never a timer) and answers with scripted server events. Every event both ways is logged.
 */
/** A strict stand-in's check of one client frame against its provider's reference: why it is refused, or null. */
export type ClientEventCheck = (json: unknown, earlier: readonly ClientEvent[]) => string | null;

export class StandInConnection {
  readonly log: WireEntry[] = [];
  /** Client frames the `check` refused, with why (each answered with an `error` event and otherwise ignored). */
  readonly violations: string[] = [];
  /** Set by a strict stand-in (RealtimeStandIn.start's `check`). */
  check: ClientEventCheck | null = null;
  readonly closed: Promise<{ code: number }>;
  private readonly cursors = new Map<string, number>();
  private readonly waiters: { check: () => boolean; resolve: () => void; reject: (err: Error) => void; what: string }[] = [];
  private counter = 0;
  private isClosed = false;

  private readonly ws: WebSocket;
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
  private readonly dialect: StandInDialect;
  private readonly autoSessionUpdated: boolean;
  private readonly autoRespond: AutoRespond | null;
  private readonly autoAudioRateHz;
  private readonly refuseSetup: SetupRefusal | null;

  constructor(
    ws: WebSocket,
    url: string,
    headers: IncomingHttpHeaders,
    dialect: StandInDialect,
    autoSessionUpdated: boolean,
    autoRespond: AutoRespond | null = null,
    autoAudioRateHz = 24_000,
    refuseSetup: SetupRefusal | null = null,
  ) {
    this.ws = ws;
    this.url = url;
    this.headers = headers;
    this.dialect = dialect;
    this.autoSessionUpdated = autoSessionUpdated;
    this.autoRespond = autoRespond;
    this.autoAudioRateHz = autoAudioRateHz;
    this.refuseSetup = refuseSetup;
    ws.on('message', (data, isBinary) => {
      if (!isBinary) this.onClientText(data.toString());
    });
    this.closed = new Promise((resolve) => {
      ws.on('close', (code) => {
        this.isClosed = true;
        resolve({ code });
        this.settle();
      });
    });
    this.send({ type: 'session.created', session: { id: 'sess_standin' } });
  }

  /** Client events received so far, optionally of one type. */
  received(type?: string): ClientEvent[] {
    return this.log.filter((e) => e.dir === 'in' && (type === undefined || e.type === type)).map((e) => clientEventSchema.parse(e.event));
  }

  /** The next not-yet-taken client event of a type (already received or still to come). */
  async next(type: string, predicate: (e: ClientEvent) => boolean = () => true): Promise<ClientEvent> {
    const taken = this.cursors.get(type) ?? 0;
    const findIndex = (): number => this.received(type).findIndex((e, i) => i >= taken && predicate(e));
    await this.waitFor(() => findIndex() >= 0, `a ${type}`);
    const index = findIndex();
    this.cursors.set(type, index + 1);
    return this.received(type)[index] ?? { type };
  }

  /** Resolves once the predicate holds, checked on every client event; rejects if the socket closes first. */
  waitFor(check: () => boolean, what = 'condition'): Promise<void> {
    if (check()) return Promise.resolve();
    if (this.isClosed) return Promise.reject(new Error(`stand-in socket closed before ${what}`));
    return new Promise((resolve, reject) => this.waiters.push({ check, resolve, reject, what }));
  }

  /** The output the harness sent for a call id (a function_call_output item). */
  async toolOutput(callId: string): Promise<string> {
    const event = await this.next('conversation.item.create', (e) => outputOf(e, callId) !== null);
    return outputOf(event, callId) ?? '';
  }

  /** Bytes of caller audio appended so far (decoded). */
  appendedBytes(): number {
    return this.received('input_audio_buffer.append').reduce((n, e) => n + decodeAudio(e).length, 0);
  }

  /** Resolves at the first appended chunk with audible samples after `fromAppend` appends. */
  waitForCallerSpeech(fromAppend = 0): Promise<void> {
    return this.waitFor(() => this.received('input_audio_buffer.append').slice(fromAppend).some((e) => isAudible(decodeAudio(e))), 'caller speech');
  }

  /** Sends one server event (beta names when the dialect is beta). */
  send(event: { readonly type: string } & Readonly<Record<string, unknown>>): void {
    const type = this.dialect === 'beta' ? (BETA_NAMES[event.type] ?? event.type) : event.type;
    const wire = { event_id: `evt_${++this.counter}`, ...event, type };
    this.log.push({ seq: this.log.length, dir: 'out', type, event: wire });
    if (!this.isClosed) this.ws.send(JSON.stringify(wire));
  }

  /** Sends a whole response: created, each part's items, then done with `usage` (null: none). */
  respond(parts: readonly ResponsePart[], options: { usage?: unknown; status?: string; withoutDone?: boolean } = {}): SentResponse {
    const responseId = `resp_${++this.counter}`;
    const itemIds: string[] = [];
    const callIds: string[] = [];
    this.send({ type: 'response.created', response: { id: responseId, status: 'in_progress' } });
    for (const part of parts) {
      if ('audio' in part) itemIds.push(this.sendAudioItem(responseId, part));
      else callIds.push(this.sendCallItem(responseId, part.call));
    }
    if (!options.withoutDone) this.done(responseId, options);
    return { responseId, itemIds, callIds };
  }

  /** Sends response.done for a response. */
  done(responseId: string, options: { usage?: unknown; status?: string } = {}): void {
    const usage = options.usage === undefined ? DEFAULT_USAGE : options.usage;
    this.send({ type: 'response.done', response: { id: responseId, object: 'realtime.response', status: options.status ?? 'completed', usage } });
  }

  /** Closes the socket without a close frame: a provider that drops mid-call. */
  drop(): void {
    this.ws.terminate();
  }

  private sendAudioItem(responseId: string, part: Extract<ResponsePart, { audio: Buffer }>): string {
    const itemId = part.itemId ?? `item_${++this.counter}`;
    const chunk = part.chunkBytes ?? 4_800;
    this.send({ type: 'response.output_item.added', response_id: responseId, item: { id: itemId, type: 'message', role: 'assistant' } });
    for (let i = 0; i < part.audio.length; i += chunk) {
      this.send({ type: 'response.output_audio.delta', response_id: responseId, item_id: itemId, content_index: 0, delta: part.audio.subarray(i, i + chunk).toString('base64') });
    }
    this.send({ type: 'response.output_audio.done', response_id: responseId, item_id: itemId, content_index: 0 });
    if (part.transcript !== undefined) this.send({ type: 'response.output_audio_transcript.done', response_id: responseId, item_id: itemId, transcript: part.transcript });
    this.send({ type: 'response.output_item.done', response_id: responseId, item: { id: itemId, type: 'message', role: 'assistant' } });
    return itemId;
  }

  /** A function call reported both ways, as the GA server does (wire.md §2.6); the harness must dispatch it once. */
  private sendCallItem(responseId: string, call: Extract<ResponsePart, { call: unknown }>['call']): string {
    const callId = call.callId ?? `call_${++this.counter}`;
    const itemId = `item_${++this.counter}`;
    const args = call.rawArguments ?? JSON.stringify(call.args ?? {});
    this.send({ type: 'response.output_item.added', response_id: responseId, item: { id: itemId, type: 'function_call', call_id: callId, name: call.name, arguments: '' } });
    this.send({ type: 'response.function_call_arguments.done', response_id: responseId, item_id: itemId, call_id: callId, name: call.name, arguments: args });
    this.send({ type: 'response.output_item.done', response_id: responseId, item: { id: itemId, type: 'function_call', call_id: callId, name: call.name, arguments: args } });
    return callId;
  }

  private onClientText(text: string): void {
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      json = { type: 'invalid_json', text };
    }
    const refusal = this.check?.(json, this.received()) ?? null;
    if (refusal) {
      this.violations.push(refusal);
      this.send({ type: 'error', error: { type: 'invalid_request_error', code: 'invalid_value', message: refusal, param: null } });
      this.settle();
      return;
    }
    const event = clientEventSchema.safeParse(json);
    const entry = event.success ? event.data : { type: 'invalid_event' };
    this.log.push({ seq: this.log.length, dir: 'in', type: entry.type, event: entry });
    if (entry.type === 'session.update') this.answerSessionUpdate(entry);
    if (entry.type === 'response.create' && this.autoRespond) this.answerOnItsOwn();
    this.settle();
  }

  /** session.updated (when automatic), or the setup refusal for the first session.update. */
  private answerSessionUpdate(entry: ClientEvent): void {
    if (this.refuseSetup && this.received('session.update').length === 1) {
      const clientEventId = typeof entry.event_id === 'string' ? entry.event_id : null;
      this.send({ type: 'error', error: { ...this.refuseSetup, event_id: clientEventId } });
      return;
    }
    if (this.autoSessionUpdated) this.send({ type: 'session.updated', session: { ...sessionOf(entry) } });
  }

  /** The scripted answer of an auto-responding stand-in (see AutoRespond). */
  private answerOnItsOwn(): void {
    const speak = (): void => void this.respond([{ audio: tone(200, this.autoAudioRateHz), transcript: 'Done.' }]);
    if (this.autoRespond === 'ignore-tools' || this.received('conversation.item.create').some((e) => outputOf(e) !== null)) return speak();
    const offered = this.received('session.update').flatMap((e) => {
      const tools = sessionOf(e).tools;
      return Array.isArray(tools) ? tools : [];
    });
    const tool = offeredToolSchema.safeParse(offered[0]);
    if (!tool.success) return speak();
    const { name, parameters } = 'function' in tool.data ? tool.data.function : tool.data;
    const required = requiredSchema.safeParse(parameters);
    const args = Object.fromEntries((required.success ? required.data.required : []).map((k) => [k, 'ready']));
    this.respond([{ call: { name, args } }]);
  }

  private settle(): void {
    for (const w of [...this.waiters]) {
      if (w.check()) {
        this.waiters.splice(this.waiters.indexOf(w), 1);
        w.resolve();
      } else if (this.isClosed) {
        this.waiters.splice(this.waiters.indexOf(w), 1);
        w.reject(new Error(`stand-in socket closed before ${w.what}`));
      }
    }
  }
}

const appendSchema = z.object({ audio: z.string() });
const outputItemSchema = z.object({ item: z.object({ type: z.literal('function_call_output'), call_id: z.string(), output: z.string() }) });
const sessionSchema = z.object({ session: z.record(z.string(), z.unknown()) });

/** The PCM of an input_audio_buffer.append. */
export function decodeAudio(event: ClientEvent): Buffer {
  const parsed = appendSchema.safeParse(event);
  return parsed.success ? Buffer.from(parsed.data.audio, 'base64') : Buffer.alloc(0);
}

/** The output string of a function_call_output item for a call id, or null. */
export function outputOf(event: ClientEvent, callId?: string): string | null {
  const parsed = outputItemSchema.safeParse(event);
  if (!parsed.success || (callId !== undefined && parsed.data.item.call_id !== callId)) return null;
  return parsed.data.item.output;
}

/** The `session` object of a session.update. */
export function sessionOf(event: ClientEvent): Record<string, unknown> {
  const parsed = sessionSchema.safeParse(event);
  return parsed.success ? parsed.data.session : {};
}

/**
 * A local realtime server speaking the GA protocol (or Qwen's beta names) on ws:// loopback, so
 * harnesses are tested with no network and no TLS (wire.md §6 item 25). It answers every
 * session.update with session.updated; everything else is up to the test.
 */
export class RealtimeStandIn {
  private readonly queue = new ConnectionQueue<StandInConnection>();
  readonly connections: readonly StandInConnection[] = this.queue.all;

  private readonly server: WebSocketServer;
  readonly port: number;

  private constructor(
    server: WebSocketServer,
    port: number,
  ) {
    this.server = server;
    this.port = port;
  }

  /**
   * Starts a stand-in on an ephemeral loopback port. `refuseUpgrade` answers every upgrade with
   * that HTTP status and body (a provider rejecting a key); `autoRespond` answers response.create
   * on its own, with audio at `autoAudioRateHz`; `refuseSetup` answers the first session.update
   * with that error instead of session.updated; `autoSessionUpdated: false` leaves it unanswered;
   * `check` makes it strict: a client frame it refuses is answered with `error` and recorded.
   */
  static async start(
    options: {
      dialect?: StandInDialect;
      autoSessionUpdated?: boolean;
      autoRespond?: AutoRespond;
      autoAudioRateHz?: number;
      refuseUpgrade?: { readonly status: number; readonly body: string };
      refuseSetup?: SetupRefusal;
      check?: ClientEventCheck;
    } = {},
  ): Promise<RealtimeStandIn> {
    const refuse = options.refuseUpgrade;
    const server = new WebSocketServer({
      port: 0,
      host: '127.0.0.1',
      perMessageDeflate: false,
      ...(refuse ? { verifyClient: (_info: unknown, done: (ok: boolean, status?: number, body?: string, headers?: Record<string, string>) => void) => done(false, refuse.status, refuse.body, { 'Content-Type': 'application/json' }) } : {}),
    });
    await new Promise<void>((resolve) => server.once('listening', () => resolve()));
    const standIn = new RealtimeStandIn(server, (server.address() as AddressInfo).port);
    server.on('connection', (ws, req) => {
      const conn = new StandInConnection(ws, req.url ?? '/', req.headers, options.dialect ?? 'ga', options.autoSessionUpdated ?? true, options.autoRespond ?? null, options.autoAudioRateHz, options.refuseSetup ?? null);
      conn.check = options.check ?? null;
      standIn.queue.arrive(conn);
    });
    return standIn;
  }

  /** ws://127.0.0.1:<port><path>: a base URL for the harness settings. */
  baseUrl(path = '/v1'): string {
    return `ws://127.0.0.1:${this.port}${path}`;
  }

  /** The next connection not yet taken by the test. */
  nextConnection(): Promise<StandInConnection> {
    return this.queue.next();
  }

  /** Closes every connection and the server. */
  async close(): Promise<void> {
    await closeStandInServer(this.server);
  }
}
