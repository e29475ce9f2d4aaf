import { connect, createServer, type Server, type Socket } from 'node:net';

/**
 * A loopback TCP proxy in front of a real server (s3rver) that can stall: while stalled it accepts
 * connections, reads what they send and never answers, as a store whose front end is up and its
 * back end hung does. A stall also freezes the connections already open (kept-alive sockets get no
 * answer either). Connections hung by a stall stay hung after it ends; new ones are forwarded
 * again. Loopback only.
 */
export class StallProxy {
  private stalled = false;
  private stalledTotal = 0;
  private readonly held = new Set<Socket>();
  private readonly pairs = new Map<Socket, Socket>();

  private readonly server: Server;
  readonly port: number;

  private constructor(
    server: Server,
    port: number,
  ) {
    this.server = server;
    this.port = port;
  }

  /** Listens on a free loopback port and forwards to 127.0.0.1:`targetPort` (or, with null, only stalls). */
  static async start(targetPort: number | null): Promise<StallProxy> {
    let proxy: StallProxy | null = null;
    const server = createServer((client) => proxy?.accept(client, targetPort));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    proxy = new StallProxy(server, typeof address === 'object' && address ? address.port : 0);
    if (targetPort === null) proxy.stall();
    return proxy;
  }

  /** http://127.0.0.1:<port> */
  endpoint(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  stall(): void {
    this.stalled = true;
    for (const [client, upstream] of this.pairs) {
      this.pairs.delete(client);
      client.unpipe(upstream);
      upstream.unpipe(client);
      upstream.removeAllListeners('close');
      upstream.destroy();
      this.hold(client);
    }
  }

  /** Forwards new connections again. */
  resume(): void {
    this.stalled = false;
  }

  /** Connections accepted and never answered that are still open. */
  hung(): number {
    return this.held.size;
  }

  /** Connections accepted and never answered since start (closed or not). */
  stalledConnections(): number {
    return this.stalledTotal;
  }

  async close(): Promise<void> {
    for (const s of [...this.held, ...this.pairs.keys(), ...this.pairs.values()]) s.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private accept(client: Socket, targetPort: number | null): void {
    client.on('error', () => undefined);
    if (this.stalled || targetPort === null) return this.hold(client);
    const upstream = connect(targetPort, '127.0.0.1');
    upstream.on('error', () => client.destroy());
    this.pairs.set(client, upstream);
    client.once('close', () => {
      this.pairs.delete(client);
      upstream.destroy();
    });
    upstream.once('close', () => client.destroy());
    client.pipe(upstream);
    upstream.pipe(client);
  }

  /** Reads what the client sends and never answers. */
  private hold(client: Socket): void {
    this.held.add(client);
    this.stalledTotal++;
    client.on('data', () => undefined);
    client.resume();
    client.once('close', () => this.held.delete(client));
  }
}
