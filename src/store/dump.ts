import type Database from 'better-sqlite3';

/** A database dump: every table's rows, ordered by primary key (the snapshot's final.json). */
export type DatabaseDump = Record<string, Record<string, unknown>[]>;

interface ColumnInfo {
  name: string;
  pk: number;
}

function quoteIdent(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/** Dumps every user table (drizzle's migration ledger excluded) with rows ordered by primary key. */
export function dumpDatabase(sqlite: Database.Database): DatabaseDump {
  const tables = sqlite
    .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '__drizzle%' ORDER BY name")
    .all() as { name: string }[];
  const dump: DatabaseDump = {};
  for (const { name } of tables) {
    const columns = sqlite.prepare(`PRAGMA table_info(${quoteIdent(name)})`).all() as ColumnInfo[];
    const pk = columns.filter((c) => c.pk > 0).sort((a, b) => a.pk - b.pk);
    const order = pk.length ? pk.map((c) => quoteIdent(c.name)).join(', ') : 'rowid';
    const rows = sqlite.prepare(`SELECT * FROM ${quoteIdent(name)} ORDER BY ${order}`).all() as Record<string, unknown>[];
    dump[name] = rows;
  }
  return dump;
}
