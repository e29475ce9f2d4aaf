import Database from 'better-sqlite3';
import { drizzle } from 'drizzle-orm/better-sqlite3';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { CALL_ID_PATTERN, MivasError } from '../core/index.ts';
import { copiedFrom, type PackDb } from '../packs/index.ts';
import { changedLeafRows, dumpDatabase, dumpDatabaseAt, dumpPlan, pageLayoutOf, untouchedTables, type DatabaseDump, type DumpPlan, type PageLayout } from './dump.ts';

/** An open per-call database: the raw handle for dumps and the drizzle handle for tools. */
export interface CallDatabase {
  readonly file: string;
  /** True for a database held in memory (`createInMemory`): `file` names it but is never written. */
  readonly inMemory: boolean;
  readonly sqlite: Database.Database;
  readonly db: PackDb;
  /**
   * Every table's rows by primary key (`dumpDatabase` with the template's plan, made once per
   * holder). Given `image`, this database's bytes as they are now (`imageOf`), a table whose pages
   * are still the template's is not read: it gets the template's rows (`templateDump`, the same
   * frozen array).
   */
  readonly dump: (image?: Buffer) => DatabaseDump;
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
 * Runs `fn` in one transaction, committed if it returns and rolled back if it throws; inside
 * another transaction, in a savepoint. The same as better-sqlite3's `transaction()`, whose first
 * use on a connection prepares nine statements (a BEGIN of each kind among them): here each
 * statement is prepared when first run, through the handle's statement cache, so a new connection
 * prepares two (BEGIN and COMMIT).
 */
function transactionRunner(sqlite: Database.Database): <T>(fn: () => T) => T {
  const run = (sql: string): void => void sqlite.prepare(sql).run();
  return (fn) => {
    const nested = sqlite.inTransaction;
    run(nested ? 'SAVEPOINT mivas_nested' : 'BEGIN');
    try {
      const result = fn();
      if (result instanceof Promise) throw new TypeError('a transaction cannot run asynchronous work');
      run(nested ? 'RELEASE mivas_nested' : 'COMMIT');
      return result;
    } catch (error) {
      if (sqlite.inTransaction) {
        run(nested ? 'ROLLBACK TO mivas_nested' : 'ROLLBACK');
        if (nested) run('RELEASE mivas_nested');
      }
      throw error;
    }
  };
}

/** Freezes a dump's top object, its arrays and its rows. */
function deepFreeze(dump: DatabaseDump): DatabaseDump {
  for (const rows of Object.values(dump)) {
    for (const row of rows) Object.freeze(row);
    Object.freeze(rows);
  }
  return Object.freeze(dump);
}

/** Raised when a call id already has a database (or an open handle): ids are used once. */
export class CallIdUsedError extends MivasError {
  constructor(callId: string) {
    super('CALL_ID_USED', `call ${callId} already has a database; a call id is used once`, { status: 409 });
  }
}

/**
 * Per-call SQLite files: each a fresh copy of the pack template, created atomically (copy to a
 * temp name, then rename) so a concurrent reader never sees a half-built database. A file that
 * already exists is never reopened for a new holder (`create` refuses it), so no conversation
 * can see another's rows. Handles stay open until released.
 */
export class CallDatabases {
  private readonly open = new Map<string, CallDatabase>();

  private readonly dir: string;
  private readonly templateFile: string;
  /** The template's bytes, read once for in-memory databases (a template file never changes). */
  private templateImage: Buffer | null = null;
  /** The template's rows, frozen (copies share them), and where its tables lie among its pages; made on first use. */
  private template: { readonly rows: DatabaseDump; readonly layout: PageLayout | null } | null = null;
  /** The template schema's dump plan, made from the first database opened. */
  private plan: DumpPlan | null = null;
  /** The template opened read-only, where every copy's reference tables are read once (`copiedFrom`); opened on first use. */
  private templateHandle: { readonly sqlite: Database.Database; readonly db: PackDb } | null = null;

  constructor(
    dir: string,
    templateFile: string,
  ) {
    this.dir = dir;
    this.templateFile = templateFile;
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

  /** Creates the call's database from the template and opens it; refuses an id that has one. */
  create(callId: string): CallDatabase {
    const file = this.pathOf(callId);
    if (this.open.has(callId) || existsSync(file)) throw new CallIdUsedError(callId);
    const tmp = `${file}.tmp`;
    copyFileSync(this.templateFile, tmp);
    renameSync(tmp, file);
    return this.openHandle(callId, file, new Database(file));
  }

  /**
   * Creates the call's database from the template in memory (SQLite's deserialize): the same
   * pages as a file copy, without the copy, the open, the file's removal or reading it back
   * (`imageOf` serializes it). For conversations whose database is never read by another
   * process (text episodes); a crash loses it as it loses the live conversation.
   */
  createInMemory(callId: string): CallDatabase {
    const file = this.pathOf(callId);
    if (this.open.has(callId) || existsSync(file)) throw new CallIdUsedError(callId);
    return this.openHandle(callId, file, new Database(this.imageOfTemplate()));
  }

  /**
   * The template's rows (every table, by primary key), read once and frozen: a copy's dump shares
   * the arrays of the tables it left as they were, so nobody may change them.
   */
  templateDump(): DatabaseDump {
    return this.templateOnce().rows;
  }

  private templateDb(): PackDb {
    if (!this.templateHandle) {
      const sqlite = new Database(this.imageOfTemplate(), { readonly: true });
      this.templateHandle = { sqlite, db: drizzle(sqlite) };
    }
    return this.templateHandle.db;
  }

  private imageOfTemplate(): Buffer {
    this.templateImage ??= readFileSync(this.templateFile);
    return this.templateImage;
  }

  private templateOnce(): { readonly rows: DatabaseDump; readonly layout: PageLayout | null } {
    if (!this.template) {
      const image = this.imageOfTemplate();
      this.template = { rows: deepFreeze(dumpDatabaseAt(image)), layout: pageLayoutOf(image) };
    }
    return this.template;
  }

  /** A dump of `sqlite` that takes the template's rows for the tables `image` shows untouched. */
  private dumpOf(sqlite: Database.Database, image: Buffer | undefined): DatabaseDump {
    const plan = (this.plan ??= dumpPlan(sqlite));
    const { rows, layout } = image ? this.templateOnce() : { rows: {}, layout: null };
    if (!image || !layout) return dumpDatabase(sqlite, plan);
    const tables = plan.map((p) => p.table);
    const untouched = untouchedTables(layout, image, tables);
    const changedRows = changedLeafRows(layout, image, tables.filter((table) => !untouched.has(table)));
    return dumpDatabase(sqlite, plan, { rows, tables: untouched, changedRows, places: layout.places });
  }

  /** An open database's bytes as SQLite would have written its file (in memory: serialized). */
  imageOf(callId: string): Buffer {
    const handle = this.open.get(callId);
    if (!handle) throw new Error(`call ${callId} has no open database`);
    return handle.sqlite.serialize();
  }

  /** A database file's bytes (read after its handle is released, so the file is consistent). */
  bytesOf(callId: string): Buffer {
    return readFileSync(this.pathOf(callId));
  }

  /**
   * Opens a released database of this holder again (tests of handle lifetime only: a
   * conversation holds its handle from create to close and never reopens).
   */
  reopen(callId: string): CallDatabase {
    const file = this.pathOf(callId);
    if (this.open.has(callId) || !existsSync(file)) throw new Error(`call ${callId} has no released database to reopen`);
    return this.openHandle(callId, file, new Database(file));
  }

  /** The template's bytes: the `db` part of a conversation that never got its own database. */
  templateBytes(): Buffer {
    return readFileSync(this.templateFile);
  }

  /**
   * Moves databases left by an earlier process (a crash or `kill -9` mid-call) into
   * `orphaned/` so a redialed id starts fresh; returns the ids moved (docs/reliability.md).
   */
  setAsideLeftovers(): string[] {
    // The journal goes too: left beside a fresh copy of the same id, SQLite would roll it back into it.
    const names = readdirSync(this.dir).filter((n) => n.endsWith('.db') || n.endsWith('.db.tmp') || n.endsWith('.db-journal'));
    if (!names.length) return [];
    const aside = join(this.dir, 'orphaned');
    mkdirSync(aside, { recursive: true });
    const stamp = new Date().toISOString().replaceAll(':', '-');
    for (const name of names) renameSync(join(this.dir, name), join(aside, `${stamp}_${name}`));
    return names.filter((n) => n.endsWith('.db')).map((n) => n.slice(0, -3));
  }

  private openHandle(callId: string, file: string, sqlite: Database.Database): CallDatabase {
    // One call for the three settings (each `pragma()` is a statement prepared and run from JS).
    // journal_mode: in memory SQLite keeps its journal in memory whatever is asked; the pages are the same.
    // synchronous: a call's database is evidence only until its snapshot is spooled, and a process
    // crash loses the live call anyway (docs/reliability.md); the rollback journal still protects it
    // from a crash mid-transaction, so skipping fsync costs nothing but an OS crash. It saves one
    // fsync per tool write.
    // locking_mode: one process and one connection own a call's file, so the lock is taken once and
    // kept: a transaction then costs no lock or cache-validation syscalls (about 15 µs per tool
    // call). Other connections get SQLITE_BUSY while the handle is open; snapshots read the bytes directly.
    sqlite.exec('PRAGMA journal_mode = DELETE; PRAGMA synchronous = OFF; PRAGMA locking_mode = EXCLUSIVE;');
    cacheStatements(sqlite);
    const db = drizzle(sqlite);
    copiedFrom(db, this.templateDb());
    const handle: CallDatabase = {
      file,
      inMemory: sqlite.memory,
      sqlite,
      db,
      dump: (image) => this.dumpOf(sqlite, image),
      inTransaction: transactionRunner(sqlite),
    };
    this.open.set(callId, handle);
    return handle;
  }

  /** Closes the call's handle (the file stays until removed). */
  release(callId: string): void {
    const handle = this.open.get(callId);
    if (!handle) return;
    this.open.delete(callId);
    handle.sqlite.close();
  }

  /** Closes the handle and deletes the file. */
  remove(callId: string): void {
    const inMemory = this.open.get(callId)?.inMemory ?? false;
    this.release(callId);
    if (inMemory) return;
    rmSync(this.pathOf(callId), { force: true });
    rmSync(`${this.pathOf(callId)}-journal`, { force: true });
  }

  /** How many handles are open. */
  openCount(): number {
    return this.open.size;
  }

  /** Closes every open handle, the template's too (opened again if a database is created after). */
  closeAll(): void {
    for (const id of [...this.open.keys()]) this.release(id);
    this.templateHandle?.sqlite.close();
    this.templateHandle = null;
  }
}
