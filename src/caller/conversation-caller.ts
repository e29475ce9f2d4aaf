import WebSocket from 'ws';
import type { SpeechSynth } from '../audio/index.ts';
import { decodeServerFrame, encodeCallerFrame } from '../chirp/index.ts';
import { randomIds, systemClock, type Clock, type IdSource } from '../core/index.ts';
import { CallerLog } from './caller-log.ts';
import { CallerLoop, NO_CAPS, type LoopSettings } from './caller-loop.ts';
import { ScriptedMind, type CallerEndReason } from './caller-mind.ts';

/** Where one call is dialed and who is asking. */
export interface DialTarget {
  readonly url: string;
  readonly callId: string;
  readonly taskId: string | null;
  readonly runId: string | null;
  readonly auth: { readonly user: string; readonly pass: string } | null;
  /** A W3C traceparent to send, so the call joins the dialler's trace. */
  readonly traceparent?: string;
}

/** How one call is dialed: the target, and the caller loop's settings (clock and ids default to the real ones). */
export interface ConversationOptions extends DialTarget, Omit<LoopSettings, 'clock' | 'ids'> {
  readonly clock?: Clock;
  readonly ids?: IdSource;
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

/** What the caller observed plus how its side ended. */
export interface ConversationReport extends CallerReport {
  /** Why the caller ended its side; null when the server ended the call first. */
  readonly endReason: CallerEndReason | null;
  /** True when the caller closed the socket. */
  readonly hungUp: boolean;
}

function headersOf(target: DialTarget): Record<string, string> {
  const headers: Record<string, string> = { 'X-Simulation-Result-Id': target.callId };
  if (target.taskId) headers['X-Mivas-Task-Id'] = target.taskId;
  if (target.runId) headers['X-Mivas-Run-Id'] = target.runId;
  if (target.auth) headers.Authorization = `Basic ${Buffer.from(`${target.auth.user}:${target.auth.pass}`).toString('base64')}`;
  if (target.traceparent) headers.traceparent = target.traceparent;
  return headers;
}

/**
 * Dials one CHIRP call with the one caller loop (`CallerLoop`, `caller-loop.ts`): this function
 * only owns the socket. It feeds the loop the server's frames (a frame that does not decode is
 * ignored, as the server ignores ours, wire.md §1.4) and resolves with the report once the socket
 * closed and the loop heard every utterance still waiting.
 */
export function dialConversation(options: ConversationOptions): Promise<ConversationReport> {
  const clock = options.clock ?? systemClock();
  const ids = options.ids ?? randomIds();
  const ws = new WebSocket(options.url, { headers: headersOf(options), perMessageDeflate: false });
  const started = clock.nowMs();
  const refusal: Refusal = { refusedStatus: null, refusedReason: null };
  const open = (): boolean => ws.readyState === ws.OPEN;
  const loop = new CallerLoop({ ...options, clock, ids }, {
    sendFrame: (frame) => {
      if (open()) ws.send(encodeCallerFrame(frame, ids, clock.epochMs()));
    },
    sendAudio: (pcm) => {
      if (!open()) return false;
      ws.send(pcm, { binary: true });
      return true;
    },
    close: (reason) => ws.close(1000, reason),
  });
  ws.on('open', () => loop.connected());
  ws.on('message', (data, isBinary) => {
    if (isBinary) return loop.agentAudio(data as Buffer);
    const decoded = decodeServerFrame(String(data));
    if (!decoded.ok) return;
    const frame = decoded.frame;
    if (frame.type === 'mark') loop.mark(frame.name);
    if (frame.type === 'speech.started') loop.agentStarted(frame.utteranceId);
    if (frame.type === 'speech.completed') loop.agentCompleted(frame.utteranceId);
  });
  onRefusal(ws, refusal);

  return new Promise((resolve) => {
    let finished = false;
    const finish = (closeCode: number, closeReason: string): void => {
      if (finished) return;
      finished = true;
      const durationMs = clock.nowMs() - started;
      void loop.closed().then(() => resolve({
        callId: options.callId,
        taskId: options.taskId,
        closeCode,
        closeReason,
        ...loop.counts,
        durationMs,
        timedOut: loop.timedOut,
        refusedStatus: refusal.refusedStatus,
        ...(refusal.refusedReason ? { refusedReason: refusal.refusedReason } : {}),
        endReason: loop.endReason,
        hungUp: loop.hungUp,
      }));
    };
    ws.on('close', (code, reason) => finish(code, reason.toString()));
    ws.on('error', (err) => {
      if (ws.readyState === ws.CLOSED || ws.readyState === ws.CONNECTING) finish(1006, err.message);
    });
  });
}

/** A call that says one fixed line once the greeting has played, then holds: the scripted mind with that line, no ears and no caps. */
export interface OpeningLineOptions extends DialTarget {
  readonly openingLine: string;
  readonly synth: SpeechSynth;
  /** Real-time pacing with continuous hold audio; false sends the line in one burst (`--fast`). */
  readonly paced: boolean;
  /** A safety limit: the caller closes (1000) if the call has not ended by then. */
  readonly timeoutMs: number;
  readonly clock?: Clock;
  readonly ids?: IdSource;
}

/** Dials the one loop with a caller that says `openingLine` and never hangs up first (`mivas call --say`, plain runs, tests). */
export function dialOpeningLine(options: OpeningLineOptions): Promise<ConversationReport> {
  const { openingLine, synth, ...dial } = options;
  return dialConversation({ ...dial, mind: new ScriptedMind(openingLine), ears: null, mouth: synth, log: new CallerLog(), limits: NO_CAPS });
}

interface Refusal {
  refusedStatus: number | null;
  refusedReason: string | null;
}

/**
 * An upgrade the server refused (401, 409, 503...): its status and the reason from its problem
 * body are kept, and the socket is torn down at once, so a refused call ends in milliseconds
 * instead of waiting out its timeout.
 */
function onRefusal(ws: WebSocket, state: Refusal): void {
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
