import type { AddressInfo } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';
import { isAudible } from './realtime-server.ts';

/**
 * A local Gemini Live stand-in: BidiGenerateContent over ws:// loopback in the JSON shapes of
 * googleapis/js-genai (`setup` → `setupComplete`; `realtimeInput`, `clientContent`, `toolResponse`
 * in; `serverContent` with `modelTurn.parts[].inlineData`, transcriptions, `turnComplete`,
 * `interrupted`; `toolCall`; `usageMetadata`; `goAway`; `sessionResumptionUpdate` out). One
 * connection per stream; the test drives each, awaiting what the harness sent.
 */

export type GeminiClientMessage = Readonly<Record<string, unknown>>;

/** The usage every scripted turn reports (LiveServerMessage.usageMetadata shape). */
export const GEMINI_USAGE = {
  promptTokenCount: 400,
  responseTokenCount: 100,
  totalTokenCount: 500,
  promptTokensDetails: [
    { modality: 'TEXT', tokenCount: 300 },
    { modality: 'AUDIO', tokenCount: 100 },
  ],
  responseTokensDetails: [{ modality: 'AUDIO', tokenCount: 100 }],
};

export class GeminiConnection {
  /** Call ids are unique across every connection, as the Live API's are. */
  private static calls = 0;
  readonly received: GeminiClientMessage[] = [];
  readonly closed: Promise<number>;
  private readonly cursors = new Map<string, number>();
  private readonly waiters: { check: () => boolean; resolve: () => void; reject: (e: Error) => void; what: string }[] = [];
  private isClosed = false;

  private readonly ws: WebSocket;
  readonly url: string;

  constructor(
    ws: WebSocket,
    url: string,
  ) {
    this.ws = ws;
    this.url = url;
    ws.on('message', (data: Buffer) => {
      const message = JSON.parse(data.toString('utf8')) as GeminiClientMessage;
      this.received.push(message);
      if ('setup' in message) this.send({ setupComplete: {} });
      this.settle();
    });
    this.closed = new Promise((resolve) =>
      ws.on('close', (code) => {
        this.isClosed = true;
        resolve(code);
        this.settle();
      }),
    );
  }

  /** The kind of a client message: `setup`, `clientContent`, `toolResponse`, `text` or `audio` (realtimeInput). */
  static kindOf(m: GeminiClientMessage): string {
    if ('realtimeInput' in m) {
      const input = m.realtimeInput as Record<string, unknown>;
      return 'text' in input ? 'text' : 'audio' in input ? 'audio' : 'realtimeInput';
    }
    return Object.keys(m)[0] ?? '';
  }

  of(kind: string): GeminiClientMessage[] {
    return this.received.filter((m) => GeminiConnection.kindOf(m) === kind);
  }

  /** The next not-yet-taken message of a kind. */
  async next(kind: string): Promise<GeminiClientMessage> {
    const taken = this.cursors.get(kind) ?? 0;
    await this.waitFor(() => this.of(kind).length > taken, `a ${kind}`);
    this.cursors.set(kind, taken + 1);
    return this.of(kind)[taken] ?? {};
  }

  waitFor(check: () => boolean, what = 'condition'): Promise<void> {
    if (check()) return Promise.resolve();
    if (this.isClosed) return Promise.reject(new Error(`gemini stand-in socket closed before ${what}`));
    return new Promise((resolve, reject) => this.waiters.push({ check, resolve, reject, what }));
  }

  /** Resolves at the first audible caller audio after `from` audio messages. */
  waitForCallerSpeech(from = 0): Promise<void> {
    return this.waitFor(() => this.of('audio').slice(from).some((m) => isAudible(Buffer.from(String(((m.realtimeInput as Record<string, unknown>).audio as Record<string, unknown>).data), 'base64'))), 'caller speech');
  }

  send(message: unknown): void {
    if (!this.isClosed) this.ws.send(JSON.stringify(message));
  }

  /** The model speaks: audio in parts of `chunkBytes`, its transcript, then (unless told not to) turnComplete with usage. */
  speak(pcm: Buffer, transcript: string, options: { turnComplete?: boolean; chunkBytes?: number } = {}): void {
    const chunk = options.chunkBytes ?? 9_600;
    for (let i = 0; i < pcm.length; i += chunk) this.send({ serverContent: { modelTurn: { parts: [{ inlineData: { mimeType: 'audio/pcm;rate=24000', data: pcm.subarray(i, i + chunk).toString('base64') } }] } } });
    this.send({ serverContent: { outputTranscription: { text: transcript } } });
    if (options.turnComplete ?? true) this.turnComplete();
  }

  turnComplete(): void {
    this.send({ serverContent: { generationComplete: true } });
    this.send({ serverContent: { turnComplete: true }, usageMetadata: GEMINI_USAGE });
  }

  /** What the server's transcription heard the caller say. */
  callerSaid(text: string): void {
    this.send({ serverContent: { inputTranscription: { text } } });
  }

  /** A toolCall; `id: null` leaves the id out, as the Live API has been seen to. */
  callTools(calls: readonly { readonly name: string; readonly args?: unknown; readonly id?: string | null }[]): void {
    this.send({ toolCall: { functionCalls: calls.map((c) => ({ ...(c.id === null ? {} : { id: c.id ?? `fc_${++GeminiConnection.calls}` }), name: c.name, args: c.args ?? {} })) } });
  }

  /** The functionResponses of the next toolResponse. */
  async toolResponses(): Promise<{ id?: string; name: string; response: Record<string, unknown> }[]> {
    const m = await this.next('toolResponse');
    return (m.toolResponse as { functionResponses: { id?: string; name: string; response: Record<string, unknown> }[] }).functionResponses;
  }

  drop(): void {
    this.ws.terminate();
  }

  private settle(): void {
    for (const w of [...this.waiters]) {
      if (w.check()) {
        this.waiters.splice(this.waiters.indexOf(w), 1);
        w.resolve();
      } else if (this.isClosed) {
        this.waiters.splice(this.waiters.indexOf(w), 1);
        w.reject(new Error(`gemini stand-in socket closed before ${w.what}`));
      }
    }
  }
}

export class GeminiLiveStandIn {
  readonly connections: GeminiConnection[] = [];
  private readonly arrivals: ((c: GeminiConnection) => void)[] = [];
  private taken = 0;
  /** Connection numbers (1-based) whose upgrade is refused with 503. */
  readonly refuse = new Set<number>();

  private readonly server: WebSocketServer;
  readonly port: number;

  private constructor(
    server: WebSocketServer,
    port: number,
  ) {
    this.server = server;
    this.port = port;
  }

  static async start(): Promise<GeminiLiveStandIn> {
    const holder: { s: GeminiLiveStandIn | null; attempts: number } = { s: null, attempts: 0 };
    const server = new WebSocketServer({
      port: 0,
      host: '127.0.0.1',
      perMessageDeflate: false,
      verifyClient: (_info: unknown, done: (ok: boolean, status?: number) => void) => {
        holder.attempts++;
        if (holder.s?.refuse.has(holder.attempts)) done(false, 503);
        else done(true);
      },
    });
    await new Promise<void>((resolve) => server.once('listening', () => resolve()));
    const standIn = new GeminiLiveStandIn(server, (server.address() as AddressInfo).port);
    holder.s = standIn;
    server.on('connection', (ws, req) => {
      const conn = new GeminiConnection(ws, req.url ?? '/');
      standIn.connections.push(conn);
      standIn.arrivals.shift()?.(conn);
    });
    return standIn;
  }

  env(extra: Record<string, string> = {}): Record<string, string> {
    return { MIVAS_HARNESS: 'google/gemini-live', GEMINI_API_KEY: 'gm-test-key', MIVAS_GEMINI_BASE_URL: `ws://127.0.0.1:${this.port}`, ...extra };
  }

  nextConnection(): Promise<GeminiConnection> {
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
