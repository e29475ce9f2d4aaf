import { Writable } from 'node:stream';
import pino, { type Logger } from 'pino';

/** A pino logger whose lines (JSON, one per entry) are kept in `lines`, for tests that read what was logged. */
export function capturedLog(level: pino.LevelWithSilent = 'info'): { readonly log: Logger; readonly lines: string[] } {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(chunk.toString('utf8'));
      done();
    },
  });
  return { log: pino({ level }, sink), lines };
}
