import { eq, getTableColumns, sql, type SQL } from 'drizzle-orm';
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
 */
export function preparedQuery<Q>(build: (db: PackDb) => Q): (db: PackDb) => Q {
  const byDatabase = new WeakMap<PackDb, Q>();
  return (db) => {
    let query = byDatabase.get(db);
    if (query === undefined) {
      query = build(db);
      byDatabase.set(db, query);
    }
    return query;
  };
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
