import type { Clock, Timer } from '../core/index.ts';
import type { EndReason } from '../snapshot/index.ts';

/** How often the watchdog loop looks at silence and pings. */
const TICK_MS = 1_000;

/** What the watchdogs need from their call. */
export interface WatchdogHost {
  /** Clock time of the last caller frame. */
  lastCallerFrameMs(): number;
  ping(): void;
  /** Drops a peer that stopped answering pings. */
  terminate(): void;
  end(reason: EndReason, closeCode: number, callerClosed: boolean): void;
}

/**
 * The call's timers (architecture.md §10, wire.md §1.10): the maximum duration, the inbound-silence
 * watchdog, pings every interval (a peer silent until the next ping is dropped as a caller
 * hangup), and the cap on waiting for a farewell. All on the injected clock, all cancelled at once.
 */
export class CallWatchdogs {
  private readonly timers: Timer[] = [];
  private awaitingPong = false;
  private stopped = false;

  private readonly clock: Clock;
  private readonly limits: { readonly maxCallMs: number; readonly callerSilenceMs: number; readonly pingIntervalMs: number };
  private readonly host: WatchdogHost;

  constructor(
    clock: Clock,
    limits: { readonly maxCallMs: number; readonly callerSilenceMs: number; readonly pingIntervalMs: number },
    host: WatchdogHost,
  ) {
    this.clock = clock;
    this.limits = limits;
    this.host = host;
  }

  /** Starts the duration limit and the silence/ping loop. */
  start(): void {
    this.timers.push(this.clock.setTimer(this.limits.maxCallMs, () => this.host.end('max_duration', 1000, false)));
    this.scheduleTick(this.clock.nowMs());
  }

  /** The peer answered a ping. */
  pong(): void {
    this.awaitingPong = false;
  }

  /** Ends the call with `reason` after `delayMs` unless it ended before (the farewell cap). */
  endAfter(delayMs: number, reason: EndReason): void {
    if (!this.stopped) this.timers.push(this.clock.setTimer(delayMs, () => this.host.end(reason, 1000, false)));
  }

  /** Cancels every timer. */
  stop(): void {
    this.stopped = true;
    for (const t of this.timers.splice(0)) t.cancel();
  }

  private scheduleTick(lastPingMs: number): void {
    if (this.stopped) return;
    this.timers.push(this.clock.setTimer(TICK_MS, () => this.tick(lastPingMs)));
  }

  private tick(lastPingMs: number): void {
    const now = this.clock.nowMs();
    if (now - this.host.lastCallerFrameMs() >= this.limits.callerSilenceMs) return this.host.end('caller_silence', 1000, false);
    if (now - lastPingMs < this.limits.pingIntervalMs) return this.scheduleTick(lastPingMs);
    if (this.awaitingPong) {
      this.host.terminate();
      return this.host.end('caller_hangup', 1006, true);
    }
    this.awaitingPong = true;
    this.host.ping();
    this.scheduleTick(now);
  }
}
