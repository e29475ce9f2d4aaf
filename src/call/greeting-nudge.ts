import type { Clock, Timer } from '../core/index.ts';

/**
 * The agent speaks first: send a bare response request, and again every retry delay until agent
 * audio appears, at most maxAttempts times in all (wire.md §1.6). Send failures are swallowed and
 * count as attempts; a send the owner skips (`send` returns false: a response is in progress) does
 * not count and is tried again after the delay.
 */
export class GreetingNudge {
  private attempts = 0;
  private timer: Timer | null = null;
  private stopped = false;

  private readonly clock: Clock;
  private readonly retryDelayMs: number;
  private readonly maxAttempts: number;
  private readonly send: (attempt: number) => boolean;

  constructor(
    clock: Clock,
    retryDelayMs: number,
    maxAttempts: number,
    send: (attempt: number) => boolean,
  ) {
    this.clock = clock;
    this.retryDelayMs = retryDelayMs;
    this.maxAttempts = maxAttempts;
    this.send = send;
  }

  /** Sends the first nudge and schedules the rest. */
  start(): void {
    if (this.attempts > 0 || this.stopped) return;
    this.fire();
  }

  /** Stops nudging (first agent audio, or the call ended). */
  stop(): void {
    this.stopped = true;
    this.timer?.cancel();
    this.timer = null;
  }

  /** How many nudges went out. */
  sent(): number {
    return this.attempts;
  }

  private fire(): void {
    if (this.stopped) return;
    let sent = true;
    try {
      sent = this.send(this.attempts + 1);
    } catch {
      /* a nudge that cannot be sent is retried on schedule */
    }
    if (sent) this.attempts++;
    if (this.attempts < this.maxAttempts) this.timer = this.clock.setTimer(this.retryDelayMs, () => this.fire());
  }
}
