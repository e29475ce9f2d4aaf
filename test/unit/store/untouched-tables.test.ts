import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dumpJson } from '../../../src/snapshot/index.ts';
import { CallDatabases, changedLeafRows, dumpDatabase, pageLayoutOf, untouchedTables, type PageLayout } from '../../../src/store/index.ts';

const TABLES = ['notes', 'owners', 'pets', 'rooms'];

/**
 * A template with tables over many pages: `notes` spans several leaf pages and overflow pages (long
 * texts), `pets` rows are deleted with their owner (ON DELETE CASCADE), `rooms` has an index.
 */
function buildTemplate(file: string): void {
  const sqlite = new Database(file);
  sqlite.pragma('journal_mode = DELETE');
  sqlite.exec(`
    CREATE TABLE notes (id TEXT PRIMARY KEY, body TEXT NOT NULL);
    CREATE TABLE owners (id TEXT PRIMARY KEY, name TEXT NOT NULL);
    CREATE TABLE pets (id TEXT PRIMARY KEY, owner_id TEXT NOT NULL REFERENCES owners(id) ON DELETE CASCADE, name TEXT NOT NULL);
    CREATE TABLE rooms (id INTEGER PRIMARY KEY, label TEXT NOT NULL, floor INTEGER NOT NULL);
    CREATE INDEX rooms_by_floor ON rooms (floor);
  `);
  const note = sqlite.prepare('INSERT INTO notes VALUES (?, ?)');
  for (let i = 0; i < 300; i++) note.run(`n${String(i).padStart(3, '0')}`, `note ${i} `.repeat(i % 50 === 0 ? 900 : 20));
  sqlite.prepare("INSERT INTO owners VALUES ('o1', 'Ada'), ('o2', 'Bo')").run();
  sqlite.prepare("INSERT INTO pets VALUES ('p1', 'o1', 'Rex'), ('p2', 'o2', 'Tom')").run();
  const room = sqlite.prepare('INSERT INTO rooms (label, floor) VALUES (?, ?)');
  for (let i = 0; i < 40; i++) room.run(`room ${i}`, i % 4);
  sqlite.close();
}

describe('tables a copy left as they were (page comparison with the template)', () => {
  let dir: string;
  let template: string;
  let image: Buffer;
  let layout: PageLayout;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'mivas-untouched-'));
    template = join(dir, 'template.db');
    buildTemplate(template);
    const sqlite = new Database(template, { readonly: true });
    image = sqlite.serialize();
    sqlite.close();
    const found = pageLayoutOf(image);
    if (!found) throw new Error('this SQLite has no dbstat table');
    layout = found;
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** A copy of the template with `writes` applied: its image, its full dump and the template's. */
  function copyWith(writes: string): { untouched: Set<string>; full: ReturnType<typeof dumpDatabase>; before: ReturnType<typeof dumpDatabase> } {
    const sqlite = new Database(image);
    const before = dumpDatabase(sqlite);
    sqlite.exec(writes);
    const untouched = untouchedTables(layout, sqlite.serialize(), TABLES);
    const full = dumpDatabase(sqlite);
    sqlite.close();
    return { untouched, full, before };
  }

  it('lays out every table, the notes over several pages', () => {
    expect([...layout.tables.keys()]).toEqual(expect.arrayContaining(TABLES));
    expect(layout.tables.get('notes')?.length).toBeGreaterThan(10);
  });

  it('finds every table untouched in a copy nobody wrote, and in the template itself', () => {
    expect([...copyWith('').untouched].sort()).toEqual(TABLES);
    expect([...untouchedTables(layout, image, TABLES)].sort()).toEqual(TABLES);
  });

  it('finds a table written in one row of one page, and one changed by a cascade, not untouched', () => {
    const { untouched, full, before } = copyWith("UPDATE notes SET body = 'changed' WHERE id = 'n150'; DELETE FROM owners WHERE id = 'o2';");
    expect([...untouched].sort()).toEqual(['rooms']);
    // The pets row went with its owner: no statement named the table.
    expect(full.pets).toHaveLength(1);
    // Whatever it names untouched holds the template's rows.
    for (const table of untouched) expect(full[table]).toEqual(before[table]);
  });

  it('finds a long note (with overflow pages) rewritten at the same length, and an indexed update', () => {
    const { untouched, full, before } = copyWith(`UPDATE notes SET body = replace(body, 'note 100', 'NOTE 100') WHERE id = 'n100'; UPDATE rooms SET floor = 9 WHERE id = 3;`);
    expect(full.notes).not.toEqual(before.notes);
    expect([...untouched].sort()).toEqual(['owners', 'pets']);
  });

  it('names no table untouched once the schema changed', () => {
    expect([...copyWith('CREATE TABLE extra (id TEXT PRIMARY KEY);').untouched]).toEqual([]);
  });

  it("gives an in-memory copy's dump the template's frozen rows for the tables it left, equal to a full read", () => {
    const dbs = new CallDatabases(join(dir, 'calls'), template);
    const templateDump = dbs.templateDump();
    expect(Object.isFrozen(templateDump.rooms)).toBe(true);
    expect(Object.isFrozen(templateDump.rooms?.[0])).toBe(true);
    const copy = dbs.createInMemory('mem');
    copy.sqlite.prepare("INSERT INTO owners VALUES ('o3', 'Cy')").run();
    copy.sqlite.prepare("UPDATE notes SET body = 'rewritten' WHERE id = 'n007'").run();
    const final = copy.dump(dbs.imageOf('mem'));
    expect(final).toEqual(copy.dump());
    expect(final.rooms).toBe(templateDump.rooms);
    expect(final.owners).not.toBe(templateDump.owners);
    expect(final.owners).toHaveLength(3);
    // In a table it changed, the rows it left are the template's own; the one it wrote is not.
    expect(final.owners?.[0]).toBe(templateDump.owners?.[0]);
    expect(final.notes).not.toBe(templateDump.notes);
    expect(final.notes?.[6]).toBe(templateDump.notes?.[6]);
    expect(final.notes?.[7]).not.toBe(templateDump.notes?.[7]);
    expect(final.notes?.[7]?.body).toBe('rewritten');
    // final.json is the same text either way.
    expect(dumpJson(final)).toBe(JSON.stringify(copy.dump()));
    dbs.closeAll();
  });

  it('finds the template frozen rows a row inserted or deleted before them moved one place, and stays equal to a full read', () => {
    const dbs = new CallDatabases(join(dir, 'moved'), template);
    const templateDump = dbs.templateDump();
    const copy = dbs.createInMemory('moved');
    // n000a sorts right after n000: every later note moves one place down; n150 deleted moves the rest back.
    copy.sqlite.prepare("INSERT INTO notes VALUES ('n000a', 'inserted')").run();
    copy.sqlite.prepare("DELETE FROM notes WHERE id = 'n150'").run();
    copy.sqlite.prepare("UPDATE notes SET body = 'rewritten' WHERE id = 'n200'").run();
    const final = copy.dump(dbs.imageOf('moved'));
    const notes = final.notes ?? [];
    const before = templateDump.notes ?? [];
    expect(final).toEqual(copy.dump());
    expect(notes[1]?.id).toBe('n000a');
    expect(notes[1]).not.toBe(before[1]);
    expect(notes[2]).toBe(before[1]);
    expect(notes[150]).toBe(before[149]);
    expect(notes[151]).toBe(before[151]);
    expect(notes[200]?.body).toBe('rewritten');
    expect(notes[200]).not.toBe(before[200]);
    expect(notes[201]).toBe(before[201]);
    expect(dumpJson(final)).toBe(JSON.stringify(copy.dump()));
    dbs.closeAll();
  });

  it('reads again only the rows on the leaf pages a copy changed in place, and whole a table whose rows moved', () => {
    const changedBy = (writes: string): Map<string, number[]> => {
      const sqlite = new Database(image);
      sqlite.exec(writes);
      const changed = changedLeafRows(layout, sqlite.serialize(), TABLES);
      sqlite.close();
      return changed;
    };
    expect(layout.places.has('notes')).toBe(true);
    // One note rewritten at the same length: only the rowids of its leaf, among them its own.
    const inPlace = changedBy("UPDATE notes SET body = replace(body, 'note', 'NOTE') WHERE id = 'n007'").get('notes') ?? [];
    expect(inPlace).toContain(8);
    expect(inPlace.length).toBeLessThan(300);
    // A row inserted or deleted, or a long note split over new pages: the table is read whole.
    expect(changedBy("INSERT INTO notes VALUES ('n000a', 'x')").has('notes')).toBe(false);
    expect(changedBy("DELETE FROM notes WHERE id = 'n150'").has('notes')).toBe(false);
    expect(changedBy("UPDATE notes SET body = body || body WHERE id = 'n100'").has('notes')).toBe(false);
    // A one-leaf table is read whole, and so is everything once the schema changed.
    expect(changedBy("UPDATE owners SET name = 'Ann' WHERE id = 'o1'").size).toBe(0);
    expect(changedBy("UPDATE notes SET body = 'x' WHERE id = 'n007'; CREATE TABLE extra (id TEXT)").size).toBe(0);
  });

  it("gives a dump whose rows on unchanged leaves are the template's frozen ones, equal to a full read, whatever was written", () => {
    const dbs = new CallDatabases(join(dir, 'leaves'), template);
    const templateDump = dbs.templateDump();
    const writes = [
      "UPDATE notes SET body = upper(body) WHERE id IN ('n003', 'n180')",
      "UPDATE notes SET body = 'short' WHERE id = 'n050'",
      "UPDATE notes SET id = 'n007b' WHERE id = 'n007'",
      "UPDATE rooms SET floor = floor + 1 WHERE id IN (3, 30); UPDATE notes SET body = body WHERE id = 'n299'",
      "INSERT INTO notes VALUES ('n299z', 'last'); UPDATE notes SET body = 'changed' WHERE id = 'n001'",
    ];
    writes.forEach((sql, i) => {
      const copy = dbs.createInMemory(`leaf_${i}`);
      copy.sqlite.exec(sql);
      const final = copy.dump(dbs.imageOf(`leaf_${i}`));
      expect(final, sql).toEqual(copy.dump());
      expect(dumpJson(final), sql).toBe(JSON.stringify(copy.dump()));
      const kept = (final.notes ?? []).filter((row) => (templateDump.notes ?? []).includes(row)).length;
      expect(kept, sql).toBeGreaterThan(290);
    });
    dbs.closeAll();
  });
});
