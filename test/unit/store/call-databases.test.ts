import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadPack } from '../../../src/packs/index.ts';
import { CallDatabases, dumpDatabase, ensureTemplate } from '../../../src/store/index.ts';

const PACKS_DIR = join(import.meta.dirname, '../../../packs');

describe('CallDatabases', () => {
  let dir: string;
  let template: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'mivas-calldbs-'));
    template = ensureTemplate(join(dir, 'templates'), await loadPack(PACKS_DIR, 'control-industry'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('keeps only the most recent idle handles of one-off requests open', () => {
    const dbs = new CallDatabases(join(dir, 'lru'), template, 3);
    for (const id of ['a', 'b', 'c', 'd', 'e']) dbs.acquireTransient(id);
    expect(dbs.openCount()).toBe(3);
    const reopened = dbs.acquireTransient('a');
    expect(dumpDatabase(reopened.sqlite).appointments).toEqual([]);
    expect(dbs.openCount()).toBe(3);
    dbs.closeAll();
  });

  it('never closes a handle a live call holds, even when it was first opened for a request', () => {
    const dbs = new CallDatabases(join(dir, 'held'), template, 2);
    dbs.acquireTransient('live');
    const held = dbs.acquire('live');
    for (const id of ['x', 'y', 'z', 'w']) dbs.acquireTransient(id);
    expect(held.sqlite.open).toBe(true);
    expect(dbs.acquireTransient('live')).toBe(held);
    expect(dbs.openCount()).toBe(3);
    dbs.closeAll();
  });

  it('lets a request read a live call through the same handle', () => {
    const dbs = new CallDatabases(join(dir, 'shared'), template, 1);
    const held = dbs.acquire('call_1');
    expect(dbs.acquireTransient('call_1')).toBe(held);
    dbs.acquireTransient('other');
    expect(held.sqlite.open).toBe(true);
    dbs.closeAll();
  });
});
