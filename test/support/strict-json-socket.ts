import type { IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';
import { closeStandInServer, ConnectionQueue } from './connection-queue.ts';

/**
 * What the strict stand-ins of `type`-tagged JSON WebSockets share (GPT-Live, Phonic): one
 * connection that parses every client frame through the provider's schema, records what it
 * accepted and what it refused (`violations`), and lets a test await the next message of a type;
 * and a loopback server on port 0 that upgrades one path with a bearer key.
 */
export abstract class StrictJsonConnection<M extends { readonly type: string }> {
  readonly received: M[] = [];
  /** Every refused message, with why. */
  readonly violations: string[] = [];
  readonly closed: Promise<number>;
  readonly headers: IncomingHttpHeaders;
  private readonly cursors = new Map<string, number>();
  private readonly waiters: { check: () => boolean; resolve: () => void; reject: (e: Error) => void; what: string }[] = [];
  private isClosed = false;
  private readonly ws: WebSocket;

  constructor(ws: WebSocket, headers: IncomingHttpHeaders) {
    this.ws = ws;
    this.headers = headers;
    ws.on('message', (data: Buffer) => this.onFrame(data));
    this.closed = new Promise((resolve) =>
      ws.on('close', (code) => {
        this.isClosed = true;
        resolve(code);
        this.settle();
      }),
    );
  }

  /** The message, or why it is refused (its schema, or the protocol's order). */
  protected abstract accept(json: unknown): M | string;
  /** The server's answer to an accepted message, if any. */
  protected abstract answer(message: M): void;
  /** The provider's error frame for a refusal. */
  protected abstract errorFrame(reason: string): unknown;

  of<T extends M['type']>(type: T): Extract<M, { type: T }>[] {
    return this.received.filter((m): m is Extract<M, { type: T }> => m.type === type);
  }

  /** The next not-yet-taken message of a type. */
  async next<T extends M['type']>(type: T): Promise<Extract<M, { type: T }>> {
    const taken = this.cursors.get(type) ?? 0;
    await this.waitFor(() => this.of(type).length > taken, `a ${type}`);
    this.cursors.set(type, taken + 1);
    const message = this.of(type)[taken];
    if (!message) throw new Error(`no ${type}`);
    return message;
  }

  /** How many messages of a type `next` has taken. */
  protected taken(type: M['type']): number {
    return this.cursors.get(type) ?? 0;
  }

  protected take(type: M['type'], count: number): void {
    this.cursors.set(type, count);
  }

  waitFor(check: () => boolean, what = 'condition'): Promise<void> {
    if (check()) return Promise.resolve();
    if (this.isClosed) return Promise.reject(new Error(`stand-in socket closed before ${what}`));
    return new Promise((resolve, reject) => this.waiters.push({ check, resolve, reject, what }));
  }

  send(message: unknown): void {
    if (!this.isClosed) this.ws.send(JSON.stringify(message));
  }

  drop(): void {
    this.ws.terminate();
  }

  private onFrame(data: Buffer): void {
    let result: M | string;
    try {
      result = this.accept(JSON.parse(data.toString('utf8')));
    } catch {
      result = 'the frame is not JSON';
    }
    if (typeof result === 'string') {
      this.violations.push(result);
      this.send(this.errorFrame(result));
    } else {
      this.received.push(result);
      this.answer(result);
    }
    this.settle();
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

/** A loopback WebSocket server (port 0) that upgrades only `path` with a bearer key and hands each connection to the test in order. */
export class LoopbackStandIn<C extends { readonly violations: readonly string[] }> {
  private readonly queue = new ConnectionQueue<C>();
  readonly connections: readonly C[] = this.queue.all;
  private readonly server: WebSocketServer;
  readonly port: number;

  protected constructor(server: WebSocketServer, port: number, connect: (ws: WebSocket, headers: IncomingHttpHeaders) => C) {
    this.server = server;
    this.port = port;
    server.on('connection', (ws, req) => {
      this.queue.arrive(connect(ws, req.headers));
    });
  }

  /** Listens on 127.0.0.1, port 0. */
  protected static async listen(path: string): Promise<{ server: WebSocketServer; port: number }> {
    const server = new WebSocketServer({
      port: 0,
      host: '127.0.0.1',
      perMessageDeflate: false,
      verifyClient: (info: { req: { url?: string; headers: IncomingHttpHeaders } }, done: (ok: boolean, status?: number) => void) => {
        if (info.req.url !== path) done(false, 404);
        else if (!info.req.headers.authorization?.startsWith('Bearer ')) done(false, 401);
        else done(true);
      },
    });
    await new Promise<void>((resolve) => server.once('listening', () => resolve()));
    return { server, port: (server.address() as AddressInfo).port };
  }

  /** Every refused message on every connection. */
  violations(): string[] {
    return this.connections.flatMap((c) => c.violations);
  }

  nextConnection(): Promise<C> {
    return this.queue.next();
  }

  async close(): Promise<void> {
    await closeStandInServer(this.server);
  }
}
