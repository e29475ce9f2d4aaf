import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadPack } from '../../../src/packs/index.ts';
import { CallDatabases, CallIdUsedError, dumpDatabase, ensureTemplate } from '../../../src/store/index.ts';

const PACKS_DIR = join(import.meta.dirname, '../../../packs');

describe('CallDatabases', () => {
  let dir: string;
  let template: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'mivas-calldbs-'));
    template = ensureTemplate(join(dir, 'templates'), await loadPack(PACKS_DIR, 'control-industry'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('creates each database fresh from the template and refuses an id that has one', () => {
    const dbs = new CallDatabases(join(dir, 'once'), template);
    const first = dbs.create('call_a');
    first.sqlite.prepare("INSERT INTO appointments (id, date, created_at) VALUES ('apt_1', '2026-10-07', 'x')").run();
    expect(() => dbs.create('call_a')).toThrow(CallIdUsedError);
    dbs.release('call_a');
    // Released but still on disk: the rows of that call must never reach a new holder.
    expect(() => dbs.create('call_a')).toThrow(/used once/);
    dbs.remove('call_a');
    expect(dumpDatabase(dbs.create('call_a').sqlite).appointments).toEqual([]);
    dbs.closeAll();
  });

  it('holds a database in memory with the bytes and dump a file copy gets from the same writes, and writes no file', () => {
    const dbs = new CallDatabases(join(dir, 'memory'), template);
    const write = (sqlite: ReturnType<CallDatabases['create']>['sqlite']): void => {
      sqlite.prepare("INSERT INTO appointments (id, date, created_at) VALUES ('apt_2', '2026-10-09', 'y')").run();
      sqlite.prepare("UPDATE appointments SET date = '2026-10-10' WHERE id = 'apt_2'").run();
    };
    const onDisk = dbs.create('disk');
    const inMemory = dbs.createInMemory('mem');
    expect([onDisk.inMemory, inMemory.inMemory]).toEqual([false, true]);
    write(onDisk.sqlite);
    write(inMemory.sqlite);
    expect(inMemory.dump()).toEqual(onDisk.dump());
    expect(inMemory.dump().appointments).toHaveLength(1);
    const image = dbs.imageOf('mem');
    dbs.release('disk');
    expect(image.equals(dbs.bytesOf('disk'))).toBe(true);
    expect(() => dbs.createInMemory('mem')).toThrow(CallIdUsedError);
    expect(() => dbs.createInMemory('disk')).toThrow(CallIdUsedError);
    dbs.remove('mem');
    expect(readdirSync(join(dir, 'memory')).sort()).toEqual(['disk.db']);
    // A fresh in-memory copy starts from the template again.
    expect(dbs.createInMemory('mem').dump().appointments).toEqual([]);
    dbs.closeAll();
  });

  it('runs a transaction that commits when it returns and rolls back when it throws; inside another, a savepoint', () => {
    const dbs = new CallDatabases(join(dir, 'transactions'), template);
    const { sqlite, inTransaction } = dbs.createInMemory('tx');
    const insert = (id: string): void => void sqlite.prepare(`INSERT INTO appointments (id, date, created_at) VALUES ('${id}', 'date of ${id}', 'x')`).run();
    const ids = (): string[] => (sqlite.prepare("SELECT id FROM appointments WHERE id LIKE 'tx%' ORDER BY id").all() as { id: string }[]).map((r) => r.id);
    expect(inTransaction(() => (insert('tx_1'), 'done'))).toBe('done');
    expect(sqlite.inTransaction).toBe(false);
    expect(() => inTransaction(() => {
      insert('tx_2');
      throw new Error('refused');
    })).toThrow('refused');
    expect(sqlite.inTransaction).toBe(false);
    expect(ids()).toEqual(['tx_1']);
    // Nested: the inner failure undoes only its own writes, and the outer one still commits.
    inTransaction(() => {
      insert('tx_3');
      expect(() => inTransaction(() => {
        insert('tx_4');
        throw new Error('inner');
      })).toThrow('inner');
      expect(sqlite.inTransaction).toBe(true);
      inTransaction(() => insert('tx_5'));
    });
    expect(ids()).toEqual(['tx_1', 'tx_3', 'tx_5']);
    // Asynchronous work cannot hold a transaction open: it is refused and rolled back.
    expect(() => inTransaction(() => (insert('tx_6'), Promise.resolve()))).toThrow(/asynchronous/);
    expect(sqlite.inTransaction).toBe(false);
    expect(ids()).toEqual(['tx_1', 'tx_3', 'tx_5']);
    dbs.closeAll();
  });

  it('opens every handle with fsync off and the lock kept, a file one with a rollback journal', () => {
    const dbs = new CallDatabases(join(dir, 'pragmas'), template);
    for (const handle of [dbs.create('file'), dbs.createInMemory('mem')]) {
      expect(handle.sqlite.pragma('synchronous', { simple: true })).toBe(0);
      expect(handle.sqlite.pragma('locking_mode', { simple: true })).toBe('exclusive');
    }
    expect(dbs.create('file2').sqlite.pragma('journal_mode', { simple: true })).toBe('delete');
    dbs.closeAll();
  });

  it('sets aside databases left by an earlier process so their ids start fresh', () => {
    const calls = join(dir, 'leftovers');
    const before = new CallDatabases(calls, template);
    before.create('crashed').sqlite.prepare("INSERT INTO appointments (id, date, created_at) VALUES ('apt_9', '2026-10-08', 'x')").run();
    before.closeAll();
    writeFileSync(join(calls, 'half.db.tmp'), 'partial copy');
    // A live handle keeps its rollback journal until it closes: kill -9 leaves it beside the .db.
    writeFileSync(join(calls, 'crashed.db-journal'), 'journal of the killed call');
    const after = new CallDatabases(calls, template);
    expect(after.setAsideLeftovers()).toEqual(['crashed']);
    expect(existsSync(join(calls, 'crashed.db'))).toBe(false);
    expect(readdirSync(calls).filter((n) => n !== 'orphaned')).toEqual([]);
    expect(readdirSync(join(calls, 'orphaned')).length).toBe(3);
    expect(dumpDatabase(after.create('crashed').sqlite).appointments).toEqual([]);
    after.closeAll();
  });

  it('reopens only a released database of its holder', () => {
    const dbs = new CallDatabases(join(dir, 'reopen'), template);
    dbs.create('held');
    expect(() => dbs.reopen('held')).toThrow(/no released database/);
    dbs.release('held');
    expect(dbs.reopen('held').sqlite.open).toBe(true);
    expect(() => dbs.reopen('never')).toThrow(/no released database/);
    dbs.closeAll();
  });
});
