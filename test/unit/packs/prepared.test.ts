import Database from 'better-sqlite3';
import { eq } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cachedReferenceTables, loadPack, param, preparedQuery, referenceTable, rowById, rowInsert } from '../../../src/packs/index.ts';
import { CallDatabases, ensureTemplate } from '../../../src/store/index.ts';
import { appointments } from '../../../packs/control-industry/schema.ts';

const PACKS_DIR = join(import.meta.dirname, '../../../packs');

describe('prepared queries', () => {
  let dir: string;
  let dbs: CallDatabases;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'mivas-prepared-'));
    dbs = new CallDatabases(join(dir, 'calls'), ensureTemplate(join(dir, 'templates'), await loadPack(PACKS_DIR, 'control-industry')));
  });
  afterAll(() => {
    dbs.closeAll();
    rmSync(dir, { recursive: true, force: true });
  });

  it('builds a query once and runs it on each call database with that database\'s own statement', () => {
    let builds = 0;
    const onDate = preparedQuery((db) => {
      builds++;
      return db.select().from(appointments).where(eq(appointments.date, param('date'))).prepare();
    });
    const insert = rowInsert(appointments);
    const a = dbs.create('prep_a').db;
    const b = dbs.create('prep_b').db;
    insert(a).run({ id: 'apt_x', date: '2026-10-09', created_at: '2026-10-05T09:00' });
    expect(onDate(a).get({ date: '2026-10-09' })?.id).toBe('apt_x');
    expect(onDate(a).get({ date: '2026-10-09' })?.id).toBe('apt_x');
    expect(onDate(b).get({ date: '2026-10-09' })).toBeUndefined();
    // Built for a only: b's copy has its own statement, on b's connection, with the same result mapping.
    expect(builds).toBe(1);
    expect(onDate(b)).not.toBe(onDate(a));
    insert(b).run({ id: 'apt_y', date: '2026-10-09', created_at: '2026-10-05T09:00' });
    expect(onDate(b).get({ date: '2026-10-09' })).toEqual({ id: 'apt_y', date: '2026-10-09', created_at: '2026-10-05T09:00' });
    expect(onDate(b).all({ date: '2026-10-09' })).toEqual(onDate(b).all({ date: '2026-10-09' }));
    expect(onDate(a).all({ date: '2026-10-09' }).map((r) => r.id)).toEqual(['apt_x']);
    // The first database closed, the copies still run: they hold nothing of its connection.
    dbs.release('prep_a');
    expect(onDate(b).get({ date: '2026-10-09' })?.id).toBe('apt_y');
    expect(onDate(dbs.create('prep_d').db).get({ date: '2026-10-09' })).toBeUndefined();
    expect(builds).toBe(1);
    expect(rowById(appointments)(b).get({ id: 'apt_x' })).toBeUndefined();
    expect(rowById(appointments)(b).get({ id: 'apt_y' })?.date).toBe('2026-10-09');
  });

  it('a reopened database gets freshly prepared statements', () => {
    const byId = rowById(appointments);
    const first = dbs.create('prep_c').db;
    rowInsert(appointments)(first).run({ id: 'apt_y', date: '2026-10-10', created_at: '2026-10-05T09:00' });
    expect(byId(first).get({ id: 'apt_y' })?.date).toBe('2026-10-10');
    dbs.release('prep_c');
    // The old handle is closed; a statement from it would throw "The database connection is not open".
    expect(byId(dbs.reopen('prep_c').db).get({ id: 'apt_y' })?.date).toBe('2026-10-10');
  });

  it('a reference table is read once per template, from the template: every copy gets the same frozen rows', () => {
    const booked = referenceTable(appointments);
    expect(cachedReferenceTables.has('appointments')).toBe(true);
    const a = dbs.create('ref_a').db;
    const insert = rowInsert(appointments);
    // A row a copy writes is never seen (which is why no tool may write such a table): the rows are the template's.
    insert(a).run({ id: 'apt_2', date: '2026-10-12', created_at: '2026-10-05T09:00' });
    const first = booked(a);
    expect(first.all).toEqual([]);
    expect(first.byId('apt_2')).toBeUndefined();
    expect(booked(dbs.create('ref_b').db)).toBe(first);
    expect(Object.isFrozen(first.all)).toBe(true);
  });

  it('a database not declared a copy of a template has its reference table read from itself, once, in seed order', () => {
    const booked = referenceTable(appointments);
    const sqlite = new Database(':memory:');
    sqlite.exec('CREATE TABLE appointments (id TEXT PRIMARY KEY, date TEXT NOT NULL, created_at TEXT NOT NULL)');
    const own = drizzle(sqlite);
    const insert = rowInsert(appointments);
    insert(own).run({ id: 'apt_2', date: '2026-10-12', created_at: '2026-10-05T09:00' });
    insert(own).run({ id: 'apt_1', date: '2026-10-11', created_at: '2026-10-05T09:00' });
    const rows = booked(own);
    expect(rows.all.map((r) => r.id)).toEqual(['apt_2', 'apt_1']);
    expect(rows.byId('apt_1')?.date).toBe('2026-10-11');
    expect(Object.isFrozen(rows.byId('apt_1'))).toBe(true);
    insert(own).run({ id: 'apt_3', date: '2026-10-13', created_at: '2026-10-05T09:00' });
    expect(booked(own).byId('apt_3')).toBeUndefined();
    sqlite.close();
  });
});
