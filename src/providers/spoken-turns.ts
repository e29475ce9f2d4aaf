import type { TypedEmitter } from '../core/index.ts';
import { bytesToMs } from '../audio/index.ts';
import type { Usage } from '../snapshot/index.ts';
import type { ModelSessionEvents } from './model-session.ts';
import { ResponseSlot, type OpenResponse } from './response-slot.ts';
import { StreamHistory } from './stream-history.ts';

/**
 * The turns of a provider that drives its own turns and has no response objects (Gemini Live,
 * GPT-Live, Phonic): its audio, transcripts, tool calls and barge-ins become the session's normalised
 * events, one open response at a time, and the conversation is kept as text for the next
 * specialist's seed. The provider's session decides when a turn ends.
 */
export class SpokenTurns {
  readonly history = new StreamHistory();
  /** The model has spoken at least once (the greeting nudge stops). */
  spokeOnce = false;
  /** The model goes on by itself after tool results: no cue is needed. */
  continuesAlone = false;
  private readonly response: ResponseSlot;
  private readonly unanswered = new Set<string>();
  private counter = 0;

  private readonly events: TypedEmitter<ModelSessionEvents>;
  private readonly rateHz: number;

  constructor(events: TypedEmitter<ModelSessionEvents>, prefix: string, rateHz: number) {
    this.events = events;
    this.rateHz = rateHz;
    this.response = new ResponseSlot(events, prefix);
  }

  /** The open response, or null between turns. */
  get current(): OpenResponse | null {
    return this.response.current;
  }

  /** Calls still waiting for their output. */
  get pendingCalls(): number {
    return this.unanswered.size;
  }

  /** The model's output began: opens a turn (closing the caller's transcript first). */
  begin(): OpenResponse {
    if (this.response.current) return this.response.current;
    const said = this.history.closeCallerTurn();
    if (said) {
      this.events.emit('callerSpeechStopped');
      this.events.emit('transcript', 'caller', said, `caller_${this.counter + 1}`);
    }
    this.continuesAlone = false;
    return this.response.start(++this.counter);
  }

  /** Usage reported by the provider, carried by the open turn's (or the next turn's) responseDone. */
  addUsage(usage: Usage): void {
    this.response.addUsage(usage);
  }

  /** Closes the open turn, cancelled if the caller cut it, with the agent's transcript. */
  end(): void {
    this.response.finish(this.response.current?.cancelled ? 'cancelled' : 'completed', (response) => {
      const text = this.history.agentTextOf(response.itemId);
      if (text) this.events.emit('transcript', 'agent', text, response.itemId);
    });
  }

  /** Agent audio (and the words it carries); dropped when the turn was cut off. */
  audio(pcm: Buffer, text = ''): void {
    const response = this.begin();
    if (response.cancelled) return;
    if (text) this.history.agentText(response.itemId, text);
    if (pcm.length === 0) return;
    response.spoke = true;
    this.spokeOnce = true;
    this.history.agentAudio(response.itemId, bytesToMs(pcm.length, this.rateHz));
    this.events.emit('audio', response.itemId, pcm);
  }

  agentText(text: string): void {
    this.history.agentText(this.begin().itemId, text);
  }

  callerText(text: string): void {
    this.history.callerText(text);
  }

  /** The caller spoke over a turn that already spoke: it is cut off and barge-in is reported. True when it was. */
  bargeIn(): boolean {
    const open = this.response.current;
    if (!open?.spoke || open.cancelled) return false;
    this.cancel();
    this.events.emit('callerSpeechStarted');
    return true;
  }

  /** Marks the open turn cut off: its later audio is dropped and the provider's own turn end closes it. */
  cut(): void {
    this.response.cancel();
  }

  /** The turn driver cut the turn off (the provider has no cancel): it closes here and its later audio is dropped. */
  cancel(): void {
    if (this.response.cancel()) this.end();
  }

  /** A tool call ends the open turn, since the model now waits for its result. False for a repeated call id. */
  toolCall(callId: string, name: string, args: string, agent: string): boolean {
    if (this.unanswered.has(callId)) return false;
    this.begin();
    this.unanswered.add(callId);
    this.history.toolCall(callId, name, args, agent);
    this.continuesAlone = true;
    this.events.emit('functionCall', { callId, name, arguments: args });
    this.end();
    return true;
  }

  /** Records a call's output in the history; false when the call is not open (answered, or dropped at a handoff). */
  toolResult(callId: string, output: string): boolean {
    const open = this.unanswered.delete(callId);
    this.history.toolResult(callId, output);
    return open;
  }

  /** Forgets the open calls (a handoff: the old agent's calls are never answered). */
  dropCalls(): void {
    this.unanswered.clear();
  }
}
