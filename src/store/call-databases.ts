import Database from 'better-sqlite3';
import { drizzle } from 'drizzle-orm/better-sqlite3';
import { copyFileSync, existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { CALL_ID_PATTERN } from '../core/index.ts';
import type { PackDb } from '../packs/index.ts';

/** An open per-call database: the raw handle for dumps and the drizzle handle for tools. */
export interface CallDatabase {
  readonly file: string;
  readonly sqlite: Database.Database;
  readonly db: PackDb;
  /** Runs `fn` in one transaction: committed if it returns, rolled back if it throws. */
  readonly inTransaction: <T>(fn: () => T) => T;
}


/**
 * Drizzle prepares every query afresh (a pack tool issues ~10 per call); a call's database sees
 * the same few dozen SQL texts over and over, so each handle keeps its statements. A cached
 * statement is handed back in its default mode (drizzle switches `raw` on for row arrays), and
 * the cache dies with the handle. Measured in docs/performance.md.
 */
function cacheStatements(sqlite: Database.Database): void {
  const statements = new Map<string, Database.Statement>();
  const prepare = sqlite.prepare.bind(sqlite);
  sqlite.prepare = ((source: string) => {
    const cached = statements.get(source);
    if (cached) {
      if (cached.reader) cached.raw(false);
      return cached;
    }
    const statement = prepare(source);
    statements.set(source, statement);
    return statement;
  }) as Database.Database['prepare'];
}

/**
 * Per-call SQLite files: each a copy of the pack template, created atomically (copy to a temp
 * name, then rename) so a concurrent reader never sees a half-built database. Handles stay open
 * until released.
 */
export class CallDatabases {
  private readonly open = new Map<string, CallDatabase>();
  /** Handles opened for one-off requests, least recently used first. */
  private readonly transient = new Set<string>();

  constructor(
    private readonly dir: string,
    private readonly templateFile: string,
    /** Idle handles kept open for HTTP tool calls on calls with no live session. */
    private readonly maxTransient = 256,
  ) {
    mkdirSync(dir, { recursive: true });
  }

  /** File path of a call's database; the call id was validated at the edge and is checked again. */
  pathOf(callId: string): string {
    if (!CALL_ID_PATTERN.test(callId)) throw new Error(`invalid call id ${JSON.stringify(callId)}`);
    return join(this.dir, `${callId}.db`);
  }

  /** True when the call's database file exists. */
  exists(callId: string): boolean {
    return existsSync(this.pathOf(callId));
  }

  /** Opens the call's database for its holder (a live call), creating it from the template on first use. */
  acquire(callId: string): CallDatabase {
    this.transient.delete(callId);
    return this.openHandle(callId);
  }

  /**
   * Opens a call's database for one request (HTTP tools and state on a call with no live session).
   * A long-running server sees endless call ids there, so only the most recent idle handles stay open.
   */
  acquireTransient(callId: string): CallDatabase {
    const held = this.open.get(callId);
    if (held && !this.transient.has(callId)) return held;
    const handle = this.openHandle(callId);
    this.transient.delete(callId);
    this.transient.add(callId);
    for (const oldest of this.transient) {
      if (this.transient.size <= this.maxTransient) break;
      this.release(oldest);
    }
    return handle;
  }

  private openHandle(callId: string): CallDatabase {
    const cached = this.open.get(callId);
    if (cached) return cached;
    const file = this.pathOf(callId);
    if (!existsSync(file)) {
      const tmp = `${file}.tmp`;
      copyFileSync(this.templateFile, tmp);
      renameSync(tmp, file);
    }
    const sqlite = new Database(file);
    sqlite.pragma('journal_mode = DELETE');
    // A call's database is evidence only until its snapshot is spooled, and a process crash loses
    // the live call anyway (docs/reliability.md); the rollback journal still protects it from a
    // crash mid-transaction, so skipping fsync costs nothing but an OS crash. It saves one fsync
    // per tool write.
    sqlite.pragma('synchronous = OFF');
    // One process and one connection own a call's file, so the lock is taken once and kept: a
    // transaction then costs no lock or cache-validation syscalls (about 15 µs per tool call).
    // Other connections get SQLITE_BUSY while the handle is open; snapshots read the bytes directly.
    sqlite.pragma('locking_mode = EXCLUSIVE');
    cacheStatements(sqlite);
    // better-sqlite3 builds a transaction wrapper per call of transaction(); build it once.
    const transaction = sqlite.transaction((fn: () => unknown) => fn());
    const handle: CallDatabase = { file, sqlite, db: drizzle(sqlite), inTransaction: (fn) => transaction(fn) as ReturnType<typeof fn> };
    this.open.set(callId, handle);
    return handle;
  }

  /** Closes the call's handle (the file stays until removed). */
  release(callId: string): void {
    this.transient.delete(callId);
    const handle = this.open.get(callId);
    if (!handle) return;
    this.open.delete(callId);
    handle.sqlite.close();
  }

  /** Closes the handle and deletes the file. */
  remove(callId: string): void {
    this.release(callId);
    rmSync(this.pathOf(callId), { force: true });
  }

  /** How many handles are open (live and transient). */
  openCount(): number {
    return this.open.size;
  }

  /** Closes every open handle. */
  closeAll(): void {
    for (const id of [...this.open.keys()]) this.release(id);
  }
}
