import type { Log } from '../core/index.ts';

/** The signals `mivas serve` answers. */
export type ShutdownSignal = 'SIGTERM' | 'SIGINT';

/** What a shutdown drives. */
export interface ShutdownDeps {
  readonly log: Log;
  /** True when a person at a terminal can press Ctrl-C (stdin is a TTY). */
  readonly isTerminal: boolean;
  /** Drains and closes the server; `cut` resolves when the drain should end the live calls now. */
  drain(cut: Promise<void>): Promise<void>;
  /** Leaves at once with this exit status (the third Ctrl-C). */
  exitNow(code: number): void;
  /** Live call ids, for the log line of an exit at once. */
  liveCalls(): readonly string[];
}

/**
 * Signal handling of `mivas serve` (docs/reliability.md "Drain"). The first SIGTERM or SIGINT
 * starts the drain. Every later SIGTERM, and every later SIGINT that does not come from a terminal
 * (a supervisor, a script), is logged and changes nothing: the drain keeps going, so a restart
 * that signals twice loses no call. From a terminal, a second Ctrl-C cuts the drain short (live
 * calls end `drain_deadline` now, their snapshots still written), and a third exits at once.
 */
export class Shutdown {
  private started = false;
  private interrupts = 0;
  private settle: { resolve: () => void; reject: (err: unknown) => void } = { resolve: () => undefined, reject: () => undefined };
  private readonly done = new Promise<void>((resolve, reject) => {
    this.settle = { resolve, reject };
  });
  private cutDrain: () => void = () => undefined;
  private readonly cut = new Promise<void>((resolve) => {
    this.cutDrain = resolve;
  });

  private readonly deps: ShutdownDeps;

  constructor(deps: ShutdownDeps) {
    this.deps = deps;
  }

  /** Handles one signal. */
  signal(name: ShutdownSignal): void {
    const { log } = this.deps;
    if (!this.started) {
      log.info({ signal: name }, 'draining: refusing new calls, letting live calls finish');
      this.started = true;
      this.deps.drain(this.cut).then(this.settle.resolve, this.settle.reject);
      return;
    }
    if (name === 'SIGINT' && this.deps.isTerminal) {
      this.interrupts++;
      if (this.interrupts === 1) {
        log.warn({ signal: name, live: this.deps.liveCalls().length }, 'second Ctrl-C: ending live calls now (their snapshots are still written); Ctrl-C again exits at once');
        this.cutDrain();
        return;
      }
      const live = this.deps.liveCalls();
      log.error({ signal: name, live: live.length, callIds: live.slice(0, 50) }, 'third Ctrl-C: exiting at once; calls still live and snapshots not yet spooled are lost');
      this.deps.exitNow(130);
      return;
    }
    log.info({ signal: name }, 'already draining; the drain goes on (a second Ctrl-C at a terminal cuts it short)');
  }

  /** Resolves when the drain started by the first signal has finished. */
  finished(): Promise<void> {
    return this.done;
  }
}
