import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import twilio from 'twilio';
import { WebSocketServer, type WebSocket } from 'ws';
import { z } from 'zod';
import { openingLineOf } from '../../src/caller/index.ts';
import type { Pack, Task } from '../../src/packs/index.ts';
import { muLawToPcm, pcmToMuLaw } from '../../src/providers/index.ts';
import { RoutePlayer } from './route-player.ts';
import { decodeModemAll, encodeModem } from './text-modem.ts';

/**
 * A strict loopback phone bot of the kind a team puts behind Twilio Media Streams (a Pipecat or
 * custom server), for `relay/twilio-ms`. Every frame mivas sends is checked against the shapes of
 * Twilio's reference "Media Streams - WebSocket Messages"
 * (https://www.twilio.com/docs/voice/media-streams/websocket-messages, read 2026-12-02): an
 * unknown or missing field, a frame out of order (`connected`, then `start`, then `media`/`mark`/
 * `stop`), a media frame that is not 20 ms of mu-law, or a missing/wrong `X-Twilio-Signature`
 * (checked with the `twilio` package's own `validateRequest`, 6.2.0) is a violation. The bot is
 * autonomous: it greets, decodes the caller's lines with the test modem, finds the task whose
 * opening line the caller said, plays that task's reference route by calling mivas's platform
 * tool routes with the call id from `start.customParameters`, says goodbye, calls end_call and
 * hangs up. It speaks modem at 8 kHz mu-law, ending each line with a `mark`.
 */

const GREETING = 'Thanks for calling Maple Lane Repairs. How can I help?';
const BRIDGE = 'Sure, let me take care of that.';
const GOODBYE = 'Thank you for calling. Goodbye.';
const FRAME_BYTES = 160;

const connectedSchema = z.strictObject({ event: z.literal('connected'), protocol: z.literal('Call'), version: z.literal('1.0.0') });
const numbered = z.string().regex(/^\d+$/);
const startSchema = z.strictObject({
  event: z.literal('start'),
  sequenceNumber: numbered,
  start: z.strictObject({
    streamSid: z.string().regex(/^MZ[0-9a-f]{32}$/),
    accountSid: z.string().regex(/^AC[0-9a-f]{32}$/),
    callSid: z.string().regex(/^CA[0-9a-f]{32}$/),
    tracks: z.tuple([z.literal('inbound')]),
    customParameters: z.strictObject({ mivas_call_id: z.string().min(1), mivas_tools_url: z.url() }),
    mediaFormat: z.strictObject({ encoding: z.literal('audio/x-mulaw'), sampleRate: z.literal(8000), channels: z.literal(1) }),
  }),
  streamSid: z.string(),
});
const mediaSchema = z.strictObject({
  event: z.literal('media'),
  sequenceNumber: numbered,
  media: z.strictObject({ track: z.literal('inbound'), chunk: numbered, timestamp: numbered, payload: z.base64() }),
  streamSid: z.string(),
});
const markSchema = z.strictObject({ event: z.literal('mark'), sequenceNumber: numbered, streamSid: z.string(), mark: z.strictObject({ name: z.string() }) });
const stopSchema = z.strictObject({ event: z.literal('stop'), sequenceNumber: numbered, streamSid: z.string(), stop: z.strictObject({ accountSid: z.string(), callSid: z.string() }) });
const frameSchema = z.discriminatedUnion('event', [connectedSchema, startSchema, mediaSchema, markSchema, stopSchema]);
type Frame = z.infer<typeof frameSchema>;
type Start = z.infer<typeof startSchema>['start'];

/** What the bot did on one call, for the test's assertions. */
export interface BotCall {
  readonly start: Start | null;
  /** Resolves when the greeting's mark came back (the stream is up and mivas relayed the agent's first line). */
  readonly greeted: Promise<void>;
  readonly task: Task | null;
  /** The caller's lines as the bot decoded them. */
  readonly heard: string[];
  /** Each tool call and the output mivas answered. */
  readonly tools: { readonly name: string; readonly status: number; readonly output: unknown }[];
  readonly done: Promise<void>;
}

export interface BotOptions {
  readonly pack: Pack;
  /** The bearer token of mivas's platform routes. */
  readonly platformToken: string;
  /** When set, the upgrade must carry a valid `X-Twilio-Signature` under this auth token. */
  readonly authToken?: string;
  /** Send every tool call as `{"arguments": {...}}` instead of the bare arguments. */
  readonly wrapArguments?: boolean;
  /** Greet only; the test drives the rest (`say`, `callTool`, `hangUp`). */
  readonly manual?: boolean;
}

/** One relayed call from the bot's side. */
export class BotConnection {
  readonly heard: string[] = [];
  readonly tools: { name: string; status: number; output: unknown }[] = [];
  start: Start | null = null;
  task: Task | null = null;
  readonly done: Promise<void>;
  private inbound: Buffer[] = [];
  private seq = 0;
  private marks = 0;
  private readonly echoes = new Map<string, () => void>();
  private routeStarted = false;
  private listening: NodeJS.Timeout | null = null;
  readonly greeted: Promise<void>;
  private greetingPlayed: () => void = () => undefined;
  private finished: () => void = () => undefined;

  private readonly ws: WebSocket;
  private readonly options: BotOptions;
  private readonly violations: string[];

  constructor(ws: WebSocket, options: BotOptions, violations: string[]) {
    this.ws = ws;
    this.options = options;
    this.violations = violations;
    this.done = new Promise((resolve) => {
      this.finished = resolve;
      ws.on('close', () => {
        if (this.listening) clearTimeout(this.listening);
        resolve();
      });
    });
    this.greeted = new Promise((resolve) => {
      this.greetingPlayed = resolve;
    });
    ws.on('message', (data: Buffer) => this.onFrame(data.toString('utf8')));
  }

  private violation(text: string): void {
    this.violations.push(text);
  }

  private onFrame(text: string): void {
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      return this.violation(`not JSON: ${text.slice(0, 60)}`);
    }
    const parsed = frameSchema.safeParse(json);
    if (!parsed.success) return this.violation(`${(json as { event?: unknown }).event}: ${parsed.error.issues.map((i) => `${i.path.join('.')} ${i.message}`).join('; ')}`);
    const frame = parsed.data;
    const problem = this.orderProblem(frame);
    if (problem) return this.violation(problem);
    this.seq = frame.event === 'connected' ? 0 : Number(frame.sequenceNumber);
    this.act(frame);
  }

  /** What the frame breaks of Twilio's order, or null. */
  private orderProblem(frame: Frame): string | null {
    if (frame.event === 'connected') return this.seq !== 0 || this.start ? 'a second connected' : null;
    if (Number(frame.sequenceNumber) !== this.seq + 1) return `${frame.event}: sequenceNumber ${frame.sequenceNumber} after ${this.seq}`;
    if (frame.event === 'start') return this.start ? 'a second start' : null;
    if (!this.start) return `${frame.event} before start`;
    if (frame.streamSid !== this.start.streamSid) return `${frame.event}: streamSid ${frame.streamSid} is not the stream's`;
    if (frame.event === 'media' && Buffer.from(frame.media.payload, 'base64').length !== FRAME_BYTES) return 'a media frame that is not 20 ms of mu-law';
    return null;
  }

  private act(frame: Frame): void {
    switch (frame.event) {
      case 'start':
        this.start = frame.start;
        return void this.say(GREETING).then(() => this.greetingPlayed());
      case 'media':
        this.inbound.push(Buffer.from(frame.media.payload, 'base64'));
        // Decoding at most every 100 ms keeps the cost low; the last frames of a line are decoded too.
        this.listening ??= setTimeout(() => {
          this.listening = null;
          this.listen();
        }, 100);
        return;
      case 'mark':
        this.echoes.get(frame.mark.name)?.();
        return;
      default:
        return;
    }
  }

  private listen(): void {
    const lines = decodeModemAll(muLawToPcm(Buffer.concat(this.inbound)), 8_000);
    if (lines.length <= this.heard.length) return;
    this.heard.push(...lines.slice(this.heard.length));
    if (!this.routeStarted && !this.options.manual) {
      this.routeStarted = true;
      void this.playRoute(lines[0] ?? '').catch((err: unknown) => this.violation(`route: ${err instanceof Error ? err.message : String(err)}`));
    }
  }

  /** Sends a line as 20 ms mu-law media frames and a mark; resolves when the mark comes back. */
  say(text: string): Promise<void> {
    const streamSid = this.start?.streamSid ?? '';
    const audio = pcmToMuLaw(encodeModem(text, 8_000));
    for (let i = 0; i < audio.length; i += FRAME_BYTES) this.send({ event: 'media', streamSid, media: { payload: audio.subarray(i, i + FRAME_BYTES).toString('base64') } });
    const name = `line_${++this.marks}`;
    const echoed = new Promise<void>((resolve) => this.echoes.set(name, resolve));
    this.send({ event: 'mark', streamSid, mark: { name } });
    return echoed;
  }

  private send(message: unknown): void {
    if (this.ws.readyState === this.ws.OPEN) this.ws.send(JSON.stringify(message));
  }

  private async playRoute(opening: string): Promise<void> {
    const task = [...this.options.pack.tasks.values()].find((t) => openingLineOf(t.intent) === opening) ?? null;
    this.task = task;
    if (!task) throw new Error(`no task opens with ${JSON.stringify(opening)}`);
    await this.say(BRIDGE);
    const player = new RoutePlayer(this.options.pack, task);
    for (let move = player.move(); move.kind === 'call'; move = player.move()) {
      const output = await this.callTool(move.name, move.args);
      player.record(move.name, JSON.stringify(output));
    }
    await this.say(GOODBYE);
    await this.callTool('end_call', { reason: 'caller_done' });
    this.hangUp();
    this.finished();
  }

  /** Hangs up as a bot does: closes the socket. */
  hangUp(): void {
    this.ws.close(1000, 'bot hung up');
  }

  async callTool(name: string, args: Record<string, unknown>): Promise<unknown> {
    const base = this.start?.customParameters.mivas_tools_url ?? '';
    const res = await fetch(`${base}/tools/${name}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${this.options.platformToken}`, 'content-type': 'application/json' },
      body: JSON.stringify(this.options.wrapArguments ? { arguments: args } : args),
      signal: AbortSignal.timeout(10_000),
    });
    const output: unknown = await res.json();
    this.tools.push({ name, status: res.status, output });
    return output;
  }
}

/** The bot's server on loopback, port 0; one autonomous `BotConnection` per upgrade. */
export class TwilioMsBot {
  /** Every frame or upgrade the bot refused, with why. */
  readonly violations: string[] = [];
  readonly calls: BotConnection[] = [];
  private taken = 0;
  private readonly arrivals: ((call: BotConnection) => void)[] = [];

  private readonly server: Server;
  private readonly wss: WebSocketServer;
  readonly url: string;

  private constructor(server: Server, wss: WebSocketServer, url: string) {
    this.server = server;
    this.wss = wss;
    this.url = url;
  }

  static async start(options: BotOptions): Promise<TwilioMsBot> {
    const server = createServer();
    const wss = new WebSocketServer({ noServer: true });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `ws://127.0.0.1:${(server.address() as AddressInfo).port}/media-stream`;
    const bot = new TwilioMsBot(server, wss, url);
    server.on('upgrade', (request: IncomingMessage, socket, head) => {
      const problem = bot.upgradeProblem(request, options.authToken);
      if (problem) {
        bot.violations.push(problem);
        socket.end('HTTP/1.1 403 Forbidden\r\nConnection: close\r\n\r\n');
        return;
      }
      wss.handleUpgrade(request, socket, head, (ws) => {
        const call = new BotConnection(ws, options, bot.violations);
        bot.calls.push(call);
        bot.arrivals.shift()?.(call);
      });
    });
    return bot;
  }

  /** Why the upgrade is refused (path, signature), or null. */
  private upgradeProblem(request: IncomingMessage, authToken: string | undefined): string | null {
    if (request.url !== '/media-stream') return `upgrade on ${request.url}`;
    if (!authToken) return request.headers['x-twilio-signature'] ? 'a signature nobody asked for' : null;
    const signature = request.headers['x-twilio-signature'];
    if (typeof signature !== 'string') return 'no X-Twilio-Signature';
    return twilio.validateRequest(authToken, signature, this.url, {}) ? null : 'X-Twilio-Signature does not verify';
  }

  /** The next call the bot takes (the n-th connection, counting from the first ever). */
  async nextCall(): Promise<BotConnection> {
    const index = this.taken++;
    const call = this.calls[index] ?? (await new Promise<BotConnection>((resolve) => this.arrivals.push(resolve)));
    await call.greeted;
    return call;
  }

  async close(): Promise<void> {
    for (const client of this.wss.clients) client.terminate();
    await new Promise<void>((resolve) => this.wss.close(() => resolve()));
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
