import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request the stand-in received. */
export interface BluejayRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: unknown;
  /** Whatever the test's `stamp()` returned when the request arrived (e.g. a manual clock's now). */
  readonly stamp: number;
}

/** A scripted answer. */
export interface BluejayAnswer {
  readonly status: number;
  readonly body?: unknown;
}

/**
 * A local stand-in for the Bluejay REST API (wire.md §4): records every request and answers
 * update-simulation-result from a per-test queue (then 200 success), plus canned answers for the
 * run, results and digital-human endpoints the CLI uses. An answer of status 0 drops the
 * connection (a transport error).
 */
export class BluejayApiStandIn {
  readonly requests: BluejayRequest[] = [];
  /** Answers for the next update-simulation-result requests, in order. */
  readonly updateAnswers: BluejayAnswer[] = [];
  /** GET /retrieve-simulation-results/:run answers by run id. */
  readonly runResults = new Map<string, unknown>();
  readonly digitalHumans = new Map<string, unknown>();
  stamp: () => number = () => Date.now();
  private server: Server | null = null;
  private nextId = 1;
  private waiters: { predicate: () => boolean; resolve: () => void }[] = [];

  /** http://127.0.0.1:<port> (no /v1 suffix: the path root is the API root). */
  url = '';

  /** Starts on an ephemeral loopback port. */
  static async start(): Promise<BluejayApiStandIn> {
    const api = new BluejayApiStandIn();
    api.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let body: unknown = null;
        try {
          body = text ? JSON.parse(text) : null;
        } catch {
          body = text;
        }
        const request = { method: req.method ?? 'GET', path: req.url ?? '/', headers: req.headers, body, stamp: api.stamp() };
        api.requests.push(request);
        const answer = api.answer(request);
        if (answer.status === 0) {
          req.socket.destroy();
        } else {
          res.writeHead(answer.status, { 'content-type': 'application/json' });
          res.end(JSON.stringify(answer.body ?? {}));
        }
        api.wake();
      });
    });
    await new Promise<void>((resolve) => api.server?.listen(0, '127.0.0.1', resolve));
    api.url = `http://127.0.0.1:${(api.server.address() as AddressInfo).port}`;
    return api;
  }

  /** The update-simulation-result requests so far. */
  updates(): BluejayRequest[] {
    return this.requests.filter((r) => r.method === 'POST' && r.path === '/update-simulation-result');
  }

  /** Resolves once the predicate holds (checked after each request); rejects after `limitMs` as a safety net. */
  waitFor(predicate: () => boolean, limitMs = 20_000): Promise<void> {
    if (predicate()) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`bluejay stand-in: condition not met after ${limitMs} ms (${this.requests.length} requests)`)), limitMs);
      this.waiters.push({
        predicate,
        resolve: () => {
          clearTimeout(timer);
          resolve();
        },
      });
    });
  }

  async close(): Promise<void> {
    await new Promise<void>((resolve) => {
      this.server?.closeAllConnections();
      this.server?.close(() => resolve());
    });
  }

  private wake(): void {
    this.waiters = this.waiters.filter((w) => {
      if (!w.predicate()) return true;
      w.resolve();
      return false;
    });
  }

  private answer(request: Omit<BluejayRequest, 'stamp'>): BluejayAnswer {
    const { method, path } = request;
    if (method === 'POST' && path === '/update-simulation-result') return this.updateAnswers.shift() ?? { status: 200, body: { status: 'success', message: 'updated' } };
    if (method === 'POST' && path === '/create-digital-human') {
      const id = `dh_${this.nextId++}`;
      this.digitalHumans.set(id, { id, ...((request.body as { digital_human?: object })?.digital_human ?? {}) });
      return { status: 200, body: { id, status: 'success' } };
    }
    if (method === 'POST' && path === '/queue-simulation-run') return { status: 200, body: { simulation_run_id: 'run_42', simulation_result_ids: ['701', '702'], agent_id: 'agent_1', status: 'QUEUED' } };
    const results = /^\/retrieve-simulation-results\/(.+)$/.exec(path);
    if (method === 'GET' && results?.[1]) {
      const found = this.runResults.get(decodeURIComponent(results[1]));
      return found ? { status: 200, body: found } : { status: 404, body: { detail: 'not found' } };
    }
    const dh = /^\/digital-human\/(.+)$/.exec(path);
    if (method === 'GET' && dh?.[1]) {
      const found = this.digitalHumans.get(decodeURIComponent(dh[1]));
      return found ? { status: 200, body: found } : { status: 404, body: { detail: 'not found' } };
    }
    return { status: 404, body: { detail: `no route ${method} ${path}` } };
  }
}
