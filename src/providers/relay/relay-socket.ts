import WebSocket from 'ws';
import { TypedEmitter, type Clock } from '../../core/index.ts';
import { connectForCall } from '../harness-kit.ts';
import type { AgentSetup, CallInfo, ModelSession, ModelSessionEvents } from '../model-session.ts';
import { RelayUtterances } from './relay-utterances.ts';

/**
 * What every relay over one WebSocket shares (docs/platforms.md): the platform's agent runs its
 * own model, turn-taking and agents, so the session only dials, relays audio and reports what the
 * platform did. A relay supplies how it dials (`open`), what it sends once the socket is up
 * (`opened`) and before it closes (`farewell`), and its frames.
 */
export abstract class RelaySocketSession<Out, Options> implements ModelSession {
  readonly events = new TypedEmitter<ModelSessionEvents>();
  readonly model = null;
  /** The platform's agent greets on its own: no nudge. */
  readonly speaksFirst = true;
  abstract readonly provider: string;
  abstract readonly inputRateHz: number;
  abstract readonly outputRateHz: number;
  protected ws: WebSocket | null = null;
  protected closed = false;
  protected readonly utterances: RelayUtterances;
  protected readonly options: Options;
  protected readonly call: CallInfo;

  protected constructor(options: Options, call: CallInfo, clock: Clock, itemPrefix: string) {
    this.options = options;
    this.call = call;
    this.utterances = new RelayUtterances(this.events, clock, itemPrefix);
  }

  async connect(_agent: AgentSetup, signal: AbortSignal): Promise<void> {
    await connectForCall(this, signal, () => this.open(), `the ${this.provider} agent was dialed`);
    if (this.closed) return;
    this.opened();
    this.events.emit('ready');
  }

  abstract sendAudio(pcm: Buffer): void;
  abstract sendToolOutput(callId: string, output: string): void;

  /** The platform owns its agents: a handoff changes nothing on the socket. */
  applyAgent(): void {}

  /** The platform's agent decides when it speaks. */
  requestResponse(): void {}

  /** The platform's agent stops on its own (its barge-in); there is nothing to cancel. */
  cancelResponse(): void {}

  truncate(): void {}

  /** The platform runs its own speech detection on the audio it gets. */
  callerSpeech(): void {}

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.utterances.end();
    const ws = this.ws;
    if (ws?.readyState === WebSocket.OPEN) {
      this.farewell();
      ws.close(1000, 'done');
    } else ws?.terminate();
    this.ws = null;
  }

  protected send(message: Out): void {
    if (this.ws?.readyState === WebSocket.OPEN) this.ws.send(JSON.stringify(message));
  }

  /** The platform closed the socket: the agent hung up, its ending once what it said has played. */
  protected peerClosed(): void {
    if (this.closed) return;
    this.utterances.end();
    this.ws = null;
    this.closed = true;
    this.events.emit('agentHangup');
  }

  /** Dials the platform; resolves once the conversation can carry audio. */
  protected abstract open(): Promise<void>;

  /** What the relay sends once the socket is up, before `ready`. */
  protected opened(): void {}

  /** What the relay sends on an open socket before mivas closes it. */
  protected farewell(): void {}
}
