import Database from 'better-sqlite3';

/** A database dump: every table's rows, ordered by primary key (the snapshot's final.json). */
export type DatabaseDump = Record<string, Record<string, unknown>[]>;

interface ColumnInfo {
  name: string;
  pk: number;
}

function quoteIdent(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/** How to dump one schema: each user table's name and the query that reads it in primary-key order. */
export type DumpPlan = readonly { readonly table: string; readonly select: string }[];

/** The dump plan of a database's schema (drizzle's migration ledger excluded). */
export function dumpPlan(sqlite: Database.Database): DumpPlan {
  const tables = sqlite
    .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '__drizzle%' ORDER BY name")
    .all() as { name: string }[];
  return tables.map(({ name }) => {
    const columns = sqlite.prepare(`PRAGMA table_info(${quoteIdent(name)})`).all() as ColumnInfo[];
    const pk = columns.filter((c) => c.pk > 0).sort((a, b) => a.pk - b.pk);
    const order = pk.length ? pk.map((c) => quoteIdent(c.name)).join(', ') : 'rowid';
    return { table: name, select: `SELECT * FROM ${quoteIdent(name)} ORDER BY ${order}` };
  });
}

/**
 * Dumps every user table with rows ordered by primary key. `plan` may be one made from another
 * database with the same schema (every copy of a template shares its template's).
 */
export function dumpDatabase(sqlite: Database.Database, plan: DumpPlan = dumpPlan(sqlite)): DatabaseDump {
  const dump: DatabaseDump = {};
  for (const { table, select } of plan) dump[table] = sqlite.prepare(select).all() as Record<string, unknown>[];
  return dump;
}

/**
 * Dumps a database opened read-only for the dump alone: a file (a template) or the bytes of a
 * snapshot's `db` part. Everything outside `store/` reads a database through here.
 */
export function dumpDatabaseAt(source: string | Buffer): DatabaseDump {
  const sqlite = new Database(source, { readonly: true });
  try {
    return dumpDatabase(sqlite);
  } finally {
    sqlite.close();
  }
}
