import { timelineEventSchema, type Truncation, type TimelineEvent } from './schema.ts';

/** A timeline event before the recorder stamps its sequence number and media offset. */
export type TimelineEventInput = TimelineEvent extends infer E ? (E extends TimelineEvent ? Omit<E, 'seq' | 'at_ms'> : never) : never;

/** Thrown by a timeline with no fault handler when an event breaks the snapshot schema. */
export class TimelineEventError extends Error {}

/** How large a timeline may grow; past a limit, events are counted instead of kept. */
export interface TimelineLimits {
  /** Events kept, `call.ended` included (it is always kept). */
  readonly maxEvents: number;
  /** Serialised bytes kept (about the size of timeline.json). */
  readonly maxBytes: number;
  /** Nesting of a value inside an event (tool arguments and outputs); deeper values are cut. */
  readonly maxDepth: number;
}

/** Far beyond any real call (a 15-minute call records a few thousand events, well under 1 MiB). */
export const TIMELINE_LIMITS: TimelineLimits = { maxEvents: 50_000, maxBytes: 16 * 1024 * 1024, maxDepth: 32 };

/** What replaces a value nested deeper than the limit. */
export const CUT_VALUE = '[cut: nested too deep]';

/**
 * The call's one record of what happened, on the media clock (ms since the CHIRP socket was
 * accepted). `seq` gives the total order; scoring orders by it alone. Each event is checked
 * against the snapshot schema as it is added, so a bad event is caught where it was made, not at
 * hangup: it is left out, and `onInvalid` hears why (without a handler, add throws).
 *
 * The timeline is bounded so that it can always be serialised into a snapshot: values nested
 * deeper than `maxDepth` are replaced by {@link CUT_VALUE}, and once `maxEvents` or `maxBytes` is
 * reached later events are counted, not kept nor checked (`call.ended` always is). Either makes
 * `truncation()` non-null, and the summary says `truncated: true` with the counts.
 */
export class Timeline {
  private readonly recorded: TimelineEvent[] = [];
  /** Each kept event's JSON text, made when it was added (to measure it). */
  private readonly texts: string[] = [];
  private firstFault: string | null = null;
  private readonly limits: TimelineLimits;
  private bytes = 2;
  private dropped = 0;
  private cut = 0;
  private readonly hit = new Set<Truncation['limits'][number]>();
  /** Told of every event kept, as it is kept (live metrics); a throw here is the listener's bug. */
  onRecorded: ((event: TimelineEvent) => void) | null = null;

  private readonly mediaMs: () => number;
  private readonly onInvalid?: (reason: string) => void;

  constructor(
    mediaMs: () => number,
    onInvalid?: (reason: string) => void,
    limits: Partial<TimelineLimits> = {},
  ) {
    this.mediaMs = mediaMs;
    this.onInvalid = onInvalid;
    this.limits = { ...TIMELINE_LIMITS, ...limits };
  }

  /** Appends an event stamped with the next seq and the current media offset (or `atMs`). */
  add(event: TimelineEventInput, atMs?: number): TimelineEvent {
    const bounded = this.clipDepth(event);
    const stamped = { ...bounded, seq: this.recorded.length, at_ms: Math.max(0, Math.round(atMs ?? this.mediaMs())) } as TimelineEvent;
    // Past a limit every later event is dropped (the kept ones stay a prefix), so it is neither checked nor measured.
    if (stamped.type !== 'call.ended' && this.full()) {
      this.dropped++;
      return stamped;
    }
    const checked = timelineEventSchema.safeParse(stamped);
    if (!checked.success) {
      const reason = `timeline event ${String((event as { type?: unknown }).type)} broke the snapshot schema: ${checked.error.issues.map((i) => `${i.path.join('.') || '(event)'} ${i.message}`).join('; ')}`;
      if (!this.onInvalid) throw new TimelineEventError(reason);
      this.firstFault ??= reason;
      this.onInvalid(reason);
      return stamped;
    }
    const text = JSON.stringify(stamped);
    const size = text.length + 1;
    if (stamped.type !== 'call.ended' && !this.fits(size)) {
      this.dropped++;
      return stamped;
    }
    this.bytes += size;
    this.recorded.push(stamped);
    this.texts.push(text);
    this.onRecorded?.(stamped);
    return stamped;
  }

  /** Every event so far, in seq order. */
  events(): readonly TimelineEvent[] {
    return this.recorded;
  }

  /**
   * timeline.json's text, `JSON.stringify({ events })` of the events kept, joined from the JSON each
   * event had when it was added: for a recorder that changes no event after adding it (a text
   * episode), so the events are not serialised a second time when the conversation ends.
   */
  json(): string {
    return `{"events":[${this.texts.join(',')}]}`;
  }

  /** The first event refused by the schema, if any. */
  fault(): string | null {
    return this.firstFault;
  }

  /** What the limits cost so far, or null when the timeline is whole. */
  truncation(): Truncation | null {
    if (this.hit.size === 0) return null;
    return { events_dropped: this.dropped, values_cut: this.cut, limits: [...this.hit].sort() };
  }

  /** True once no further event but `call.ended` can be kept: the event slots are taken (one kept for `call.ended`), or an event was dropped already. */
  private full(): boolean {
    if (this.recorded.length < this.limits.maxEvents - 1) return this.dropped > 0;
    this.hit.add('events');
    return true;
  }

  /** Room for an event of `size` bytes under the byte limit (`full` has checked the event slots). */
  private fits(size: number): boolean {
    if (this.bytes + size <= this.limits.maxBytes) return true;
    this.hit.add('bytes');
    return false;
  }

  /** The event itself when nothing in it is nested deeper than the limit, else a copy with the deep values cut. */
  private clipDepth(event: TimelineEventInput): TimelineEventInput {
    const max = this.limits.maxDepth;
    if (!nestsDeeper(event, max)) return event;
    this.hit.add('depth');
    const cutBelow = (value: unknown, depth: number): unknown => {
      if (value === null || typeof value !== 'object') return value;
      if (depth >= max) {
        this.cut++;
        return CUT_VALUE;
      }
      if (Array.isArray(value)) return value.map((v) => cutBelow(v, depth + 1));
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, cutBelow(v, depth + 1)]));
    };
    return cutBelow(event, 0) as TimelineEventInput;
  }
}

/** True when an object or array sits `max` levels below the top (looks no deeper than that). */
function nestsDeeper(value: unknown, max: number, depth = 0): boolean {
  if (value === null || typeof value !== 'object') return false;
  if (depth >= max) return true;
  for (const v of Array.isArray(value) ? value : Object.values(value)) if (nestsDeeper(v, max, depth + 1)) return true;
  return false;
}
