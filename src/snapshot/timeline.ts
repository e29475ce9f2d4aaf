import type { TimelineEvent } from './schema.ts';

/** A timeline event before the recorder stamps its sequence number and media offset. */
export type TimelineEventInput = TimelineEvent extends infer E ? (E extends TimelineEvent ? Omit<E, 'seq' | 'at_ms'> : never) : never;

/**
 * The call's one record of what happened, on the media clock (ms since the CHIRP socket was
 * accepted). `seq` gives the total order; scoring orders by it alone.
 */
export class Timeline {
  private readonly recorded: TimelineEvent[] = [];

  constructor(private readonly mediaMs: () => number) {}

  /** Appends an event stamped with the next seq and the current media offset (or `atMs`). */
  add(event: TimelineEventInput, atMs?: number): TimelineEvent {
    const stamped = { ...event, seq: this.recorded.length, at_ms: Math.max(0, Math.round(atMs ?? this.mediaMs())) } as TimelineEvent;
    this.recorded.push(stamped);
    return stamped;
  }

  /** Every event so far, in seq order. */
  events(): readonly TimelineEvent[] {
    return this.recorded;
  }
}
