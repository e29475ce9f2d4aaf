import WebSocket from 'ws';
import { FRAME_BYTES, FRAME_MS, type SpeechSynth } from '../audio/index.ts';
import { decodeServerFrame, encodeCallerFrame, type CallerFrame } from '../chirp/index.ts';
import { randomIds, type IdSource } from '../core/index.ts';

/** How one local call is dialed. */
export interface DialOptions {
  readonly url: string;
  readonly callId: string;
  readonly taskId: string | null;
  readonly runId: string | null;
  readonly auth: { readonly user: string; readonly pass: string } | null;
  /** What the caller says once the agent's greeting has finished. */
  readonly openingLine: string;
  readonly synth: SpeechSynth;
  /** Real-time pacing with continuous hold audio; false sends each utterance at once (`--fast`). */
  readonly paced: boolean;
  /** A safety limit: the caller closes (1000) if the call has not ended by then. */
  readonly timeoutMs: number;
  readonly ids?: IdSource;
  /** A W3C traceparent to send, so the call joins the dialler's trace. */
  readonly traceparent?: string;
}

/** What the caller observed. */
export interface CallerReport {
  readonly callId: string;
  readonly taskId: string | null;
  readonly closeCode: number;
  readonly closeReason: string;
  readonly agentUtterances: number;
  readonly agentAudioBytes: number;
  readonly callerAudioBytes: number;
  readonly durationMs: number;
  readonly timedOut: boolean;
  /** Set when the upgrade was refused: the HTTP status. */
  readonly refusedStatus: number | null;
  /** The server's one-line reason for a refusal (`CODE: message` from its problem body), when it gave one. */
  readonly refusedReason?: string;
}

function basicHeader(auth: { user: string; pass: string }): string {
  return `Basic ${Buffer.from(`${auth.user}:${auth.pass}`).toString('base64')}`;
}

/** A local CHIRP caller: dials, waits for the greeting, speaks its opening line, never hangs up first. */
export function dialCall(options: DialOptions): Promise<CallerReport> {
  const ids = options.ids ?? randomIds();
  const headers: Record<string, string> = { 'X-Simulation-Result-Id': options.callId };
  if (options.taskId) headers['X-Mivas-Task-Id'] = options.taskId;
  if (options.runId) headers['X-Mivas-Run-Id'] = options.runId;
  if (options.auth) headers.Authorization = basicHeader(options.auth);
  if (options.traceparent) headers.traceparent = options.traceparent;
  const ws = new WebSocket(options.url, { headers, perMessageDeflate: false });
  const started = performance.now();
  const state = { agentUtterances: 0, agentAudioBytes: 0, callerAudioBytes: 0, spoke: false, timedOut: false, refusedStatus: null as number | null, refusedReason: null as string | null };
  const send = (frame: CallerFrame): void => {
    if (ws.readyState === ws.OPEN) ws.send(encodeCallerFrame(frame, ids, Date.now()));
  };
  const speaker = new CallerSpeaker(ws, options.paced, (bytes) => {
    state.callerAudioBytes += bytes;
  });

  ws.on('open', () => speaker.start());
  ws.on('message', (data, isBinary) => {
    if (isBinary) {
      state.agentAudioBytes += (data as Buffer).length;
      return;
    }
    // A frame that does not decode is ignored, as the server ignores ours (wire.md §1.4).
    const decoded = decodeServerFrame(String(data));
    if (!decoded.ok) return;
    const frame = decoded.frame;
    if (frame.type === 'speech.started') state.agentUtterances++;
    if (frame.type === 'mark') send({ type: 'mark', name: frame.name });
    if (frame.type === 'speech.completed' && !state.spoke) {
      state.spoke = true;
      void options.synth.synthesize(options.openingLine).then((pcm) => speaker.say(pcm, ids, send));
    }
  });
  onRefusal(ws, state);
  const timer = setTimeout(() => {
    state.timedOut = true;
    ws.close(1000, 'caller timeout');
  }, options.timeoutMs);

  return new Promise((resolve) => {
    const finish = (closeCode: number, closeReason: string): void => {
      clearTimeout(timer);
      speaker.stop();
      resolve(callerReport(options, state, closeCode, closeReason, performance.now() - started));
    };
    ws.on('close', (code, reason) => finish(code, reason.toString()));
    ws.on('error', (err) => {
      if (ws.readyState === ws.CLOSED || ws.readyState === ws.CONNECTING) finish(1006, err.message);
    });
  });
}

/**
 * Streams the caller's audio: in paced mode a continuous 20 ms stream of hold audio (silence)
 * with utterances spliced in, as Bluejay sends; in fast mode only the utterances, in one burst.
 */
class CallerSpeaker {
  private queue: Buffer[] = [];
  private timer: NodeJS.Timeout | null = null;
  private nextDueMs = 0;
  private onDrained: (() => void) | null = null;

  private readonly ws: WebSocket;
  private readonly paced: boolean;
  private readonly counted: (bytes: number) => void;

  constructor(
    ws: WebSocket,
    paced: boolean,
    counted: (bytes: number) => void,
  ) {
    this.ws = ws;
    this.paced = paced;
    this.counted = counted;
  }

  start(): void {
    if (!this.paced) return;
    this.nextDueMs = performance.now();
    this.tick();
  }

  say(pcm: Buffer, ids: IdSource, send: (frame: CallerFrame) => void): void {
    const utteranceId = `c_${ids.hex(12)}`;
    send({ type: 'speech.started', utteranceId });
    if (!this.paced) {
      for (let i = 0; i < pcm.length; i += FRAME_BYTES) this.write(pcm.subarray(i, i + FRAME_BYTES));
      send({ type: 'speech.completed', utteranceId });
      return;
    }
    for (let i = 0; i < pcm.length; i += FRAME_BYTES) this.queue.push(pcm.subarray(i, i + FRAME_BYTES));
    this.onDrained = () => send({ type: 'speech.completed', utteranceId });
  }

  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  private tick(): void {
    const now = performance.now();
    while (this.nextDueMs <= now) {
      const frame = this.queue.shift();
      this.write(frame ?? Buffer.alloc(FRAME_BYTES));
      if (!frame && this.onDrained) {
        this.onDrained();
        this.onDrained = null;
      }
      this.nextDueMs += FRAME_MS;
    }
    this.timer = setTimeout(() => this.tick(), Math.max(1, this.nextDueMs - performance.now()));
  }

  private write(frame: Buffer): void {
    if (this.ws.readyState !== this.ws.OPEN) return;
    this.ws.send(frame, { binary: true });
    this.counted(frame.length);
  }
}

/** The caller's opening line from a task intent (kept here for its callers; defined with the caller script in packs). */
export { openingLineOf } from '../packs/index.ts';

/**
 * An upgrade the server refused (401, 409, 503...): its status and the reason from its problem
 * body are kept, and the socket is torn down at once, so a refused call ends in milliseconds
 * instead of waiting out its timeout.
 */
export function onRefusal(ws: WebSocket, state: { refusedStatus: number | null; refusedReason?: string | null }): void {
  ws.on('unexpected-response', (_req, res) => {
    state.refusedStatus = res.statusCode ?? 0;
    const chunks: Buffer[] = [];
    let size = 0;
    res.on('data', (chunk: Buffer) => {
      if (size < 4096) chunks.push(chunk);
      size += chunk.length;
    });
    res.on('end', () => {
      state.refusedReason = refusalReason(Buffer.concat(chunks).toString('utf8'), state.refusedStatus ?? 0);
      ws.terminate();
    });
    res.on('error', () => ws.terminate());
  });
}

function refusalReason(body: string, status: number): string {
  try {
    const parsed = JSON.parse(body) as { error?: { code?: unknown; message?: unknown } };
    if (parsed.error && typeof parsed.error.code === 'string') return `${parsed.error.code}: ${String(parsed.error.message ?? '')}`.trim();
  } catch {
    /* not a problem body */
  }
  return body.trim().slice(0, 200) || `HTTP ${status}`;
}

/** What a caller's call counted, as the report both CHIRP callers return. */
interface CallerCounts {
  readonly agentUtterances: number;
  readonly agentAudioBytes: number;
  readonly callerAudioBytes: number;
  readonly timedOut: boolean;
  readonly refusedStatus: number | null;
  readonly refusedReason?: string | null;
}

/** The report of a finished call from its counts and how it closed. */
export function callerReport(options: Pick<DialOptions, 'callId' | 'taskId'>, state: CallerCounts, closeCode: number, closeReason: string, durationMs: number): CallerReport {
  return {
    callId: options.callId,
    taskId: options.taskId,
    closeCode,
    closeReason,
    agentUtterances: state.agentUtterances,
    agentAudioBytes: state.agentAudioBytes,
    callerAudioBytes: state.callerAudioBytes,
    durationMs,
    timedOut: state.timedOut,
    refusedStatus: state.refusedStatus,
    ...(state.refusedReason ? { refusedReason: state.refusedReason } : {}),
  };
}
