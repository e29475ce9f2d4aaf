import type { CliIO } from './io.ts';

/** The exit status after an interrupted run has printed what it finished (128 + SIGINT). */
export const EXIT_INTERRUPTED = 130;

/** A run's Ctrl-C: the first stops new work and lets what is in flight finish and be scored; the second exits at once. */
export interface RunInterrupt {
  requested(): boolean;
  dispose(): void;
}

export function watchInterrupt(io: CliIO, what: string): RunInterrupt {
  let count = 0;
  const onSignal = (): void => {
    count++;
    if (count > 1) {
      io.stderr.write('\nstopped: nothing more is scored\n');
      process.exit(EXIT_INTERRUPTED);
    }
    io.stderr.write(`\ninterrupted: no new ${what} start; the ones in flight finish, then what ran is scored (Ctrl-C again to stop now)\n`);
  };
  const signals = io.signals ?? process;
  signals.on('SIGINT', onSignal);
  return { requested: () => count > 0, dispose: () => void signals.off('SIGINT', onSignal) };
}
