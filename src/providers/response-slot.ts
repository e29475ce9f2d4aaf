import type { TypedEmitter } from '../core/index.ts';
import { addUsage, type Usage } from '../snapshot/index.ts';
import type { ModelSessionEvents } from './model-session.ts';

/** A response as the turn driver sees it: from the model's first output to its turn end (or a tool call). */
export interface OpenResponse {
  readonly id: string;
  readonly itemId: string;
  spoke: boolean;
  cancelled: boolean;
}

/**
 * The one open response of a session whose provider has no response objects of its own (Nova
 * Sonic; Gemini Live, GPT-Live and Phonic through `SpokenTurns`), and the usage reported while it is open: opening emits `responseStarted`,
 * closing emits `audioDone` (when it spoke) and `responseDone` with that usage.
 */
export class ResponseSlot {
  private open: OpenResponse | null = null;
  private usage: Usage | null = null;
  private readonly events: TypedEmitter<ModelSessionEvents>;
  private readonly prefix: string;

  constructor(events: TypedEmitter<ModelSessionEvents>, prefix: string) {
    this.events = events;
    this.prefix = prefix;
  }

  /** The open response, or null between responses. */
  get current(): OpenResponse | null {
    return this.open;
  }

  /** Opens response number `seq` (ids `<prefix>_resp_<seq>`, item `<prefix>_item_<seq>`) and announces it. */
  start(seq: number): OpenResponse {
    this.open = { id: `${this.prefix}_resp_${seq}`, itemId: `${this.prefix}_item_${seq}`, spoke: false, cancelled: false };
    this.events.emit('responseStarted', this.open.id);
    return this.open;
  }

  addUsage(usage: Usage): void {
    this.usage = this.usage ? addUsage(this.usage, usage) : usage;
  }

  /** Marks the open response cut off by the caller; false when it already was (or none is open). */
  cancel(): boolean {
    if (!this.open || this.open.cancelled) return false;
    this.open.cancelled = true;
    return true;
  }

  /** Closes the open response: `audioDone` if it spoke, then `beforeDone` (its transcript, say), then `responseDone`. */
  finish(status: string, beforeDone?: (response: OpenResponse) => void): void {
    const response = this.open;
    if (!response) return;
    this.open = null;
    if (response.spoke) this.events.emit('audioDone', response.itemId);
    beforeDone?.(response);
    const usage = this.usage;
    this.usage = null;
    this.events.emit('responseDone', { responseId: response.id, status, usage });
  }
}
