import type { Clock, Timer, TypedEmitter } from '../../core/index.ts';
import type { ModelSessionEvents } from '../model-session.ts';

/** Agent audio followed by this much silence (no audio, no end marker) closes the agent's utterance. */
const UTTERANCE_GAP_MS = 600;

/**
 * The agent's audio as a relay receives it (a stream with no utterance boundaries of its own):
 * the first audio opens an item (and a response), an end marker (a Twilio `mark`, a barge-in) or a
 * gap of silence closes it.
 */
export class RelayUtterances {
  private item: string | null = null;
  private items = 0;
  private gap: Timer | null = null;

  private readonly events: TypedEmitter<ModelSessionEvents>;
  private readonly clock: Clock;
  private readonly prefix: string;

  constructor(events: TypedEmitter<ModelSessionEvents>, clock: Clock, prefix: string) {
    this.events = events;
    this.clock = clock;
    this.prefix = prefix;
  }

  /** Agent audio at the session's output rate. */
  audio(pcm: Buffer): void {
    if (pcm.length === 0) return;
    if (!this.item) {
      this.item = `${this.prefix}_${++this.items}`;
      this.events.emit('responseStarted', this.item);
    }
    this.events.emit('audio', this.item, pcm);
    this.gap?.cancel();
    this.gap = this.clock.setTimer(UTTERANCE_GAP_MS, () => this.end());
  }

  /** Closes the open utterance, if any. */
  end(): void {
    this.gap?.cancel();
    this.gap = null;
    const item = this.item;
    if (!item) return;
    this.item = null;
    this.events.emit('audioDone', item);
    this.events.emit('responseDone', { responseId: item, status: 'completed', usage: null });
  }
}
