/**
 * Local CHIRP callers for the live-call bench and the soak: each streams 20 ms frames of hold
 * audio (digital silence) in real time from accept to close, as Bluejay does (wire.md §1.8), and
 * speaks a short tone after each agent utterance. They measure what a caller can see: the
 * interval between agent frames inside an utterance, the bytes of each utterance, and when their
 * own speech left. One shared ticker paces every caller, so hundreds fit on one core.
 * Loopback only.
 */
import WebSocket from 'ws';
import { decodeServerFrame, encodeCallerFrame } from '../src/chirp/index.ts';
import { randomIds } from '../src/core/index.ts';
import { tone } from '../test/support/realtime-server.ts';

const FRAME_BYTES = 640;
const FRAME_MS = 20;
/** Frames 0..10 of an utterance are sent at once: the pacer's 200 ms lead (wire.md §1.7). */
const LEAD_FRAMES = 11;
const SILENCE = Buffer.alloc(FRAME_BYTES);

/** What one caller saw. */
export interface CallerFigures {
  readonly callId: string;
  readonly opened: boolean;
  readonly refusedStatus: number | null;
  readonly closeCode: number | null;
  /** |interval − 20 ms| between consecutive agent frames past the lead, in ms. */
  readonly jitterMs: number[];
  /** How late each frame past the lead arrived against the paced schedule (frame 0's arrival + (n − 10) × 20 ms), in ms. */
  readonly latenessMs: number[];
  /** Bytes of each agent utterance that played to its mark. */
  readonly utteranceBytes: number[];
  readonly interruptedUtterances: number;
  readonly agentUtterances: number;
}

/** How callers dial. */
export interface CallerOptions {
  readonly url: string;
  readonly runId: string;
  /** Milliseconds of tone the caller says after each agent utterance (0: never speaks). */
  readonly speechMs: number;
  /** Pause between the agent's speech.completed and the caller's reply. */
  readonly replyDelayMs: number;
  /** Unpaced: the caller sends its speech at once and no hold audio (`--fast` style). */
  readonly fast?: boolean;
  /** Extra upgrade headers (credentials, a task id). */
  readonly headers?: Record<string, string>;
}

/** One local CHIRP caller. */
export class LoadCaller {
  readonly opened: Promise<boolean>;
  readonly closed: Promise<number>;
  /** performance.now() when the first frame of the caller's latest utterance left. */
  speechSentAtMs: number | null = null;
  private readonly ws: WebSocket;
  private readonly ids = randomIds();
  private readonly speech: Buffer[] = [];
  private speechStarting = false;
  private nextDueMs = 0;
  private lastFrameMs: number | null = null;
  private firstFrameMs = 0;
  /** Frames received in the current utterance; -1 between utterances. */
  private frameIndex = -1;
  private utteranceBytes = 0;
  private isMeasuring = true;
  private figures: { jitterMs: number[]; latenessMs: number[]; utteranceBytes: number[]; interrupted: number; utterances: number } = { jitterMs: [], latenessMs: [], utteranceBytes: [], interrupted: 0, utterances: 0 };
  private refusedStatus: number | null = null;
  private closeCode: number | null = null;
  private isOpen = false;
  private pendingCompletion = false;

  readonly callId: string;
  private readonly options: CallerOptions;
  private readonly speechPcm: Buffer;

  constructor(
    callId: string,
    options: CallerOptions,
    speechPcm: Buffer,
  ) {
    this.callId = callId;
    this.options = options;
    this.speechPcm = speechPcm;
    if (!/^ws:\/\/127\.0\.0\.1:\d+\//.test(options.url)) throw new Error('callers only dial 127.0.0.1');
    this.ws = new WebSocket(options.url, { headers: { 'X-Simulation-Result-Id': callId, 'X-Mivas-Run-Id': options.runId, ...options.headers }, perMessageDeflate: false });
    this.ws.on('unexpected-response', (_req, res) => {
      this.refusedStatus = res.statusCode ?? 0;
      res.resume();
      // Handling the refusal ourselves leaves the request open; end it so 'close' follows.
      this.ws.terminate();
    });
    this.ws.on('error', () => undefined);
    this.opened = new Promise((resolve) => {
      this.ws.once('open', () => {
        this.isOpen = true;
        this.nextDueMs = performance.now();
        resolve(true);
      });
      this.ws.once('close', () => resolve(false));
    });
    this.closed = new Promise((resolve) => {
      this.ws.once('close', (code) => {
        this.isOpen = false;
        this.closeCode = code;
        resolve(code);
      });
    });
    this.ws.on('message', (data, isBinary) => (isBinary ? this.onFrame((data as Buffer).length) : this.onText(String(data))));
  }

  /** Sends every hold/speech frame that is due (paced callers); called by the shared ticker. */
  tick(now: number): void {
    if (!this.isOpen || this.options.fast) return;
    while (this.nextDueMs <= now) {
      const frame = this.speech.shift();
      if (frame && this.speechStarting) {
        this.speechStarting = false;
        this.speechSentAtMs = performance.now();
      }
      this.ws.send(frame ?? SILENCE, { binary: true });
      this.nextDueMs += FRAME_MS;
    }
  }

  /** Starts a fresh measurement window (after the ramp). */
  resetFigures(): void {
    this.figures = { jitterMs: [], latenessMs: [], utteranceBytes: [], interrupted: 0, utterances: 0 };
  }

  /** Stops recording (before hanging up). */
  stopMeasuring(): void {
    this.isMeasuring = false;
  }

  /** Hangs up (the caller closes first: caller_hangup). */
  hangUp(code = 1000): void {
    if (this.ws.readyState === WebSocket.OPEN || this.ws.readyState === WebSocket.CONNECTING) this.ws.close(code, 'bench done');
  }

  /** Vanishes without a close frame (a dropped caller). */
  vanish(): void {
    this.ws.terminate();
  }

  /** Sends raw frames at once (fast callers, fault scenarios). */
  sendNow(frames: readonly (Buffer | string)[]): void {
    for (const f of frames) if (this.ws.readyState === WebSocket.OPEN) this.ws.send(f, { binary: typeof f !== 'string' });
  }

  /** Resolves on the pong of a ping sent now: the server has read every frame sent before it (false if the socket closed first). */
  roundTrip(timeoutMs = 30_000): Promise<boolean> {
    if (this.ws.readyState !== WebSocket.OPEN) return Promise.resolve(false);
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(false), timeoutMs);
      this.ws.once('pong', () => {
        clearTimeout(timer);
        resolve(true);
      });
      this.ws.ping();
    });
  }

  /** True while the socket is open. */
  isLive(): boolean {
    return this.isOpen;
  }

  /** What this caller saw. */
  report(): CallerFigures {
    return {
      callId: this.callId,
      opened: this.closeCode !== null ? this.refusedStatus === null : this.isOpen,
      refusedStatus: this.refusedStatus,
      closeCode: this.closeCode,
      jitterMs: this.figures.jitterMs,
      latenessMs: this.figures.latenessMs,
      utteranceBytes: this.figures.utteranceBytes,
      interruptedUtterances: this.figures.interrupted,
      agentUtterances: this.figures.utterances,
    };
  }

  private onFrame(byteLength: number): void {
    const now = performance.now();
    if (this.frameIndex < 0) return;
    const n = this.frameIndex++;
    this.utteranceBytes += byteLength;
    if (n === 0) this.firstFrameMs = now;
    else if (this.isMeasuring && n >= LEAD_FRAMES) this.figures.latenessMs.push(Math.max(0, now - (this.firstFrameMs + (n - LEAD_FRAMES + 1) * FRAME_MS)));
    if (this.isMeasuring && n >= LEAD_FRAMES && this.lastFrameMs !== null) this.figures.jitterMs.push(Math.abs(now - this.lastFrameMs - FRAME_MS));
    this.lastFrameMs = now;
  }

  private onText(text: string): void {
    const decoded = decodeServerFrame(text);
    if (!decoded.ok) return;
    const event = decoded.frame;
    if (event.type === 'speech.started') {
      this.frameIndex = 0;
      this.lastFrameMs = null;
      this.utteranceBytes = 0;
      this.startUtterance();
    } else if (event.type === 'speech.completed') {
      this.pendingCompletion = true;
      this.frameIndex = -1;
      setTimeout(() => this.closeUtterance(), 50);
      if (this.options.speechMs > 0) setTimeout(() => this.speak(), this.options.replyDelayMs);
    } else if (event.type === 'mark') {
      this.closeUtterance(true);
      this.ws.send(encodeCallerFrame({ type: 'mark', name: event.name }, this.ids, Date.now()));
    }
  }

  private startUtterance(): void {
    if (this.isMeasuring) this.figures.utterances++;
  }

  /** A completed utterance closes with its mark (played to the end) or, 50 ms later without one, as interrupted. */
  private closeUtterance(marked = false): void {
    if (!this.pendingCompletion) return;
    this.pendingCompletion = false;
    if (!this.isMeasuring) return;
    if (marked) this.figures.utteranceBytes.push(this.utteranceBytes);
    else this.figures.interrupted++;
  }

  private speak(): void {
    if (!this.isOpen) return;
    const frames: Buffer[] = [];
    for (let i = 0; i < this.speechPcm.length; i += FRAME_BYTES) frames.push(this.speechPcm.subarray(i, i + FRAME_BYTES));
    if (this.options.fast) {
      this.speechSentAtMs = performance.now();
      // Unpaced: the speech and enough quiet to end the turn, at once.
      this.sendNow([...frames, ...Array.from({ length: 15 }, () => SILENCE)]);
      return;
    }
    this.speechStarting = true;
    this.speech.push(...frames);
  }
}

/** The tone a caller says: audible, so the provider's stand-in VAD hears it. */
export function callerSpeech(ms: number): Buffer {
  return tone(ms, 16_000, 330);
}

/** One timer that paces every caller (20 ms frames; 5 ms granularity). */
export class CallerTicker {
  private timer: NodeJS.Timeout | null = null;
  readonly callers = new Set<LoadCaller>();

  start(): void {
    const loop = (): void => {
      const now = performance.now();
      for (const c of this.callers) c.tick(now);
      this.timer = setTimeout(loop, 5);
    };
    loop();
  }

  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }
}
