import { FRAME_BYTES, FRAME_MS } from '../audio/index.ts';
import type { Clock, Timer } from '../core/index.ts';

/** Lead allowed over real time: enough to ride out event-loop jitter, small enough that barge-in stays crisp (wire.md §1.7). */
export const MAX_LEAD_MS = 200;
/** Falling further behind than this restarts the utterance clock instead of bursting. */
export const CATCH_UP_MS = 100;

/** What the pacer tells its owner. */
export interface PacerEffects {
  utteranceStarted(utteranceId: string, itemId: string): void;
  frame(pcm: Buffer, utteranceId: string, mediaPositionMs: number): void;
  utteranceCompleted(utteranceId: string, itemId: string, interrupted: boolean): void;
  underrun(utteranceId: string, gapMs: number): void;
  /** The pacer fell more than CATCH_UP_MS behind and restarted the utterance's clock. */
  clockReset(utteranceId: string, behindMs: number): void;
}

interface Utterance {
  readonly utteranceId: string;
  readonly itemId: string;
  chunks: Buffer[];
  queuedBytes: number;
  finished: boolean;
  started: boolean;
  startMs: number;
  framesSent: number;
  bytesSent: number;
  /** True while the stream is behind real time, so one stall counts as one underrun. */
  starved: boolean;
  /** When the last frame left, or null when the next frame waited for audio (its interval is not pacing). */
  lastFrameAtMs: number | null;
}

/** How evenly frames left once each utterance's lead was built (the pacer's own view of its output). */
export interface PacingStats {
  /** Intervals between consecutive frames of an utterance, past its lead, whose frame was waiting to go. */
  readonly intervals: number;
  /** Of those, the ones more than 5 ms away from 20 ms. */
  readonly offOver5Ms: number;
  /** The largest distance from 20 ms, in ms. */
  readonly maxOffMs: number;
}

/** Distance from 20 ms beyond which an interval counts as off (the bench's jitter limit). */
const PACING_TOLERANCE_MS = 5;

/** What an interruption cut: the utterance and how much of it the caller heard. */
export interface Interruption {
  readonly utteranceId: string;
  readonly itemId: string;
  readonly playedMs: number;
  readonly sentMs: number;
}

/**
 * Paces agent audio to the caller in 20 ms / 640-byte frames on a monotonic clock: frame n of an
 * utterance leaves no earlier than t0 + n × 20 ms − 200 ms. Utterances play one after another;
 * only an utterance's last frame may be short. `fast` sends everything at once (local runs).
 */
export class OutboundPacer {
  private readonly queue: Utterance[] = [];
  private timer: Timer | null = null;
  /** Clock time the pending timer fires at; a pump that wants the same time keeps it. */
  private timerDueMs = Number.NaN;
  /** The clock time sendDue last read. */
  private checkedAtMs = 0;
  /** One callback for every timer, not a closure per frame. */
  private readonly onTimer = (): void => {
    this.timer = null;
    this.timerDueMs = Number.NaN;
    this.pump();
  };
  /** When the audio sent so far finishes playing at the caller; the next utterance continues from it. */
  private playoutEndMs = Number.NEGATIVE_INFINITY;
  private idleWaiters: (() => void)[] = [];
  private disposed = false;
  private stats = { intervals: 0, offOver5Ms: 0, maxOffMs: 0 };

  private readonly clock: Clock;
  private readonly effects: PacerEffects;
  private readonly newUtteranceId: () => string;
  private readonly fast;

  constructor(
    clock: Clock,
    effects: PacerEffects,
    newUtteranceId: () => string,
    fast = false,
  ) {
    this.clock = clock;
    this.effects = effects;
    this.newUtteranceId = newUtteranceId;
    this.fast = fast;
  }

  /** Queues agent audio (16 kHz PCM16) for a provider item; a new item opens a new utterance. */
  push(itemId: string, pcm: Buffer): void {
    if (this.disposed || pcm.length === 0) return;
    let utterance = this.queue.find((u) => u.itemId === itemId && !u.finished);
    if (!utterance) {
      utterance = { utteranceId: this.newUtteranceId(), itemId, chunks: [], queuedBytes: 0, finished: false, started: false, startMs: 0, framesSent: 0, bytesSent: 0, starved: false, lastFrameAtMs: null };
      this.queue.push(utterance);
    }
    utterance.chunks.push(pcm);
    utterance.queuedBytes += pcm.length;
    this.pump();
  }

  /** Marks an item's audio complete; its utterance closes after the last frame is sent. */
  finish(itemId: string): void {
    const utterance = this.queue.find((u) => u.itemId === itemId && !u.finished);
    if (!utterance) return;
    utterance.finished = true;
    this.pump();
  }

  /** Milliseconds of 16 kHz audio queued and not yet sent, over every utterance. */
  queuedMs(): number {
    let bytes = 0;
    for (const u of this.queue) bytes += u.queuedBytes;
    return bytes / 32;
  }

  /** How evenly paced frames left so far (fast mode counts nothing). */
  pacingStats(): PacingStats {
    return { ...this.stats };
  }

  /** True when nothing is queued or playing. */
  isIdle(): boolean {
    return this.queue.length === 0;
  }

  /** Resolves once every queued utterance has been sent. */
  whenIdle(): Promise<void> {
    if (this.isIdle()) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** Provider items with audio queued or playing, in order (what an interruption would drop). */
  queuedItemIds(): string[] {
    return this.queue.map((u) => u.itemId);
  }

  /**
   * Clock time at which the audio sent so far has finished playing at the caller: the pacer runs
   * up to MAX_LEAD_MS ahead, so this is later than the last send. In the past when nothing is due.
   */
  playedOutAtMs(): number {
    return this.playoutEndMs;
  }

  /** Bytes sent so far of the utterance now playing, or null when none has started. */
  currentUtterance(): { utteranceId: string; itemId: string; sentMs: number } | null {
    const head = this.queue[0];
    return head && head.framesSent > 0 ? { utteranceId: head.utteranceId, itemId: head.itemId, sentMs: head.bytesSent / 32 } : null;
  }

  /**
   * Barge-in: drops every unsent frame and closes the playing utterance as interrupted. The played
   * position is the smaller of what was sent and what the pacer clock says has played.
   */
  interrupt(): Interruption | null {
    const head = this.queue[0];
    this.cancelTimer();
    const dropped = this.queue.splice(0, this.queue.length);
    for (const u of dropped.slice(1)) if (u.framesSent > 0) this.effects.utteranceCompleted(u.utteranceId, u.itemId, true);
    this.resolveIdle();
    if (!head || head.framesSent === 0) return null;
    const sentMs = head.bytesSent / 32;
    const playedMs = Math.max(0, Math.min(sentMs, this.clock.nowMs() - head.startMs));
    this.effects.utteranceCompleted(head.utteranceId, head.itemId, true);
    return { utteranceId: head.utteranceId, itemId: head.itemId, playedMs: this.fast ? sentMs : playedMs, sentMs };
  }

  /** Stops all timers; queued audio is dropped without events. */
  dispose(): void {
    this.disposed = true;
    this.cancelTimer();
    this.queue.length = 0;
    this.resolveIdle();
  }

  /**
   * Sends what is due and arms one timer for the next frame. Audio pushed mid-utterance does not
   * move the next frame's time, so the timer already armed for it is kept rather than cancelled
   * and set again on every push (docs/performance.md).
   */
  private pump(): void {
    if (this.disposed) return;
    for (;;) {
      const head = this.queue[0];
      if (!head) {
        this.cancelTimer();
        return this.resolveIdle();
      }
      const dueMs = this.sendDue(head);
      if (dueMs === null) {
        if (!head.finished || head.queuedBytes > 0) return this.cancelTimer();
        this.queue.shift();
        this.effects.utteranceCompleted(head.utteranceId, head.itemId, false);
        continue;
      }
      if (this.timer && this.timerDueMs === dueMs) return;
      this.cancelTimer();
      this.timer = this.clock.setTimer(dueMs - this.checkedAtMs, this.onTimer);
      this.timerDueMs = dueMs;
      return;
    }
  }

  /** Sends every frame of the utterance that is due; returns the clock time of the next one, or null when out of data. */
  private sendDue(u: Utterance): number | null {
    for (;;) {
      const frameBytes = u.queuedBytes >= FRAME_BYTES ? FRAME_BYTES : u.finished ? u.queuedBytes : 0;
      if (frameBytes === 0) {
        u.lastFrameAtMs = null;
        return null;
      }
      const now = this.clock.nowMs();
      if (!u.started) this.startUtterance(u, now);
      else if (!this.fast) this.catchUp(u, now);
      const dueMs = u.startMs + u.framesSent * FRAME_MS - MAX_LEAD_MS;
      if (!this.fast && now < dueMs) {
        this.checkedAtMs = now;
        return dueMs;
      }
      this.sendFrame(u, frameBytes, now);
    }
  }

  private startUtterance(u: Utterance, now: number): void {
    u.started = true;
    // Back-to-back utterances share one schedule, so the lead stays within 200 ms across the boundary.
    u.startMs = this.fast ? now : Math.max(now, this.playoutEndMs);
  }

  /** After an underrun, restart the clock rather than burst the backlog (wire.md §1.7). */
  private catchUp(u: Utterance, now: number): void {
    const behindMs = now - (u.startMs + u.framesSent * FRAME_MS);
    if (behindMs > FRAME_MS && !u.starved) this.effects.underrun(u.utteranceId, behindMs);
    u.starved = behindMs > 0;
    if (behindMs > CATCH_UP_MS) {
      u.startMs = now - u.framesSent * FRAME_MS;
      u.starved = false;
      this.effects.clockReset(u.utteranceId, behindMs);
    }
  }

  private sendFrame(u: Utterance, frameBytes: number, now: number): void {
    if (!this.fast) this.countInterval(u, now);
    const frame = takeFrame(u.chunks, frameBytes);
    u.queuedBytes -= frameBytes;
    const positionMs = u.startMs + u.framesSent * FRAME_MS;
    // speech.started goes out immediately before the first frame, never speculatively (wire.md §1.5).
    if (u.framesSent === 0) this.effects.utteranceStarted(u.utteranceId, u.itemId);
    u.framesSent++;
    u.bytesSent += frameBytes;
    this.playoutEndMs = u.startMs + (u.bytesSent / FRAME_BYTES) * FRAME_MS;
    this.effects.frame(frame, u.utteranceId, positionMs);
  }

  /** Counts the interval since the utterance's previous frame once its lead is built (frames 0 to 10 leave together by design). */
  private countInterval(u: Utterance, now: number): void {
    if (u.lastFrameAtMs !== null && u.framesSent > MAX_LEAD_MS / FRAME_MS) {
      const offMs = Math.abs(now - u.lastFrameAtMs - FRAME_MS);
      this.stats.intervals++;
      if (offMs > PACING_TOLERANCE_MS) this.stats.offOver5Ms++;
      if (offMs > this.stats.maxOffMs) this.stats.maxOffMs = offMs;
    }
    u.lastFrameAtMs = now;
  }

  private cancelTimer(): void {
    this.timer?.cancel();
    this.timer = null;
    this.timerDueMs = Number.NaN;
  }

  private resolveIdle(): void {
    if (this.queue.length) return;
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const resolve of waiters) resolve();
  }
}

/**
 * Cuts one frame off the front of the queued chunks. Only the frame's own bytes are copied (and
 * only when it spans chunks): joining the whole queue per frame made every provider delta that
 * arrived mid-utterance copy everything still queued (docs/performance.md).
 */
function takeFrame(chunks: Buffer[], frameBytes: number): Buffer {
  const head = chunks[0] as Buffer;
  if (head.length >= frameBytes) {
    if (head.length === frameBytes) chunks.shift();
    else chunks[0] = head.subarray(frameBytes);
    return head.subarray(0, frameBytes);
  }
  const frame = Buffer.allocUnsafe(frameBytes);
  let filled = 0;
  while (filled < frameBytes) {
    const chunk = chunks[0] as Buffer;
    const n = Math.min(chunk.length, frameBytes - filled);
    chunk.copy(frame, filled, 0, n);
    filled += n;
    if (n === chunk.length) chunks.shift();
    else chunks[0] = chunk.subarray(n);
  }
  return frame;
}
