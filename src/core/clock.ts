/** A cancellable timer handle returned by a Clock. */
export interface Timer {
  cancel(): void;
}

/** Monotonic time and timers; injected so pacing, nudges and watchdogs are testable without sleeping. */
export interface Clock {
  /** Monotonic milliseconds since an arbitrary origin. */
  nowMs(): number;
  /** Wall-clock epoch milliseconds (for stamps that leave the process). */
  epochMs(): number;
  setTimer(delayMs: number, fn: () => void): Timer;
}

/** The real clock: performance.now() and setTimeout. */
export function systemClock(): Clock {
  return {
    nowMs: () => performance.now(),
    epochMs: () => Date.now(),
    setTimer(delayMs, fn) {
      const handle = setTimeout(fn, Math.max(0, delayMs));
      return { cancel: () => clearTimeout(handle) };
    },
  };
}

interface PendingTimer {
  readonly dueMs: number;
  readonly order: number;
  readonly fn: () => void;
  cancelled: boolean;
}

/** A clock that moves only when a test calls advance(); timers fire in due order. */
export class ManualClock implements Clock {
  private currentMs = 0;
  private readonly epochOriginMs: number;
  private readonly pending: PendingTimer[] = [];
  private scheduled = 0;

  constructor(epochOriginMs = Date.UTC(2026, 9, 5, 13, 0, 0)) {
    this.epochOriginMs = epochOriginMs;
  }

  nowMs(): number {
    return this.currentMs;
  }

  epochMs(): number {
    return this.epochOriginMs + this.currentMs;
  }

  setTimer(delayMs: number, fn: () => void): Timer {
    const timer: PendingTimer = { dueMs: this.currentMs + Math.max(0, delayMs), order: this.scheduled++, fn, cancelled: false };
    this.pending.push(timer);
    return { cancel: () => { timer.cancelled = true; } };
  }

  /** Moves time forward by deltaMs, firing every timer that falls due on the way. */
  advance(deltaMs: number): void {
    const targetMs = this.currentMs + deltaMs;
    for (;;) {
      const next = this.nextDue(targetMs);
      if (!next) break;
      this.pending.splice(this.pending.indexOf(next), 1);
      this.currentMs = next.dueMs;
      if (!next.cancelled) next.fn();
    }
    this.currentMs = targetMs;
  }

  /** How many live timers are waiting. */
  pendingCount(): number {
    return this.pending.filter((t) => !t.cancelled).length;
  }

  private nextDue(targetMs: number): PendingTimer | undefined {
    let best: PendingTimer | undefined;
    for (const t of this.pending) {
      if (t.dueMs > targetMs) continue;
      if (!best || t.dueMs < best.dueMs || (t.dueMs === best.dueMs && t.order < best.order)) best = t;
    }
    return best;
  }
}
