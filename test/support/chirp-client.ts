import { randomUUID } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import WebSocket from 'ws';
import { decodeServerFrame, encodeCallerFrame, encodeEnvelope, type CallerFrame, type Decoded, type ServerFrame, type ServerFrameType } from '../../src/chirp/index.ts';
import { randomIds } from '../../src/core/index.ts';

/** The raw HTTP answer to an upgrade request, as the wire carried it. */
export interface UpgradeAnswer {
  /** 101 when the socket opened, else the refusal status. */
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
  /** True only when the server sent 101 Switching Protocols. */
  readonly upgraded: boolean;
}

/** `Authorization: Basic …` for a user and password. */
export function basicAuth(user: string, pass: string): string {
  return `Basic ${Buffer.from(`${user}:${pass}`).toString('base64')}`;
}

/**
 * Sends one upgrade request and reports the server's raw answer: the status line, headers and
 * body of a refusal (read through `unexpected-response`), or 101 when it upgraded (then closed).
 */
export function tryUpgrade(url: string, headers: Record<string, string> = {}): Promise<UpgradeAnswer> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { headers, perMessageDeflate: false });
    let upgradeHeaders: IncomingHttpHeaders | null = null;
    ws.on('upgrade', (res) => {
      upgradeHeaders = res.headers;
    });
    ws.on('unexpected-response', (_req, res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8'), upgraded: upgradeHeaders !== null });
        ws.terminate();
      });
    });
    ws.on('open', () => {
      resolve({ status: 101, headers: upgradeHeaders ?? {}, body: '', upgraded: true });
      ws.close(1000);
    });
    ws.on('error', (err) => {
      if (ws.readyState === ws.CLOSED && upgradeHeaders === null) reject(err);
    });
  });
}

/** A received CHIRP text frame: the raw text (for exactness checks) and what the codec decoded. */
export interface ReceivedText {
  readonly raw: string;
  readonly decoded: Decoded<ServerFrame>;
  /** Binary frames received before this one. */
  readonly afterBinaryFrames: number;
}

/** A received text frame that decoded as one server frame type. */
export interface ReceivedFrame<T extends ServerFrameType> {
  readonly raw: string;
  readonly frame: Extract<ServerFrame, { type: T }>;
  readonly afterBinaryFrames: number;
}

function isOfType<T extends ServerFrameType>(frame: ServerFrame, type: T): frame is Extract<ServerFrame, { type: T }> {
  return frame.type === type;
}

/** How the socket closed. */
export interface CloseInfo {
  readonly code: number;
  readonly reason: string;
}

type Received = { kind: 'text'; text: ReceivedText } | { kind: 'binary'; data: Buffer };

/**
 * A raw CHIRP client for edge cases the local caller never produces: odd-length frames, non-JSON
 * text, unknown types, oversized frames. It records everything the server sends, in order, each
 * text frame as its raw text and the codec's decoding; what it sends goes through the codec
 * (`send`), or as an arbitrary envelope (`sendEnvelope`) or raw text (`sendText`).
 */
export class RawChirpClient {
  readonly received: Received[] = [];
  readonly closed: Promise<CloseInfo>;
  private readonly waiters: { predicate: () => boolean; resolve: () => void }[] = [];
  private readonly ids = randomIds();
  private binaryCount = 0;

  readonly ws: WebSocket;

  private constructor(ws: WebSocket) {
    this.ws = ws;
    ws.on('message', (data, isBinary) => {
      const buf = Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data as ArrayBuffer);
      if (isBinary) {
        this.binaryCount++;
        this.received.push({ kind: 'binary', data: buf });
      } else {
        const raw = buf.toString('utf8');
        this.received.push({ kind: 'text', text: { raw, decoded: decodeServerFrame(raw), afterBinaryFrames: this.binaryCount } });
      }
      this.check();
    });
    this.closed = new Promise((resolve) => {
      ws.on('close', (code, reason) => {
        resolve({ code, reason: reason.toString() });
        this.check();
      });
    });
    ws.on('error', () => {
      /* 'close' follows */
    });
  }

  /** Opens a socket; rejects when the upgrade is refused. */
  static connect(url: string, headers: Record<string, string> = {}, options: { autoPong?: boolean } = {}): Promise<RawChirpClient> {
    return new Promise((resolve, reject) => {
      // autoPong: false plays a dead peer that never answers the server's pings.
      const ws = new WebSocket(url, { headers, perMessageDeflate: false, autoPong: options.autoPong ?? true });
      const client = new RawChirpClient(ws);
      ws.once('open', () => resolve(client));
      ws.once('unexpected-response', (_req, res) => {
        reject(new Error(`upgrade refused: ${res.statusCode}`));
        ws.terminate();
      });
      ws.once('error', reject);
    });
  }

  /** Text frames received so far. */
  texts(): ReceivedText[] {
    return this.received.flatMap((r) => (r.kind === 'text' ? [r.text] : []));
  }

  /** Binary frames received so far. */
  binaries(): Buffer[] {
    return this.received.flatMap((r) => (r.kind === 'binary' ? [r.data] : []));
  }

  /** Text frames of one type that decoded, each with the frame the codec read. */
  ofType<T extends ServerFrameType>(type: T): ReceivedFrame<T>[] {
    return this.texts().flatMap((t) => (t.decoded.ok && isOfType(t.decoded.frame, type) ? [{ raw: t.raw, frame: t.decoded.frame, afterBinaryFrames: t.afterBinaryFrames }] : []));
  }

  /** Resolves once the predicate holds (checked on every frame and at close); rejects if the socket closes first. */
  waitFor(predicate: () => boolean, what = 'condition'): Promise<void> {
    if (predicate()) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const waiter = {
        predicate,
        resolve: () => resolve(),
      };
      this.waiters.push(waiter);
      void this.closed.then((info) => {
        if (this.waiters.includes(waiter) && !predicate()) reject(new Error(`socket closed (${info.code}) before ${what}`));
      });
    });
  }

  /** Resolves once `count` text frames of the type have arrived. */
  waitForType(type: ServerFrameType, count = 1): Promise<void> {
    return this.waitFor(() => this.ofType(type).length >= count, `${count} × ${type}`);
  }

  /** Sends a caller frame through the codec. */
  send(frame: CallerFrame): void {
    this.ws.send(encodeCallerFrame(frame, this.ids, Date.now()));
  }

  /** Sends an envelope of any type and data (unknown types, malformed events). */
  sendEnvelope(type: string, data: Record<string, unknown> = {}): void {
    this.ws.send(encodeEnvelope(type, data, this.ids, Date.now()));
  }

  /** Sends raw text as a text frame. */
  sendText(text: string): void {
    this.ws.send(text, { binary: false });
  }

  /** Sends a binary frame. */
  sendBinary(data: Buffer): void {
    this.ws.send(data, { binary: true });
  }

  /** Sends speech.started, the audio in frames of `frameBytes`, then speech.completed. */
  say(pcm: Buffer, frameBytes: number, utteranceId = `c_${randomUUID().slice(0, 12)}`): void {
    this.send({ type: 'speech.started', utteranceId });
    for (let i = 0; i < pcm.length; i += frameBytes) this.sendBinary(pcm.subarray(i, i + frameBytes));
    this.send({ type: 'speech.completed', utteranceId });
  }

  close(code = 1000): void {
    this.ws.close(code);
  }

  private check(): void {
    for (const w of [...this.waiters]) {
      if (w.predicate()) {
        this.waiters.splice(this.waiters.indexOf(w), 1);
        w.resolve();
      }
    }
  }
}

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/**
 * An oracle written from wire.md, independent of the codec on purpose (it checks the codec's
 * output). Problems with one outbound text frame against the CHIRP envelope (wire.md §1.4, checklist 5):
 * compact JSON whose keys are exactly type, id (UUID v4), ts_ms (an integer within 5 s of now) and
 * data (an object). Empty when the frame is well formed.
 */
export function envelopeProblems(frame: ReceivedText, nowMs = Date.now()): string[] {
  const problems: string[] = [];
  let json: unknown;
  try {
    json = JSON.parse(frame.raw);
  } catch {
    return ['not JSON'];
  }
  if (json === null || typeof json !== 'object' || Array.isArray(json)) return ['not an object'];
  const obj = json as Record<string, unknown>;
  const keys = Object.keys(obj).sort();
  if (keys.join(',') !== 'data,id,ts_ms,type') problems.push(`keys ${keys.join(',')}`);
  if (typeof obj.type !== 'string' || obj.type === '') problems.push('type');
  if (typeof obj.id !== 'string' || !UUID_V4.test(obj.id)) problems.push(`id ${String(obj.id)}`);
  if (typeof obj.ts_ms !== 'number' || !Number.isInteger(obj.ts_ms) || Math.abs(obj.ts_ms - nowMs) > 5_000) problems.push(`ts_ms ${String(obj.ts_ms)}`);
  if (obj.data === null || typeof obj.data !== 'object' || Array.isArray(obj.data)) problems.push('data');
  if (frame.raw !== JSON.stringify(json)) problems.push('not compact');
  return problems;
}
