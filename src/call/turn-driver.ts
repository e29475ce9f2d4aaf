import type { Clock } from '../core/index.ts';
import type { Conversation, DispatchEffect } from '../conversation/index.ts';
import type { FunctionCall, ModelSession, ProviderFailure } from '../providers/index.ts';
import type { Timeline, Usage } from '../snapshot/index.ts';
import type { Interruption } from '../chirp/index.ts';
import { FirstAudioTimer } from './first-audio-timer.ts';
import { GreetingNudge } from './greeting-nudge.ts';

/** What the driver asks of its call. */
export interface TurnDriverHost {
  /** Agent audio at the session's output rate, for the pacer. */
  agentAudio(itemId: string, pcm: Buffer): void;
  agentAudioDone(itemId: string): void;
  /** Barge-in: clear playback; returns what was cut. */
  interruptPlayback(): Interruption | null;
  /** A session tool fired: the call is ending after the farewell. */
  sessionToolFired(effect: Extract<DispatchEffect, { kind: 'end_call' | 'human_transfer' }>): void;
  /** The farewell response is complete: close once playback drains. */
  farewellComplete(): void;
  addUsage(usage: Usage): void;
  fail(failure: ProviderFailure): void;
}

/**
 * Sequences one call's model turns (wire.md §2.5–2.7): the greeting nudge, one answer per tool
 * call id, the handoff order (session.update, then the output, then response.create after the
 * carrying response is done), no response.create while a response is active, the farewell after
 * a session tool, and barge-in truncation.
 */
export class TurnDriver {
  private readonly answered = new Set<string>();
  private readonly nudge: GreetingNudge;
  private readonly firstAudio: FirstAudioTimer;
  private responseActive = false;
  private createPending = false;
  private ending: 'no' | 'awaiting_farewell' | 'farewell_requested' = 'no';
  private started = false;
  private readonly unsubscribe: (() => void)[] = [];

  constructor(
    private readonly session: ModelSession,
    private readonly runtime: Conversation,
    private readonly timeline: Timeline,
    private readonly host: TurnDriverHost,
    clock: Clock,
    nudge: { retryDelayMs: number; maxAttempts: number },
  ) {
    this.nudge = new GreetingNudge(clock, nudge.retryDelayMs, nudge.maxAttempts, (attempt) => {
      this.timeline.add({ type: 'nudge', attempt });
      this.requestResponse();
    });
    this.firstAudio = new FirstAudioTimer(clock, (responseId, ttftMs) => this.timeline.add({ type: 'response.first_audio', response_id: responseId, ttft_ms: Math.round(ttftMs * 10) / 10 }));
  }

  /** Subscribes to the session's events. */
  attach(): void {
    const ev = this.session.events;
    this.unsubscribe.push(
      ev.on('ready', () => this.onReady()),
      ev.on('responseStarted', (responseId) => {
        this.responseActive = true;
        this.firstAudio.responseStarted(responseId);
      }),
      ev.on('audio', (itemId, pcm) => {
        this.nudge.stop();
        this.firstAudio.audioArrived();
        this.host.agentAudio(itemId, pcm);
      }),
      ev.on('audioDone', (itemId) => this.host.agentAudioDone(itemId)),
      ev.on('transcript', (side, text, itemId) => {
        this.timeline.add({ type: 'transcript', side, text, utterance_id: itemId });
      }),
      ev.on('functionCall', (call) => this.onFunctionCall(call)),
      ev.on('responseDone', (done) => this.onResponseDone(done)),
      ev.on('callerSpeechStarted', () => this.onBargeIn()),
      ev.on('callerSpeechStopped', () => this.firstAudio.triggered()),
      ev.on('failure', (failure) => this.onFailure(failure)),
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
    this.nudge.start();
  }

  private onFunctionCall(call: FunctionCall): void {
    if (this.answered.has(call.callId)) return;
    this.answered.add(call.callId);
    const result = this.runtime.dispatch({ toolCallId: call.callId, name: call.name, rawArguments: parseArguments(call.arguments) });
    if (result.effect.kind === 'handoff') this.session.applyAgent(this.runtime.agentSetup(result.effect.to));
    this.session.sendToolOutput(call.callId, JSON.stringify(result.output));
    if (result.effect.kind === 'end_call' || result.effect.kind === 'human_transfer') {
      if (this.ending === 'no') {
        this.ending = 'awaiting_farewell';
        this.host.sessionToolFired(result.effect);
      }
    }
    this.createPending = true;
    if (!this.responseActive) this.releaseCreate();
  }

  private onResponseDone(done: { usage: Usage | null; status: string; responseId: string | null }): void {
    this.responseActive = false;
    this.firstAudio.responseDone();
    this.timeline.add({ type: 'response.done', response_id: done.responseId, status: done.status, usage: done.usage ? { ...done.usage } : null });
    if (done.usage) this.host.addUsage(done.usage);
    if (this.createPending) return this.releaseCreate();
    if (this.ending === 'farewell_requested') {
      this.ending = 'awaiting_farewell';
      this.host.farewellComplete();
    }
  }

  private releaseCreate(): void {
    this.createPending = false;
    this.responseActive = true;
    if (this.ending === 'awaiting_farewell') this.ending = 'farewell_requested';
    this.requestResponse();
  }

  private requestResponse(): void {
    this.firstAudio.triggered();
    this.session.requestResponse();
  }

  private onBargeIn(): void {
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

/** The model's argument text as JSON; text that does not parse is passed on raw (the executor refuses it). */
function parseArguments(text: string): unknown {
  if (text.trim() === '') return {};
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}
