import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';

/**
 * Where a link stands. `pending`: not posted, or the last attempt was answered with a retryable
 * failure. `in_flight`: a POST was sent and its answer not recorded (after a crash the outcome is
 * unknown, so it is never re-sent: a second POST double-counts tools, wire.md §4.2). `linked` and
 * `failed` are final.
 */
export const linkStateSchema = z.enum(['pending', 'in_flight', 'linked', 'failed']);

/** One call's ledger entry, stored as `<dir>/<call_id>.json`. */
export const linkEntrySchema = z
  .object({
    call_id: z.string(),
    state: linkStateSchema,
    attempts: z.number().int().nonnegative(),
    due_epoch_ms: z.number(),
    updated_epoch_ms: z.number(),
    last_error: z.string().nullable(),
    body: z.record(z.string(), z.unknown()),
  })
  .strict();
export type LinkEntry = z.infer<typeof linkEntrySchema>;

/** Durable per-call link records: one file per call id, written to a temp name and renamed. */
export class LinkLedger {
  private readonly dir: string;

  constructor(dir: string) {
    this.dir = dir;
    mkdirSync(dir, { recursive: true });
  }

  /** The entry of a call, or null when the call was never scheduled (or the file is unreadable). */
  read(callId: string): LinkEntry | null {
    const file = this.file(callId);
    if (!existsSync(file)) return null;
    try {
      const parsed = linkEntrySchema.safeParse(JSON.parse(readFileSync(file, 'utf8')));
      return parsed.success ? parsed.data : null;
    } catch {
      return null;
    }
  }

  /** True when any entry exists: the call was scheduled once and must not be scheduled again. */
  has(callId: string): boolean {
    return existsSync(this.file(callId));
  }

  /** Writes an entry atomically. */
  write(entry: LinkEntry): void {
    const file = this.file(entry.call_id);
    writeFileSync(`${file}.tmp`, JSON.stringify(entry));
    renameSync(`${file}.tmp`, file);
  }

  /** Every readable entry. */
  entries(): LinkEntry[] {
    return readdirSync(this.dir)
      .filter((n) => n.endsWith('.json'))
      .map((n) => this.read(n.slice(0, -'.json'.length)))
      .filter((e): e is LinkEntry => e !== null);
  }

  private file(callId: string): string {
    // Call ids match CALL_ID_PATTERN (checked at upgrade), so they are safe file names.
    return join(this.dir, `${callId}.json`);
  }
}
