import WebSocket from 'ws';
import { emptyUsage } from '../../snapshot/index.ts';
import { connectForCall } from '../harness-kit.ts';
import type { AgentSetup } from '../model-session.ts';
import { OwnTurnsSession } from '../own-turns-session.ts';
import { handoffCueText, OPENING_CUE } from '../cues.ts';
import { SpokenTurns } from '../spoken-turns.ts';
import { functionCallOf, GPT_LIVE_RATE_HZ, parseLiveEvent, sessionStart, toolOutputEvent, type LiveEvent } from './wire.ts';
import { refuseOnUpgradeFailure, socketSetup } from '../socket-setup.ts';

/** How long opening a session (upgrade and `session.started`) may take. */
const OPEN_TIMEOUT_MS = 15_000;
/** The largest frame accepted from the server (a second of 24 kHz audio is 64 KB base64). */
const MAX_FRAME_BYTES = 4 * 1024 * 1024;


/** What the GPT-Live harness is configured with. */
export interface GptLiveOptions {
  /** `<base>/live/sessions`. */
  readonly url: string;
  readonly apiKey: string;
  readonly model: string;
  readonly voice: string;
  readonly backendModel: string;
  /** Output audio that pauses this long ends the model's turn (GPT-Live sends no turn end). */
  readonly turnGapMs: number;
}

/** One `/v1/live/sessions` WebSocket: one specialist's session. */
class LiveSocket {
  readonly ready: Promise<void>;
  /** The session's audio seconds as last reported (`session.usage.updated` is cumulative per session). */
  reportedSeconds = 0;
  closedByUs = false;
  private readonly ws: WebSocket;

  constructor(
    options: GptLiveOptions,
    start: unknown,
    onEvent: (socket: LiveSocket, event: LiveEvent) => void,
    onLost: (socket: LiveSocket, why: string) => void,
  ) {
    this.ws = new WebSocket(options.url, { headers: { Authorization: `Bearer ${options.apiKey}` }, perMessageDeflate: false, handshakeTimeout: OPEN_TIMEOUT_MS, maxPayload: MAX_FRAME_BYTES });
    const setup = socketSetup(OPEN_TIMEOUT_MS, 'no session.started in time');
    this.ready = setup.done;
    this.ws.once('open', () => this.send(start));
    this.ws.on('message', (data: Buffer) => {
      const event = parseLiveEvent(data.toString('utf8'));
      if (!event) return;
      if (event.type === 'error') setup.settle(new Error(`GPT-Live refused the session: ${event.error.code}: ${event.error.message}`));
      if (event.type === 'session.started') setup.settle(null);
      onEvent(this, event);
    });
    refuseOnUpgradeFailure(this.ws, setup, 'GPT-Live refused the upgrade');
    this.ws.on('error', (err) => setup.settle(new Error(err.message)));
    this.ws.on('close', (code, reason) => {
      const why = `GPT-Live closed the session (${code}${reason.length ? ` ${reason.toString()}` : ''})`;
      setup.settle(new Error(why));
      if (!this.closedByUs) onLost(this, why);
    });
    // A session that never starts is reported by whoever awaits `ready`.
    this.ready.catch(() => undefined);
  }

  send(message: unknown): void {
    if (this.ws.readyState === WebSocket.OPEN) this.ws.send(JSON.stringify(message));
  }

  /** Asks the server to close (`session.close`), then closes the socket. */
  close(): void {
    this.closedByUs = true;
    if (this.ws.readyState === WebSocket.OPEN) {
      this.send({ type: 'session.close' });
      this.ws.close(1000, 'done');
    } else if (this.ws.readyState === WebSocket.CONNECTING) this.ws.terminate();
  }
}

/**
 * GPT-Live (architecture.md §19, a new session per specialist): the model is full duplex and
 * drives its own turns, so there is no client response create, cancel or truncate. A turn opens
 * with the first output audio and ends when output audio pauses for `turnGapMs`, when the
 * backend calls a function, or when the caller's transcript arrives over it (barge-in, which the
 * model itself controls: mivas only drops the rest of that turn's audio). Tools run through
 * Responses delegation: the backend's function calls arrive as nested Responses events and their
 * results go back as `response.item.create` items followed by one `response.create`. Instructions,
 * tools and voice are fixed at `session.start`, so a handoff starts the next agent's session
 * seeded with the conversation as startup `input` and closes the old one without answering the
 * handoff call.
 */
export class GptLiveSession extends OwnTurnsSession<GptLiveOptions> {
  readonly provider = 'openai';
  readonly inputRateHz = GPT_LIVE_RATE_HZ;
  readonly outputRateHz = GPT_LIVE_RATE_HZ;
  private socket: LiveSocket | null = null;
  private readonly turns = new SpokenTurns(this.events, 'gptlive', GPT_LIVE_RATE_HZ);
  private gapTimer: NodeJS.Timeout | null = null;
  /** Some answered backend call awaits `response.create`. */
  private outputsSent = false;
  /** A handoff in progress: the next agent's session is starting; the cue waits for it. */
  private handoff: { readonly from: string; cueWanted: boolean } | null = null;

  constructor(options: GptLiveOptions) {
    super(options);
  }

  async connect(agent: AgentSetup, signal: AbortSignal): Promise<void> {
    await connectForCall(this, signal, () => {
      this.agent = agent;
      this.socket = this.open(agent, false);
      return this.socket.ready;
    });
    if (this.closed) return;
    this.events.emit('ready');
  }

  sendAudio(pcm: Buffer): void {
    // During a handoff no session takes audio: the old one is done and the new one is starting.
    if (this.handoff || pcm.length === 0) return;
    this.socket?.send({ type: 'session.input_audio.append', audio: pcm.toString('base64') });
  }

  applyAgent(agent: AgentSetup): void {
    const from = this.agent?.name ?? 'the previous agent';
    this.agent = agent;
    this.handoff = { from, cueWanted: false };
    this.endTurn();
    void this.switchSession(agent);
  }

  sendToolOutput(callId: string, output: string): void {
    if (!this.turns.toolResult(callId, output)) return;
    // The old specialist's backend is never told about the handoff: the next session is seeded instead.
    if (!this.handoff) {
      this.socket?.send(toolOutputEvent(callId, output));
      this.outputsSent = true;
    }
    if (this.turns.pendingCalls === 0 && this.outputsSent) {
      this.outputsSent = false;
      this.socket?.send({ type: 'response.create' });
    }
  }

  requestResponse(): void {
    if (this.closed || this.turns.current) return;
    if (this.handoff) {
      this.handoff.cueWanted = true;
      return;
    }
    if (this.turns.continuesAlone || this.turns.spokeOnce) return;
    // The greeting (and its retries): nothing else asks the model to speak first.
    this.appendInstruction(OPENING_CUE);
  }

  /** GPT-Live has no cancel: the turn is closed here and its later audio dropped. */
  cancelResponse(): void {
    this.clearGap();
    this.turns.cancel();
  }

  truncate(itemId: string, audioEndMs: number): void {
    this.turns.history.truncate(itemId, audioEndMs);
  }

  protected release(): void {
    this.clearGap();
    this.socket?.close();
    this.socket = null;
  }

  /** Dials a session for `agent`; a specialist after the first is seeded with the conversation so far. */
  private open(agent: AgentSetup, seeded: boolean): LiveSocket {
    const start = sessionStart(agent, { model: this.options.model, voice: this.options.voice, backendModel: this.options.backendModel, seed: seeded ? this.turns.history.seedTurns() : [] });
    return new LiveSocket(
      this.options,
      start,
      (s, e) => this.onEvent(s, e),
      (s, why) => this.onLost(s, why),
    );
  }

  private appendInstruction(content: string): void {
    this.socket?.send({ type: 'session.instructions.append', content, delegation_id: null });
  }

  /** Starts the next specialist's session seeded with the history; the old one closes once the new one is up. */
  private async switchSession(agent: AgentSetup): Promise<void> {
    const old = this.socket;
    const next = this.open(agent, true);
    this.socket = next;
    if (!(await this.handedOver(next, old, agent.name)) || this.socket !== next) return;
    const handoff = this.handoff;
    this.handoff = null;
    this.turns.continuesAlone = false;
    this.turns.dropCalls();
    this.outputsSent = false;
    if (handoff?.cueWanted) this.appendInstruction(handoffCueText(handoff.from, agent.name));
  }

  private onLost(socket: LiveSocket, why: string): void {
    if (this.closed || socket !== this.socket || this.handoff) return;
    this.events.emit('failure', { code: 'provider_disconnected', message: why, fatal: true });
  }

  private onEvent(socket: LiveSocket, e: LiveEvent): void {
    if (this.closed || socket !== this.socket) return;
    switch (e.type) {
      case 'session.output_audio.delta':
        this.armGap();
        return this.turns.audio(Buffer.from(e.delta, 'base64'));
      case 'session.output_transcript.delta':
        return this.turns.agentText(e.delta);
      case 'session.input_transcript.delta':
        if (this.turns.bargeIn()) this.clearGap();
        return this.turns.callerText(e.delta);
      case 'response.event': {
        const call = functionCallOf(e.event);
        if (call && this.turns.toolCall(call.call_id, call.name, call.arguments, this.agent?.name ?? '')) this.clearGap();
        return;
      }
      case 'session.usage.updated':
        return this.reportSeconds(socket, e.usage.seconds);
      case 'session.closed':
        if (!this.handoff) this.events.emit('failure', { code: 'provider_disconnected', message: `GPT-Live closed the session: ${e.reason}`, fatal: true });
        return;
      case 'error':
        this.events.emit('failure', { code: e.error.code, message: e.error.message, fatal: false });
        return;
      default:
        return;
    }
  }

  /** The growth of a session's reported audio seconds goes into the usage of the turn it falls in (or the next one). */
  private reportSeconds(socket: LiveSocket, seconds: number): void {
    const added = seconds - socket.reportedSeconds;
    if (added <= 0) return;
    socket.reportedSeconds = seconds;
    this.turns.addUsage({ ...emptyUsage(), audio_seconds: added });
  }

  private endTurn(): void {
    this.clearGap();
    this.turns.end();
  }

  private armGap(): void {
    this.clearGap();
    this.gapTimer = setTimeout(() => {
      this.gapTimer = null;
      if (!this.closed) this.turns.end();
    }, this.options.turnGapMs);
  }

  private clearGap(): void {
    if (this.gapTimer) clearTimeout(this.gapTimer);
    this.gapTimer = null;
  }
}
