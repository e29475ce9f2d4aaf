/** The logging surface calls need; pino's logger satisfies it. */
export interface Log {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
  debug(obj: object, msg?: string): void;
  child(bindings: Record<string, unknown>): Log;
}

/** A logger that drops everything (tests and the local caller). */
export function silentLog(): Log {
  const log: Log = { info: () => undefined, warn: () => undefined, error: () => undefined, debug: () => undefined, child: () => log };
  return log;
}
