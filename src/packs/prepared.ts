import { eq, getTableColumns, getTableName, is, sql, type SQL } from 'drizzle-orm';
import { PreparedQuery as SqlitePrepared } from 'drizzle-orm/better-sqlite3';
import type { SQLiteColumn, SQLiteInsertValue, SQLiteTable } from 'drizzle-orm/sqlite-core';
import type { PackDb } from './tool-kit.ts';

/**
 * Prepared queries for pack tools. Building a drizzle query (walking the builder, escaping names,
 * rendering SQL) costs far more than running it on a small per-call database, so hot lookups are
 * built once per call database and then run with placeholder values:
 *
 *   const openingById = preparedQuery((db) =>
 *     db.select().from(openings).where(eq(openings.id, param('id'))).prepare());
 *   openingById(ctx.db).get({ id });
 *
 * The cache is keyed by the drizzle handle, so a call's statements go away with its database.
 * The query is built once per process: its SQL, parameters and result mapping depend on the
 * builder alone, so every later database gets a copy of the first one with its own statement
 * (`onDatabase`); only SQLite's prepare is left per database.
 */
export function preparedQuery<Q>(build: (db: PackDb) => Q): (db: PackDb) => Q {
  const byDatabase = new WeakMap<PackDb, Q>();
  let first: Q | undefined;
  return (db) => {
    let query = byDatabase.get(db);
    if (query === undefined) {
      query = first !== undefined && is(first, SqlitePrepared) ? (onDatabase(first, db) as Q) : build(db);
      first ??= query;
      byDatabase.set(db, query);
    }
    return query;
  };
}

/**
 * A drizzle prepared query built for one database, for another: the same query, parameters and
 * result mapping, with the statement prepared on `db`'s connection. Everything else a drizzle
 * query holds (the SQL and its parameter slots, the selected fields, the no-op logger and cache)
 * belongs to no connection.
 */
function onDatabase(query: SqlitePrepared, db: PackDb): SqlitePrepared {
  const copy = Object.create(Object.getPrototypeOf(query) as object) as SqlitePrepared;
  return Object.assign(copy, query, { stmt: connectionOf(db).prepare(query.getQuery().sql) });
}

/** The SQLite connection a drizzle handle was made on (drizzle sets `$client`; the PackDb type leaves it out). */
function connectionOf(db: PackDb): { prepare(sql: string): unknown } {
  const client = (db as PackDb & { readonly $client?: { prepare(sql: string): unknown } }).$client;
  if (!client) throw new Error('a pack database handle without its SQLite connection');
  return client;
}

/** A named placeholder filled when a prepared query runs; usable in conditions and in `set`. */
export function param(name: string): SQL {
  return sql`${sql.placeholder(name)}`;
}

/** A prepared insert of one whole row: every column is a placeholder of its own name, so `.run(row)` takes the row object. */
export function rowInsert<T extends SQLiteTable>(table: T): (db: PackDb) => { run(row: T['$inferSelect']): void } {
  const values = Object.fromEntries(Object.keys(getTableColumns(table)).map((column) => [column, param(column)]));
  const insert = preparedQuery((db) => db.insert(table).values(values as SQLiteInsertValue<T>).prepare());
  return (db) => ({ run: (row) => void insert(db).run(row) });
}

/** A prepared lookup of one row by its `id` column. */
export function rowById<T extends SQLiteTable & { id: SQLiteColumn }>(table: T) {
  return preparedQuery((db) => db.select().from(table).where(eq(table.id, param('id'))).prepare());
}

/** Every reference table a pack reads through `referenceTable`: no tool may list one in `writes` (a contract test checks). */
export const cachedReferenceTables = new Set<string>();

/** A reference table's rows, read once per call database: all of them in seed (rowid) order, and one by id. */
export interface ReferenceRows<Row> {
  readonly all: readonly Row[];
  byId(id: string): Row | undefined;
}

/** The template each call database was copied from (`copiedFrom`), as a handle of its own. */
const templateOf = new WeakMap<PackDb, PackDb>();

/**
 * Declares `db` a copy of the template that `template` holds (the store calls it for every call
 * database it opens): its reference tables are then read from the template, once for all copies.
 */
export function copiedFrom(db: PackDb, template: PackDb): void {
  templateOf.set(db, template);
}

/**
 * Reads a reference table (seed data no tool writes) once per template, or once per call database
 * not declared a copy of one, and keeps it in memory: a lookup is then a Map get instead of a
 * statement. Rows are frozen. A copy's reference table holds its template's rows because no tool
 * writes one (a contract test checks).
 */
export function referenceTable<T extends SQLiteTable & { id: SQLiteColumn }>(table: T): (db: PackDb) => ReferenceRows<T['$inferSelect']> {
  cachedReferenceTables.add(getTableName(table));
  const read = preparedQuery((db) => {
    const all = Object.freeze(db.select().from(table).orderBy(sql`rowid`).all().map((row) => Object.freeze(row))) as readonly T['$inferSelect'][];
    const index = new Map(all.map((row) => [(row as { id: string }).id, row]));
    return { all, byId: (id: string) => index.get(id) };
  });
  return (db) => read(templateOf.get(db) ?? db);
}

/**
 * A row written at most once per call under a fixed id (the human transfer's escalation: the call
 * ends when it fires, so a repeat writes nothing). Returns true when the row already existed.
 */
export function oncePerCallRow<T extends SQLiteTable & { id: SQLiteColumn }>(table: T, id: string): (db: PackDb, build: () => Omit<T['$inferSelect'], 'id'>) => boolean {
  const byId = rowById(table);
  const insert = rowInsert(table);
  return (db, build) => {
    if (byId(db).get({ id })) return true;
    insert(db).run({ ...build(), id } as T['$inferSelect']);
    return false;
  };
}
