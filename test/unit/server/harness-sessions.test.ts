import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/core/index.ts';
import { loadPack, type Pack } from '../../../src/packs/index.ts';
import { HarnessSessions } from '../../../src/server/harness-sessions.ts';
import { CallDatabases, CallIdUsedError, ensureTemplate } from '../../../src/store/index.ts';

describe('HarnessSessions (scratch conversations of the HTTP tool routes)', () => {
  let dir: string;
  let pack: Pack;
  let dbs: CallDatabases;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'mivas-harness-sessions-'));
    pack = await loadPack(join(import.meta.dirname, '../../../packs'), 'control-industry');
    dbs = new CallDatabases(join(dir, 'calls'), ensureTemplate(join(dir, 'templates'), pack));
  });
  afterAll(() => {
    dbs.closeAll();
    rmSync(dir, { recursive: true, force: true });
  });

  it('reaps a conversation only after the idle timeout, counting from its last use', () => {
    const clock = new ManualClock();
    const sessions = new HarnessSessions(pack, dbs, clock, 60_000);
    sessions.open('idle_a');
    sessions.open('idle_b');
    clock.advance(50_000);
    sessions.get('idle_b');
    clock.advance(15_000);
    // The reaper runs every quarter timeout: by now idle_a (65 s idle) has gone, idle_b (15 s) stays.
    expect([sessions.has('idle_a'), sessions.has('idle_b')]).toEqual([false, true]);
    expect(dbs.exists('idle_a')).toBe(false);
    expect(dbs.exists('idle_b')).toBe(true);
    expect([sessions.count(), sessions.reaped()]).toEqual([1, 1]);
    clock.advance(60_000);
    expect([sessions.count(), sessions.reaped()]).toEqual([0, 2]);
    sessions.close();
  });

  it('never opens a second conversation on an id that has a database', () => {
    const sessions = new HarnessSessions(pack, dbs, new ManualClock(), 60_000);
    sessions.open('twice');
    expect(() => sessions.open('twice')).toThrow(CallIdUsedError);
    sessions.close();
    expect(dbs.exists('twice')).toBe(false);
  });
});
