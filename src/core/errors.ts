import type { ErrorCode } from './error-catalog.ts';

/** Base error: a code declared in the error catalog, an optional HTTP status and the cause. */
export class MivasError extends Error {
  readonly code: ErrorCode;
  readonly status: number | undefined;

  constructor(code: ErrorCode, message: string, options: { status?: number; cause?: unknown } = {}) {
    super(message, { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
    this.status = options.status;
  }
}

/** A user's misconfiguration (bad flag, bad environment, unreadable pack): exit code 3. */
export class ConfigError extends MivasError {}

/** Pack files that do not satisfy the pack contract; names the file and field. */
export class PackError extends MivasError {}
