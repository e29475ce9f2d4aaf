import type { SpeechSynth } from '../audio/index.ts';
import { TypedEmitter } from '../core/index.ts';
import type { AgentSetup, ModelSession, ModelSessionEvents } from './model-session.ts';

/** One piece of a local harness's response: speech, or a function call. */
export type ResponsePart = { readonly say: string } | { readonly call: { readonly name: string; readonly args: Record<string, unknown> } };

/** Agent audio is emitted in 100 ms chunks, faster than real time, as a model would. */
const CHUNK_BYTES = 3_200;

/**
 * Shared machinery of the keyless harnesses (`scripted`, `noop`): a model session that speaks
 * synthesized text and makes function calls, at 16 kHz both ways, taking turns from the caller's
 * CHIRP speech events (architecture.md §12).
 */
export abstract class LocalModelSession implements ModelSession {
  readonly events = new TypedEmitter<ModelSessionEvents>();
  readonly inputRateHz = 16_000;
  readonly outputRateHz = 16_000;
  abstract readonly provider: string;
  readonly model: string | null = null;
  protected agent: AgentSetup | null = null;
  protected closed = false;
  private responding = false;
  /** The response being given; cancelResponse() marks it, and it stops at its next part. */
  private current: { cancelled: boolean } | null = null;
  private counter = 0;

  protected readonly synth: SpeechSynth;
  /** Yield to the caller: caller speech that starts while this session speaks cuts it off (barge-in). */
  private readonly yieldsToCaller: boolean;

  constructor(synth: SpeechSynth, yieldsToCaller = false) {
    this.synth = synth;
    this.yieldsToCaller = yieldsToCaller;
  }

  async connect(agent: AgentSetup): Promise<void> {
    this.agent = agent;
    queueMicrotask(() => this.events.emit('ready'));
  }

  sendAudio(): void {
    /* local harnesses take turns from CHIRP speech events, not from audio */
  }

  applyAgent(agent: AgentSetup): void {
    this.agent = agent;
  }

  sendToolOutput(callId: string, output: string): void {
    this.onToolOutput(callId, output);
  }

  requestResponse(): void {
    if (this.responding || this.closed) return;
    const parts = this.nextResponse();
    if (parts) void this.respond(parts);
  }

  /** Stops the response in progress: no further speech or calls, and its done reports `cancelled`. */
  cancelResponse(): void {
    if (this.current) this.current.cancelled = true;
  }

  truncate(): void {
    /* nothing to forget: local harnesses keep no conversation state */
  }

  callerSpeech(kind: 'started' | 'completed'): void {
    if (this.closed) return;
    // A start reads as barge-in (the call cuts the agent audio still playing): reported only by a session that yields to the caller.
    if (kind === 'started') {
      if (this.yieldsToCaller) this.events.emit('callerSpeechStarted');
      return;
    }
    this.events.emit('callerSpeechStopped');
    this.onCallerTurn();
  }

  async close(): Promise<void> {
    this.closed = true;
  }

  /** The response to give when one is requested, or null to stay silent. */
  protected abstract nextResponse(): ResponsePart[] | null;
  /** A caller utterance ended. */
  protected abstract onCallerTurn(): void;
  /** A tool call was answered. */
  protected abstract onToolOutput(callId: string, output: string): void;

  /** Starts a response on the harness's own initiative (as server VAD would after a caller turn). */
  protected startResponse(parts: ResponsePart[]): void {
    if (this.responding || this.closed) return;
    void this.respond(parts);
  }

  private async respond(parts: ResponsePart[]): Promise<void> {
    this.responding = true;
    const run = { cancelled: false };
    this.current = run;
    const responseId = `resp_${++this.counter}`;
    this.events.emit('responseStarted', responseId);
    for (const part of parts) {
      if (this.closed || run.cancelled) break;
      if ('say' in part) await this.speak(part.say, run);
      else this.events.emit('functionCall', { callId: `call_${this.counter}_${part.call.name}`, name: part.call.name, arguments: JSON.stringify(part.call.args) });
    }
    this.current = null;
    this.responding = false;
    if (!this.closed) this.events.emit('responseDone', { responseId, status: run.cancelled ? 'cancelled' : 'completed', usage: null });
  }

  private async speak(text: string, run: { readonly cancelled: boolean }): Promise<void> {
    const pcm = await this.synth.synthesize(text);
    if (this.closed || run.cancelled) return;
    const itemId = `item_${++this.counter}`;
    this.events.emit('transcript', 'agent', text, itemId);
    for (let offset = 0; offset < pcm.length; offset += CHUNK_BYTES) this.events.emit('audio', itemId, pcm.subarray(offset, offset + CHUNK_BYTES));
    this.events.emit('audioDone', itemId);
  }
}
