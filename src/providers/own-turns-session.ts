import { TypedEmitter } from '../core/index.ts';
import type { AgentSetup, ModelSession, ModelSessionEvents } from './model-session.ts';

/**
 * What the sessions whose provider detects the caller's speech and takes its own turns share
 * (Gemini Live, Nova Sonic, GPT-Live, Phonic): the event emitter, the model, the agent on the
 * line, its options, the caller's CHIRP speech events left unused, and a close that runs once. Each session
 * supplies its wire, and what closing releases (`release`).
 */
export abstract class OwnTurnsSession<Options extends { readonly model: string }> implements ModelSession {
  readonly events = new TypedEmitter<ModelSessionEvents>();
  abstract readonly provider: string;
  readonly model: string;
  abstract readonly inputRateHz: number;
  abstract readonly outputRateHz: number;
  /** The agent whose instructions and tools the provider has (or is being given). */
  protected agent: AgentSetup | null = null;
  protected closed = false;
  /** What the harness was configured with (its model among them). */
  protected readonly options: Options;

  protected constructor(options: Options) {
    this.options = options;
    this.model = options.model;
  }

  abstract connect(agent: AgentSetup, signal: AbortSignal): Promise<void>;
  abstract sendAudio(pcm: Buffer): void;
  abstract applyAgent(agent: AgentSetup): void;
  abstract sendToolOutput(callId: string, output: string): void;
  abstract requestResponse(): void;
  abstract cancelResponse(): void;
  abstract truncate(itemId: string, audioEndMs: number): void;

  /** The provider's own speech detection takes turns (wire.md §1.4). */
  callerSpeech(): void {}

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.release();
  }

  /**
   * A handoff to the next specialist's own stream (Gemini Live, GPT-Live): waits until `next` is
   * up, then closes `old`; a next stream that cannot open ends the call (`handoff_stream_lost`).
   * True when the session is still open afterwards.
   */
  protected async handedOver(next: { readonly ready: Promise<void> }, old: { close(): void } | null, agent: string): Promise<boolean> {
    try {
      await next.ready;
    } catch (err) {
      const message = `the next specialist's stream (${agent}) could not be opened: ${err instanceof Error ? err.message : String(err)}`;
      if (!this.closed) this.events.emit('failure', { code: 'handoff_stream_lost', message, fatal: true });
      return false;
    } finally {
      old?.close();
    }
    return !this.closed;
  }

  /** Stops the session's timers and closes its connection to the provider; runs once, at close. */
  protected abstract release(): void;
}
