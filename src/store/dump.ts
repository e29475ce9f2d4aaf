import Database from 'better-sqlite3';
import { sameRow } from '../core/index.ts';
import { FILE_HEADER_BYTES, leafRowids } from './leaf-pages.ts';

/** A database dump: every table's rows, ordered by primary key (the snapshot's final.json). */
export type DatabaseDump = Record<string, Record<string, unknown>[]>;

interface ColumnInfo {
  name: string;
  pk: number;
}

function quoteIdent(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/** How to dump one schema: each user table's name, the query that reads it in primary-key order, and its primary key's columns. */
export type DumpPlan = readonly { readonly table: string; readonly select: string; readonly order: string; readonly pk: readonly string[] }[];

/** The dump plan of a database's schema (drizzle's migration ledger excluded). */
export function dumpPlan(sqlite: Database.Database): DumpPlan {
  const tables = sqlite
    .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '__drizzle%' ORDER BY name")
    .all() as { name: string }[];
  return tables.map(({ name }) => {
    const columns = sqlite.prepare(`PRAGMA table_info(${quoteIdent(name)})`).all() as ColumnInfo[];
    const pk = columns.filter((c) => c.pk > 0).sort((a, b) => a.pk - b.pk);
    const order = pk.length ? pk.map((c) => quoteIdent(c.name)).join(', ') : 'rowid';
    return { table: name, select: `SELECT * FROM ${quoteIdent(name)} ORDER BY ${order}`, order, pk: pk.map((c) => c.name) };
  });
}

/**
 * Rows a dump may take without reading them: the template's, for the tables a copy left as they
 * were (`tables`), and for the rows of a changed table that lie on leaf pages it left as they were
 * (`changedRows`: the rowids to read again, by table; `places`: where each rowid's row is in the
 * template's rows, by table).
 */
export interface KnownRows {
  readonly rows: DatabaseDump;
  readonly tables: ReadonlySet<string>;
  readonly changedRows?: ReadonlyMap<string, readonly number[]>;
  readonly places?: PageLayout['places'];
}

/**
 * Dumps every user table with rows ordered by primary key. `plan` may be one made from another
 * database with the same schema (every copy of a template shares its template's). A table named in
 * `known` takes its rows from there (the same array) instead of a query; in the other tables, a row
 * identical to a known one in the same place or next to it is that (frozen) row (`twinsOf`).
 */
export function dumpDatabase(sqlite: Database.Database, plan: DumpPlan = dumpPlan(sqlite), known?: KnownRows): DatabaseDump {
  const dump: DatabaseDump = {};
  for (const entry of plan) {
    const { table, select } = entry;
    const template = known?.rows[table];
    if (template && known?.tables.has(table)) {
      dump[table] = template;
      continue;
    }
    const rowids = known?.changedRows?.get(table);
    const patched = template && rowids ? patchedRows(sqlite, entry, template, rowids, known?.places?.get(table)) : null;
    if (patched) {
      dump[table] = patched;
      continue;
    }
    const rows = sqlite.prepare(select).all() as Record<string, unknown>[];
    dump[table] = template ? twinsOf(template, rows) : rows;
  }
  return dump;
}

/**
 * The template's rows with the rows of `rowids` read again in their places, or null (then the
 * table is read whole) when a row is gone or its primary key changed, so its place may have.
 */
function patchedRows(sqlite: Database.Database, entry: DumpPlan[number], template: readonly Record<string, unknown>[], rowids: readonly number[], places: ReadonlyMap<number, number> | undefined): Record<string, unknown>[] | null {
  if (!places) return null;
  const rows = [...template];
  const byRowid = sqlite.prepare(`SELECT * FROM ${quoteIdent(entry.table)} WHERE _rowid_ = ?`);
  for (const rowid of rowids) {
    const at = places.get(rowid);
    const twin = at === undefined ? undefined : template[at];
    const row = byRowid.get(rowid) as Record<string, unknown> | undefined;
    if (at === undefined || !twin || !row || !entry.pk.every((column) => twin[column] === row[column])) return null;
    rows[at] = sameRow(twin, row) ? twin : row;
  }
  return rows;
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
  /** The rowids on each of the template's table leaf pages, by page number. */
  readonly leaves: ReadonlyMap<number, readonly number[]>;
  /** For each table of more than one leaf page: where each rowid's row is among the table's rows in the dump's order. */
  readonly places: ReadonlyMap<string, ReadonlyMap<number, number>>;
}

/** The page layout of a database image, or null when this SQLite has no `dbstat` table (then every dump reads every table). */
export function pageLayoutOf(image: Buffer): PageLayout | null {
  const sqlite = new Database(image, { readonly: true });
  try {
    const pageSize = sqlite.pragma('page_size', { simple: true }) as number;
    const rows = sqlite.prepare('SELECT name, pageno, pagetype FROM dbstat ORDER BY pageno').all() as { name: string; pageno: number; pagetype: string }[];
    const tables = new Map<string, number[]>();
    const leaves = new Map<number, number[]>();
    const leafCount = new Map<string, number>();
    for (const { name, pageno, pagetype } of rows) {
      const pages = tables.get(name) ?? [];
      pages.push(pageno);
      tables.set(name, pages);
      const rowids = pagetype === 'leaf' ? leafRowids(image, pageSize, pageno) : null;
      if (rowids) leaves.set(pageno, rowids);
      if (rowids) leafCount.set(name, (leafCount.get(name) ?? 0) + 1);
    }
    const schema = tables.get('sqlite_schema') ?? tables.get('sqlite_master');
    if (!schema) return null;
    const places = new Map<string, Map<number, number>>();
    for (const { table, order } of dumpPlan(sqlite)) {
      if ((leafCount.get(table) ?? 0) >= 2 && !shadowsRowid(sqlite, table)) places.set(table, placesOf(sqlite, table, order));
    }
    return { pageSize, image, tables, schema, leaves, places };
  } catch {
    return null;
  } finally {
    sqlite.close();
  }
}

/** True when a column of `table` takes one of the names that would otherwise mean its rowid. */
function shadowsRowid(sqlite: Database.Database, table: string): boolean {
  const columns = sqlite.prepare(`PRAGMA table_info(${quoteIdent(table)})`).all() as ColumnInfo[];
  return columns.some((c) => ['rowid', '_rowid_', 'oid'].includes(c.name.toLowerCase()));
}

/** Where each rowid's row is among `table`'s rows in `order`. */
function placesOf(sqlite: Database.Database, table: string, order: string): Map<number, number> {
  const rowids = sqlite.prepare(`SELECT _rowid_ FROM ${quoteIdent(table)} ORDER BY ${order}`).pluck().all() as number[];
  return new Map(rowids.map((rowid, i) => [rowid, i]));
}

/** True when page `pageno` (1-based) holds the same bytes in both images; page 1 is compared after the file header. */
function samePage(layout: PageLayout, image: Buffer, pageno: number): boolean {
  const start = (pageno - 1) * layout.pageSize + (pageno === 1 ? FILE_HEADER_BYTES : 0);
  const end = pageno * layout.pageSize;
  if (end > image.length || end > layout.image.length) return false;
  return image.compare(layout.image, start, end, start, end) === 0;
}

/** True when `image` has a file header with the layout's page size and the template's schema pages: else no table of it may be taken from the template. */
function sameSchema(layout: PageLayout, image: Buffer): boolean {
  const samePageSize = image.length >= FILE_HEADER_BYTES && image.readUInt16BE(16) === (layout.pageSize === 65_536 ? 1 : layout.pageSize);
  return samePageSize && layout.schema.every((page) => samePage(layout, image, page));
}

/**
 * The tables of `tables` whose b-tree pages in `image` (a copy of the layout's template, as it is
 * now) are the template's own: their rows are the template's. None when the schema's pages
 * changed or the page size differs.
 */
export function untouchedTables(layout: PageLayout, image: Buffer, tables: Iterable<string>): Set<string> {
  const untouched = new Set<string>();
  if (!sameSchema(layout, image)) return untouched;
  for (const table of tables) {
    const pages = layout.tables.get(table);
    if (pages && pages.every((page) => samePage(layout, image, page))) untouched.add(table);
  }
  return untouched;
}

/**
 * For each table of `tables` a copy changed only in leaf pages that still hold the same rowids
 * (rows updated in place): those rowids, the only rows that may differ from the template's. A
 * table is left out (read whole) when it is untouched, when any other of its pages changed
 * (an interior page: rows moved between leaves; an overflow page), when a leaf now holds other
 * rowids (rows inserted or deleted), when every leaf changed, or when the schema's pages changed.
 * The rows on a leaf whose bytes are the template's are the template's: its cells, and the
 * overflow pages they point to, unchanged.
 */
export function changedLeafRows(layout: PageLayout, image: Buffer, tables: Iterable<string>): Map<string, number[]> {
  const changed = new Map<string, number[]>();
  if (!sameSchema(layout, image)) return changed;
  for (const table of tables) {
    const rowids = layout.places.has(table) ? rowidsToRead(layout, image, layout.tables.get(table) ?? []) : null;
    if (rowids?.length) changed.set(table, rowids);
  }
  return changed;
}

/** The rowids on the changed pages of `pages` (one table's), or null when the table must be read whole (see changedLeafRows). */
function rowidsToRead(layout: PageLayout, image: Buffer, pages: readonly number[]): number[] | null {
  const rowids: number[] = [];
  let leavesChanged = 0;
  let leaves = 0;
  for (const page of pages) {
    const before = layout.leaves.get(page);
    if (before) leaves++;
    if (samePage(layout, image, page)) continue;
    const after = before ? leafRowids(image, layout.pageSize, page) : null;
    if (!before || !after || after.length !== before.length || after.some((rowid, i) => rowid !== before[i])) return null;
    leavesChanged++;
    rowids.push(...after);
  }
  return leavesChanged < leaves ? rowids : null;
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
