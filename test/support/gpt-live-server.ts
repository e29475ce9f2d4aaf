import type { IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';
import { z } from 'zod';
import { isAudible } from './realtime-server.ts';

/**
 * A strict local GPT-Live stand-in: `/v1/live/sessions` over ws:// loopback. Every client event
 * is checked against the shapes of the `openai` SDK's `resources/live/live.d.ts` (openai@7.59.0):
 * an unknown event type, an unknown field or a missing required one is refused with an `error`
 * event and recorded in `violations`, and so is any command before `session.start`. It answers
 * `session.start` with `session.started` and `session.close` with `session.closed`; the test
 * drives the rest (audio, transcripts, the delegated backend's function calls).
 */

const eventId = z.string().nullish();
const text = z.string();
const functionTool = z.strictObject({ type: z.literal('function'), name: z.string().min(1), description: z.string().nullish(), parameters: z.record(z.string(), z.unknown()).nullish(), strict: z.boolean().nullish() });
const responsesConfig = z.strictObject({
  model: z.string().min(1),
  instructions: z.string().nullish(),
  max_output_tokens: z.number().int().nullish(),
  parallel_tool_calls: z.boolean().nullish(),
  reasoning: z.strictObject({ effort: z.string().nullish(), summary: z.string().nullish() }).nullish(),
  service_tier: z.string().nullish(),
  text: z.strictObject({ verbosity: z.string().nullish() }).nullish(),
  tool_choice: z.union([z.enum(['auto', 'none', 'required']), z.strictObject({ type: z.literal('function'), name: z.string() })]).optional(),
  tools: z.array(functionTool).optional(),
});
const delegation = z.union([
  z.null(),
  z.strictObject({ type: z.literal('client'), acknowledgement_delay_ms: z.number().optional() }),
  z.strictObject({ type: z.literal('responses'), responses: responsesConfig, acknowledgement_delay_ms: z.number().optional() }),
]);
const onePart = <T extends z.ZodType>(part: T) => z.array(part).length(1);
const itemMeta = { id: z.string().nullish(), status: z.enum(['incomplete', 'completed']).nullish(), type: z.literal('message').optional() };
const initialItem = z.union([
  z.strictObject({ role: z.literal('developer'), content: onePart(z.strictObject({ text, type: z.literal('input_text').optional() })), ...itemMeta }),
  z.strictObject({ role: z.literal('user'), content: onePart(z.strictObject({ text, type: z.literal('input_text').optional() })), ...itemMeta }),
  z.strictObject({ role: z.literal('assistant'), content: onePart(z.union([z.strictObject({ text, type: z.literal('text').optional() }), z.strictObject({ text, type: z.literal('output_text') })])), ...itemMeta }),
]);
const audioFormat = z.union([z.strictObject({ type: z.literal('audio/pcm'), rate: z.union([z.literal(16_000), z.literal(24_000)]) }), z.strictObject({ type: z.enum(['audio/pcmu', 'audio/pcma']), rate: z.number() })]);
const sessionConfig = z.strictObject({
  model: z.string().min(1),
  audio: z.strictObject({ format: audioFormat.optional(), output: z.strictObject({ voice: z.union([z.string(), z.strictObject({ id: z.string() })]).optional() }).optional() }).optional(),
  client: z.unknown().optional(),
  delegation: delegation.optional(),
  input: z.array(initialItem).max(128).optional(),
  instructions: z.string().nullish(),
  safety_identifier: z.string().nullish(),
  store: z.boolean().optional(),
  triggers: z.array(z.unknown()).optional(),
});
const appendText = <T extends string>(type: T) => z.strictObject({ type: z.literal(type), content: z.string(), delegation_id: z.string().nullable(), event_id: eventId });
const bare = <T extends string>(type: T) => z.strictObject({ type: z.literal(type), event_id: eventId });
const functionCallOutput = z.strictObject({ type: z.literal('function_call_output'), call_id: z.string().min(1), output: z.string(), id: z.string().nullish(), status: z.string().nullish() });

/** Every client event of `ClientEvent` that mivas may send, strictly (the Decisions events are left out: mivas never sends them). */
const clientEventSchema = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('session.start'), session: sessionConfig, event_id: eventId }),
  z.strictObject({ type: z.literal('session.input_audio.append'), audio: z.string(), event_id: eventId }),
  appendText('session.instructions.append'),
  appendText('session.thinking.append'),
  appendText('session.commentary.append'),
  z.strictObject({ type: z.literal('response.item.create'), item: functionCallOutput, event_id: eventId }),
  bare('response.create'),
  bare('session.input_audio.mute'),
  bare('session.input_audio.unmute'),
  bare('session.close'),
]);
export type LiveClientEvent = z.infer<typeof clientEventSchema>;

/** The session mivas started (`session.start`'s `session`). */
export type LiveSessionConfig = z.infer<typeof sessionConfig>;

export class GptLiveConnection {
  /** Call ids are unique across every connection, as the Responses backend's are. */
  private static calls = 0;
  readonly received: LiveClientEvent[] = [];
  /** Every refused event, with why. */
  readonly violations: string[] = [];
  readonly closed: Promise<number>;
  private readonly cursors = new Map<string, number>();
  private readonly waiters: { check: () => boolean; resolve: () => void; reject: (e: Error) => void; what: string }[] = [];
  private isClosed = false;
  private sent = 0;
  private readonly ws: WebSocket;
  readonly headers: IncomingHttpHeaders;

  constructor(ws: WebSocket, headers: IncomingHttpHeaders) {
    this.ws = ws;
    this.headers = headers;
    ws.on('message', (data: Buffer) => this.onMessage(data));
    this.closed = new Promise((resolve) =>
      ws.on('close', (code) => {
        this.isClosed = true;
        resolve(code);
        this.settle();
      }),
    );
  }

  /** The `session` of the `session.start` this connection received. */
  get session(): LiveSessionConfig {
    const start = this.received.find((e) => e.type === 'session.start');
    if (start?.type !== 'session.start') throw new Error('no session.start yet');
    return start.session;
  }

  of<T extends LiveClientEvent['type']>(type: T): Extract<LiveClientEvent, { type: T }>[] {
    return this.received.filter((e): e is Extract<LiveClientEvent, { type: T }> => e.type === type);
  }

  /** The next not-yet-taken event of a type. */
  async next<T extends LiveClientEvent['type']>(type: T): Promise<Extract<LiveClientEvent, { type: T }>> {
    const taken = this.cursors.get(type) ?? 0;
    await this.waitFor(() => this.of(type).length > taken, `a ${type}`);
    this.cursors.set(type, taken + 1);
    const event = this.of(type)[taken];
    if (!event) throw new Error(`no ${type}`);
    return event;
  }

  waitFor(check: () => boolean, what = 'condition'): Promise<void> {
    if (check()) return Promise.resolve();
    if (this.isClosed) return Promise.reject(new Error(`gpt-live stand-in socket closed before ${what}`));
    return new Promise((resolve, reject) => this.waiters.push({ check, resolve, reject, what }));
  }

  /** Resolves at the first audible caller audio. */
  waitForCallerSpeech(): Promise<void> {
    return this.waitFor(() => this.of('session.input_audio.append').some((e) => isAudible(Buffer.from(e.audio, 'base64'))), 'caller speech');
  }

  /** The model speaks: audio deltas of `chunkBytes`, then its transcript. No turn end follows: GPT-Live sends none. */
  speak(pcm: Buffer, transcript: string, chunkBytes = 9_600): void {
    for (let i = 0; i < pcm.length; i += chunkBytes) this.send({ type: 'session.output_audio.delta', delta: pcm.subarray(i, i + chunkBytes).toString('base64') });
    this.send({ type: 'session.output_transcript.delta', delta: transcript, ...this.stamp() });
  }

  /** What the model's transcription heard the caller say. */
  callerSaid(said: string): void {
    this.send({ type: 'session.input_transcript.delta', delta: said, ...this.stamp() });
  }

  /** The delegated backend calls functions: a delegation, then per call a nested `response.output_item.done`. */
  callTools(calls: readonly { readonly name: string; readonly args?: unknown }[]): string[] {
    const delegationId = `dlg_${++GptLiveConnection.calls}`;
    this.send({ type: 'session.delegation.created', event_id: this.nextEventId(), offset_ms: 0, delegation: { id: delegationId, target: 'responses', type: 'delegation', response_id: `resp_${delegationId}` } });
    return calls.map((c, i) => {
      const callId = `call_${++GptLiveConnection.calls}`;
      const item = { id: `fc_${callId}`, type: 'function_call', call_id: callId, name: c.name, arguments: JSON.stringify(c.args ?? {}), status: 'completed' };
      this.send({ type: 'response.event', event_id: this.nextEventId(), delegation_id: delegationId, event: { type: 'response.output_item.done', output_index: i, sequence_number: i + 1, item } });
      return callId;
    });
  }

  /** The function outputs the harness sent, once it asked the backend to continue (`response.create`). */
  async toolOutputs(): Promise<{ callId: string; output: string }[]> {
    const before = this.cursors.get('response.item.create') ?? 0;
    await this.next('response.create');
    const items = this.of('response.item.create').slice(before);
    this.cursors.set('response.item.create', before + items.length);
    return items.map((e) => ({ callId: e.item.call_id, output: e.item.output }));
  }

  drop(): void {
    this.ws.terminate();
  }

  private onMessage(data: Buffer): void {
    let json: unknown;
    try {
      json = JSON.parse(data.toString('utf8'));
    } catch {
      return this.refuse('invalid_json', 'the frame is not JSON');
    }
    const parsed = clientEventSchema.safeParse(json);
    if (!parsed.success) return this.refuse('invalid_request_error', `${(json as { type?: unknown }).type}: ${parsed.error.issues.map((i) => `${i.path.join('.')} ${i.message}`).join('; ')}`);
    const event = parsed.data;
    if (event.type !== 'session.start' && !this.received.some((e) => e.type === 'session.start')) return this.refuse('session_not_started', `${event.type} before session.start`);
    if (event.type === 'session.start' && this.received.some((e) => e.type === 'session.start')) return this.refuse('session_already_started', 'a second session.start');
    if ((event.type === 'response.item.create' || event.type === 'response.create') && this.session.delegation?.type !== 'responses') return this.refuse('invalid_request_error', `${event.type} needs Responses delegation`);
    this.received.push(event);
    if (event.type === 'session.start') this.send({ type: 'session.started', event_id: this.nextEventId(), session: this.resource() });
    if (event.type === 'session.close') this.send({ type: 'session.closed', event_id: this.nextEventId(), reason: 'close_requested', session: this.resource(), usage: { seconds: 1 } });
    this.settle();
  }

  private refuse(code: string, message: string): void {
    this.violations.push(`${code}: ${message}`);
    this.send({ type: 'error', event_id: this.nextEventId(), error: { type: 'invalid_request_error', code, message } });
    this.settle();
  }

  private resource(): Record<string, unknown> {
    return { id: 'live_standin', expires_at: 4_000_000_000, status: 'active', ...this.session };
  }

  private stamp(): { event_id: string; start_ms: number; end_ms: number } {
    return { event_id: this.nextEventId(), start_ms: 0, end_ms: 0 };
  }

  private nextEventId(): string {
    return `evt_${++this.sent}`;
  }

  private send(message: unknown): void {
    if (!this.isClosed) this.ws.send(JSON.stringify(message));
  }

  private settle(): void {
    for (const w of [...this.waiters]) {
      if (w.check()) {
        this.waiters.splice(this.waiters.indexOf(w), 1);
        w.resolve();
      } else if (this.isClosed) {
        this.waiters.splice(this.waiters.indexOf(w), 1);
        w.reject(new Error(`gpt-live stand-in socket closed before ${w.what}`));
      }
    }
  }
}

export class GptLiveStandIn {
  readonly connections: GptLiveConnection[] = [];
  private readonly arrivals: ((c: GptLiveConnection) => void)[] = [];
  private taken = 0;
  private readonly server: WebSocketServer;
  readonly port: number;

  private constructor(server: WebSocketServer, port: number) {
    this.server = server;
    this.port = port;
  }

  /** Listens on loopback, port 0; only `/v1/live/sessions` with a bearer key is upgraded. */
  static async start(): Promise<GptLiveStandIn> {
    const server = new WebSocketServer({
      port: 0,
      host: '127.0.0.1',
      perMessageDeflate: false,
      verifyClient: (info: { req: { url?: string; headers: IncomingHttpHeaders } }, done: (ok: boolean, status?: number) => void) => {
        if (info.req.url !== '/v1/live/sessions') done(false, 404);
        else if (!info.req.headers.authorization?.startsWith('Bearer ')) done(false, 401);
        else done(true);
      },
    });
    await new Promise<void>((resolve) => server.once('listening', () => resolve()));
    const standIn = new GptLiveStandIn(server, (server.address() as AddressInfo).port);
    server.on('connection', (ws, req) => {
      const conn = new GptLiveConnection(ws, req.headers);
      standIn.connections.push(conn);
      standIn.arrivals.shift()?.(conn);
    });
    return standIn;
  }

  env(extra: Record<string, string> = {}): Record<string, string> {
    return { MIVAS_HARNESS: 'openai/gpt-live', OPENAI_API_KEY: 'sk-live-test', MIVAS_GPT_LIVE_BASE_URL: `ws://127.0.0.1:${this.port}/v1`, ...extra };
  }

  /** Every refused event on every connection. */
  violations(): string[] {
    return this.connections.flatMap((c) => c.violations);
  }

  nextConnection(): Promise<GptLiveConnection> {
    const ready = this.connections[this.taken];
    this.taken++;
    if (ready) return Promise.resolve(ready);
    return new Promise((resolve) => this.arrivals.push(resolve));
  }

  async close(): Promise<void> {
    for (const c of this.server.clients) c.terminate();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
