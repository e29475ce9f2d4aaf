import type { WebSocketServer } from 'ws';

/**
 * A stand-in's connections in arrival order, each handed to the test once: `next` gives the
 * first not yet taken, already arrived or still to come. One place for what every loopback
 * stand-in (realtime, Gemini Live, the strict JSON sockets) needs.
 */
export class ConnectionQueue<C> {
  /** Every connection so far, in arrival order. */
  readonly all: C[] = [];
  private readonly waiting: ((c: C) => void)[] = [];
  private taken = 0;

  /** A connection arrived: recorded, and handed to the test if it is already waiting. */
  arrive(conn: C): void {
    this.all.push(conn);
    this.waiting.shift()?.(conn);
  }

  /** The next connection not yet taken by the test. */
  next(): Promise<C> {
    const ready = this.all[this.taken];
    this.taken++;
    if (ready) return Promise.resolve(ready);
    return new Promise((resolve) => this.waiting.push(resolve));
  }
}

/** Ends every client of a stand-in's WebSocket server, then closes it. */
export async function closeStandInServer(server: WebSocketServer): Promise<void> {
  for (const client of server.clients) client.terminate();
  await new Promise<void>((resolve) => server.close(() => resolve()));
}
