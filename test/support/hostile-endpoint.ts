import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * How the hostile endpoint answers the next request:
 * - `flood`: 200, then `prefix` and filler written as fast as the client takes it, until the client
 *   disconnects (or `FLOOD_LIMIT_BYTES`, so a broken client cannot keep a test running forever);
 * - `declare`: 200 with a `Content-Length` of `FLOOD_LIMIT_BYTES`, then the same flood;
 * - `hang`: reads the request and never answers;
 * - `stall`: 200, `prefix`, then nothing more, the connection left open;
 * - `json`: 200 with `body` (what an honest endpoint would say).
 */
export type HostileMode = { readonly kind: 'flood' | 'declare'; readonly prefix?: string; readonly contentType?: string } | { readonly kind: 'hang' } | { readonly kind: 'stall'; readonly prefix: string; readonly contentType?: string } | { readonly kind: 'json'; readonly body: unknown };

/** The most a flood writes to one client. */
export const FLOOD_LIMIT_BYTES = 1024 * 1024 * 1024;
const CHUNK = Buffer.alloc(64 * 1024, 'a');

/** One request as the endpoint saw it, and what became of its answer. */
export interface HostileExchange {
  readonly method: string;
  readonly path: string;
  readonly requestBytes: number;
  /** Bytes of the answer handed to the socket before the client went away. */
  written: number;
  /** Resolves when the client closed the connection (or the flood limit was reached). */
  readonly closed: Promise<void>;
}

/**
 * A loopback HTTP endpoint that misbehaves on purpose (issue 26): floods, hangs or stalls
 * mid-body, so clients can be shown to stop at their cap and their timeout. Each request takes
 * the next mode from the queue, or the default.
 */
export class HostileEndpoint {
  readonly exchanges: HostileExchange[] = [];
  private readonly queue: HostileMode[] = [];

  private readonly server: Server;
  readonly port: number;
  private fallback: HostileMode;

  private constructor(
    server: Server,
    port: number,
    fallback: HostileMode,
  ) {
    this.server = server;
    this.port = port;
    this.fallback = fallback;
  }

  static async start(fallback: HostileMode): Promise<HostileEndpoint> {
    let self: HostileEndpoint | null = null;
    const server = createServer((req, res) => void self?.handle(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    self = new HostileEndpoint(server, (server.address() as AddressInfo).port, fallback);
    return self;
  }

  /** http://127.0.0.1:<port>/v1 */
  get baseUrl(): string {
    return `http://127.0.0.1:${this.port}/v1`;
  }

  /** The mode of the next requests (queued ones first), or of every later one. */
  next(...modes: HostileMode[]): void {
    this.queue.push(...modes);
  }

  useDefault(mode: HostileMode): void {
    this.fallback = mode;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let requestBytes = 0;
    for await (const chunk of req) requestBytes += (chunk as Buffer).length;
    let markClosed = (): void => undefined;
    const exchange: HostileExchange = { method: req.method ?? '', path: req.url ?? '', requestBytes, written: 0, closed: new Promise<void>((resolve) => (markClosed = resolve)) };
    this.exchanges.push(exchange);
    res.on('close', () => markClosed());
    const mode = this.queue.shift() ?? this.fallback;
    if (mode.kind === 'hang') return;
    if (mode.kind === 'json') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(mode.body));
      return;
    }
    res.writeHead(200, { 'content-type': mode.contentType ?? 'application/json', ...(mode.kind === 'declare' ? { 'content-length': String(FLOOD_LIMIT_BYTES) } : {}) });
    if (mode.prefix) {
      res.write(mode.prefix);
      exchange.written += Buffer.byteLength(mode.prefix);
    }
    if (mode.kind === 'stall') return;
    await this.flood(res, exchange);
  }

  /** Writes filler while the client reads, waiting for drain; stops when it goes away. */
  private async flood(res: ServerResponse, exchange: HostileExchange): Promise<void> {
    let gone = false;
    res.on('close', () => (gone = true));
    while (!gone && exchange.written < FLOOD_LIMIT_BYTES) {
      exchange.written += CHUNK.length;
      if (!res.write(CHUNK)) await new Promise<void>((resolve) => {
        const done = (): void => {
          res.off('drain', done);
          res.off('close', done);
          resolve();
        };
        res.on('drain', done);
        res.on('close', done);
      });
    }
    res.destroy();
  }
}

/** What `work` rejects with, checked to be an instance of `type` (a test of a bound expects a failure). */
export async function rejectionOf<E extends Error>(work: Promise<unknown>, type: abstract new (...args: never[]) => E): Promise<E> {
  const err = await work.then(
    () => null,
    (e: unknown) => e,
  );
  if (!(err instanceof type)) throw new Error(`expected a rejection with ${type.name}, got ${err === null ? 'a result' : String(err)}`);
  return err;
}

/** A fetch that counts the body bytes it hands on: what the client really read off the socket. */
export function countingFetch(): { fetch: typeof fetch; read: () => number } {
  let read = 0;
  const counting: typeof fetch = async (input, init) => {
    const res = await fetch(input, init);
    if (!res.body) return res;
    const counted = res.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          read += chunk.byteLength;
          controller.enqueue(chunk);
        },
      }),
    );
    return new Response(counted, { status: res.status, headers: res.headers });
  };
  return { fetch: counting, read: () => read };
}
