import Database from 'better-sqlite3';
import { sameRow } from '../core/index.ts';

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

/** Rows a dump may take without reading them: the template's, for the tables a copy left as they were. */
export interface KnownRows {
  readonly rows: DatabaseDump;
  readonly tables: ReadonlySet<string>;
}

/**
 * Dumps every user table with rows ordered by primary key. `plan` may be one made from another
 * database with the same schema (every copy of a template shares its template's). A table named in
 * `known` takes its rows from there (the same array) instead of a query; in the other tables, a row
 * identical to a known one in the same place or next to it is that (frozen) row (`twinsOf`).
 */
export function dumpDatabase(sqlite: Database.Database, plan: DumpPlan = dumpPlan(sqlite), known?: KnownRows): DatabaseDump {
  const dump: DatabaseDump = {};
  for (const { table, select } of plan) {
    const template = known?.rows[table];
    if (template && known?.tables.has(table)) {
      dump[table] = template;
      continue;
    }
    const rows = sqlite.prepare(select).all() as Record<string, unknown>[];
    dump[table] = template ? twinsOf(template, rows) : rows;
  }
  return dump;
}

/**
 * Each row read, or the template's identical row (most rows of a table a conversation changed):
 * looked for in the same place, then one place either side, where a row inserted or deleted
 * before it moves it (both are in primary-key order); the place found is where the next row is
 * looked for first.
 */
function twinsOf(template: readonly Record<string, unknown>[], rows: readonly Record<string, unknown>[]): Record<string, unknown>[] {
  let shift = 0;
  return rows.map((row, i) => {
    for (const offset of [shift, shift + 1, shift - 1]) {
      const twin = template[i + offset];
      if (twin && sameRow(twin, row)) {
        shift = offset;
        return twin;
      }
    }
    return row;
  });
}

/**
 * Where a template's tables lie among its pages: each table's b-tree (interior, leaf and overflow
 * pages) and the schema's, from SQLite's `dbstat` table. A copy of the template whose pages of one
 * table are still byte for byte the template's holds exactly the template's rows in it: the schema
 * gives the same root page, and a b-tree's rows are whatever its root and the pages it reaches
 * hold, so if none of those pages changed, neither did the rows.
 */
export interface PageLayout {
  readonly pageSize: number;
  /** The template's bytes. */
  readonly image: Buffer;
  readonly tables: ReadonlyMap<string, readonly number[]>;
  readonly schema: readonly number[];
}

/** The page layout of a database image, or null when this SQLite has no `dbstat` table (then every dump reads every table). */
export function pageLayoutOf(image: Buffer): PageLayout | null {
  const sqlite = new Database(image, { readonly: true });
  try {
    const pageSize = sqlite.pragma('page_size', { simple: true }) as number;
    const rows = sqlite.prepare('SELECT name, pageno FROM dbstat ORDER BY pageno').all() as { name: string; pageno: number }[];
    const tables = new Map<string, number[]>();
    for (const { name, pageno } of rows) {
      const pages = tables.get(name) ?? [];
      pages.push(pageno);
      tables.set(name, pages);
    }
    const schema = tables.get('sqlite_schema') ?? tables.get('sqlite_master');
    if (!schema) return null;
    return { pageSize, image, tables, schema };
  } catch {
    return null;
  } finally {
    sqlite.close();
  }
}

/** The first page holds the file header (100 bytes, with counters every write changes) before the schema's b-tree. */
const FILE_HEADER_BYTES = 100;

/** True when page `pageno` (1-based) holds the same bytes in both images; page 1 is compared after the file header. */
function samePage(layout: PageLayout, image: Buffer, pageno: number): boolean {
  const start = (pageno - 1) * layout.pageSize + (pageno === 1 ? FILE_HEADER_BYTES : 0);
  const end = pageno * layout.pageSize;
  if (end > image.length || end > layout.image.length) return false;
  return image.compare(layout.image, start, end, start, end) === 0;
}

/**
 * The tables of `tables` whose b-tree pages in `image` (a copy of the layout's template, as it is
 * now) are the template's own: their rows are the template's. None when the schema's pages
 * changed or the page size differs.
 */
export function untouchedTables(layout: PageLayout, image: Buffer, tables: Iterable<string>): Set<string> {
  const untouched = new Set<string>();
  if (image.length < FILE_HEADER_BYTES || image.readUInt16BE(16) !== (layout.pageSize === 65_536 ? 1 : layout.pageSize)) return untouched;
  if (!layout.schema.every((page) => samePage(layout, image, page))) return untouched;
  for (const table of tables) {
    const pages = layout.tables.get(table);
    if (pages && pages.every((page) => samePage(layout, image, page))) untouched.add(table);
  }
  return untouched;
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
