import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadPack, type Pack } from '../../../src/packs/index.ts';
import { dumpDatabase, dumpDatabaseAt, packDatabases, templatePath } from '../../../src/store/index.ts';

const PACKS_DIR = join(import.meta.dirname, '../../../packs');

describe('packDatabases and dumpDatabaseAt', () => {
  let dir: string;
  let pack: Pack;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'mivas-packdbs-'));
    pack = await loadPack(PACKS_DIR, 'control-industry');
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("builds the template once, puts conversations' databases in the named folder, and gives the template's rows", () => {
    const { databases, templateDump } = packDatabases(dir, pack, join('episodes', pack.id));
    const template = templatePath(join(dir, 'templates'), pack);
    expect(existsSync(template)).toBe(true);
    const opened = databases.create('ep_one');
    expect(existsSync(join(dir, 'episodes', pack.id, 'ep_one.db'))).toBe(true);
    // A fresh copy holds exactly the template's rows.
    expect(dumpDatabase(opened.sqlite)).toEqual(templateDump);
    expect(Object.keys(templateDump)).toContain('appointments');
    databases.closeAll();
  });

  it('dumps a file and the same bytes held in memory alike, read-only (the file is not changed)', () => {
    const template = templatePath(join(dir, 'templates'), pack);
    const before = readFileSync(template);
    expect(dumpDatabaseAt(before)).toEqual(dumpDatabaseAt(template));
    expect(readFileSync(template).equals(before)).toBe(true);
  });

  it('refuses bytes that are not a database', () => {
    expect(() => dumpDatabaseAt(Buffer.from('not a database at all'))).toThrow();
  });
});
