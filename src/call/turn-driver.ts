import type { Clock } from '../core/index.ts';
import type { AgentSetup, FunctionCall, ModelSession, ProviderFailure } from '../providers/index.ts';
import type { Timeline, Usage } from '../snapshot/index.ts';
import type { Interruption } from '../chirp/index.ts';
import { FirstAudioTimer } from './first-audio-timer.ts';
import { GreetingNudge } from './greeting-nudge.ts';
import { ResponseSequencer } from './response-sequencer.ts';

/** One function call as the model made it, for the dispatcher. */
export interface ToolCallRequest {
  readonly toolCallId: string;
  readonly name: string;
  readonly rawArguments: unknown;
}

/** A session tool's effect: the call ends after the farewell. */
export type SessionToolEffect = { readonly kind: 'end_call' } | { readonly kind: 'human_transfer' };

/** What a dispatched call does besides its output, as far as the driver acts on it. */
export type ToolCallEffect = { readonly kind: 'none' } | { readonly kind: 'handoff'; readonly to: string } | SessionToolEffect;

/** The output the model receives and the call's effect. */
export interface ToolCallResult {
  readonly output: unknown;
  readonly effect: ToolCallEffect;
}

/**
 * All the driver needs of the conversation engine: run one call, and an agent's instructions and
 * tools for a handoff. Declared here so the engine behind it can change without touching the driver.
 */
export interface ToolDispatcher {
  dispatch(request: ToolCallRequest): ToolCallResult;
  agentSetup(agent: string): AgentSetup;
}

/** What the driver asks of its call. */
export interface TurnDriverHost {
  /** Agent audio at the session's output rate, for the pacer; false when it was dropped (an item cut by barge-in). */
  agentAudio(itemId: string, pcm: Buffer): boolean;
  agentAudioDone(itemId: string): void;
  /** Barge-in: clear playback; returns what was cut. */
  interruptPlayback(): Interruption | null;
  /** A session tool fired: the call is ending after the farewell. */
  sessionToolFired(effect: SessionToolEffect): void;
  /** The farewell response is complete: close once it has played. */
  farewellComplete(): void;
  addUsage(usage: Usage): void;
  fail(failure: ProviderFailure): void;
}

/**
 * Runs one call's model turns (wire.md §2.5–2.7): the greeting nudge, one answer per tool call id,
 * the handoff order (session.update, then the output, then the response request once the carrying
 * response is done), barge-in (cancel the open response, truncate what was cut) and time to first
 * audio. When a response may be requested is the `ResponseSequencer`'s decision.
 */
export class TurnDriver {
  private readonly answered = new Set<string>();
  private readonly nudge: GreetingNudge;
  private readonly firstAudio: FirstAudioTimer;
  private readonly sequencer: ResponseSequencer;
  private started = false;
  private readonly unsubscribe: (() => void)[] = [];

  private readonly session: ModelSession;
  private readonly tools: ToolDispatcher;
  private readonly timeline: Timeline;
  private readonly host: TurnDriverHost;

  constructor(
    session: ModelSession,
    tools: ToolDispatcher,
    timeline: Timeline,
    host: TurnDriverHost,
    clock: Clock,
    nudge: { retryDelayMs: number; maxAttempts: number },
  ) {
    this.session = session;
    this.tools = tools;
    this.timeline = timeline;
    this.host = host;
    this.sequencer = new ResponseSequencer({
      requestResponse: () => {
        this.firstAudio.triggered();
        this.session.requestResponse();
      },
      farewellDone: () => this.host.farewellComplete(),
    });
    this.nudge = new GreetingNudge(clock, nudge.retryDelayMs, nudge.maxAttempts, (attempt) => {
      if (!this.sequencer.mayNudge()) return false;
      this.timeline.add({ type: 'nudge', attempt });
      return this.sequencer.nudge();
    });
    this.firstAudio = new FirstAudioTimer(clock, (responseId, ttftMs) => this.timeline.add({ type: 'response.first_audio', response_id: responseId, ttft_ms: Math.round(ttftMs * 10) / 10 }));
  }

  /** Subscribes to the session's events. */
  attach(): void {
    const ev = this.session.events;
    this.unsubscribe.push(
      ev.on('ready', () => this.onReady()),
      ev.on('responseStarted', (responseId) => {
        this.sequencer.responseStarted();
        this.firstAudio.responseStarted(responseId);
      }),
      ev.on('audio', (itemId, pcm) => this.onAudio(itemId, pcm)),
      ev.on('audioDone', (itemId) => this.host.agentAudioDone(itemId)),
      ev.on('transcript', (side, text, itemId) => {
        this.timeline.add({ type: 'transcript', side, text, utterance_id: itemId });
      }),
      ev.on('functionCall', (call) => this.onFunctionCall(call)),
      ev.on('responseDone', (done) => this.onResponseDone(done)),
      ev.on('callerSpeechStarted', () => this.onBargeIn()),
      ev.on('callerSpeechStopped', () => this.firstAudio.triggered()),
      ev.on('failure', (failure) => this.onFailure(failure)),
      ev.on('turnLatency', (l) =>
        this.timeline.add({ type: 'turn.latency', endpoint_ms: ms1(l.endpointMs), stt_ms: ms1(l.sttMs), llm_first_token_ms: ms1(l.llmFirstTokenMs), tts_first_byte_ms: ms1(l.ttsFirstByteMs), total_ms: ms1(l.totalMs) }),
      ),
    );
  }

  /** Stops the nudge and listening (call teardown). */
  detach(): void {
    this.nudge.stop();
    for (const off of this.unsubscribe.splice(0)) off();
  }

  /** Nudges sent so far. */
  nudgesSent(): number {
    return this.nudge.sent();
  }

  private onReady(): void {
    if (this.started) return;
    this.started = true;
    // An agent that greets on its own (a relay) is never nudged.
    if (!this.session.speaksFirst) this.nudge.start();
  }

  private onAudio(itemId: string, pcm: Buffer): void {
    // Late audio of an item cut by barge-in is dropped: it neither plays nor counts as the agent speaking.
    if (!this.host.agentAudio(itemId, pcm)) return;
    this.nudge.stop();
    this.firstAudio.audioArrived();
    this.sequencer.agentAudio();
  }

  private onFunctionCall(call: FunctionCall): void {
    if (this.answered.has(call.callId)) return;
    this.answered.add(call.callId);
    const result = this.tools.dispatch({ toolCallId: call.callId, name: call.name, rawArguments: parseArguments(call.arguments) });
    const effect = result.effect;
    if (effect.kind === 'handoff') this.session.applyAgent(this.tools.agentSetup(effect.to));
    this.session.sendToolOutput(call.callId, JSON.stringify(result.output));
    const endsCall = effect.kind === 'end_call' || effect.kind === 'human_transfer';
    // Only the first session tool starts the farewell and its cap; which reason stands is the run's (architecture.md §20).
    if (endsCall && !this.sequencer.isEnding()) this.host.sessionToolFired(effect);
    this.sequencer.toolAnswered(endsCall);
  }

  private onResponseDone(done: { usage: Usage | null; status: string; responseId: string | null }): void {
    this.firstAudio.responseDone();
    this.timeline.add({ type: 'response.done', response_id: done.responseId, status: done.status, usage: done.usage ? { ...done.usage } : null });
    if (done.usage) this.host.addUsage(done.usage);
    this.sequencer.responseDone();
  }

  private onBargeIn(): void {
    // With interrupt_response the provider cancels too; asking again is harmless and covers providers that do not.
    if (this.sequencer.hasOpenResponse()) this.session.cancelResponse();
    const cut = this.host.interruptPlayback();
    if (!cut) return;
    const audioEndMs = Math.floor(cut.playedMs);
    this.timeline.add({ type: 'barge_in', utterance_id: cut.utteranceId, played_ms: audioEndMs });
    this.session.truncate(cut.itemId, audioEndMs);
  }

  private onFailure(failure: ProviderFailure): void {
    this.timeline.add({ type: 'provider.error', code: failure.code, message: failure.message.slice(0, 500), fatal: failure.fatal });
    if (failure.fatal) this.host.fail(failure);
  }
}

/** Milliseconds to one decimal (null stays null). */
function ms1<T extends number | null>(v: T): T {
  return (v === null ? null : Math.round(v * 10) / 10) as T;
}

/** The model's argument text as JSON; text that does not parse is passed on raw (the executor refuses it). */
export function parseArguments(text: string): unknown {
  if (text.trim() === '') return {};
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}
