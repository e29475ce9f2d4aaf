import { timelineEventSchema, type TimelineEvent } from './schema.ts';

/** A timeline event before the recorder stamps its sequence number and media offset. */
export type TimelineEventInput = TimelineEvent extends infer E ? (E extends TimelineEvent ? Omit<E, 'seq' | 'at_ms'> : never) : never;

/** Thrown by a timeline with no fault handler when an event breaks the snapshot schema. */
export class TimelineEventError extends Error {}

/**
 * The call's one record of what happened, on the media clock (ms since the CHIRP socket was
 * accepted). `seq` gives the total order; scoring orders by it alone. Each event is checked
 * against the snapshot schema as it is added, so a bad event is caught where it was made, not at
 * hangup: it is left out, and `onInvalid` hears why (without a handler, add throws).
 */
export class Timeline {
  private readonly recorded: TimelineEvent[] = [];
  private firstFault: string | null = null;

  constructor(
    private readonly mediaMs: () => number,
    private readonly onInvalid?: (reason: string) => void,
  ) {}

  /** Appends an event stamped with the next seq and the current media offset (or `atMs`). */
  add(event: TimelineEventInput, atMs?: number): TimelineEvent {
    const stamped = { ...event, seq: this.recorded.length, at_ms: Math.max(0, Math.round(atMs ?? this.mediaMs())) } as TimelineEvent;
    const checked = timelineEventSchema.safeParse(stamped);
    if (!checked.success) {
      const reason = `timeline event ${String((event as { type?: unknown }).type)} broke the snapshot schema: ${checked.error.issues.map((i) => `${i.path.join('.') || '(event)'} ${i.message}`).join('; ')}`;
      if (!this.onInvalid) throw new TimelineEventError(reason);
      this.firstFault ??= reason;
      this.onInvalid(reason);
      return stamped;
    }
    this.recorded.push(stamped);
    return stamped;
  }

  /** Every event so far, in seq order. */
  events(): readonly TimelineEvent[] {
    return this.recorded;
  }

  /** The first event refused by the schema, if any. */
  fault(): string | null {
    return this.firstFault;
  }
}
