import { sql, type SQL } from 'drizzle-orm';
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
