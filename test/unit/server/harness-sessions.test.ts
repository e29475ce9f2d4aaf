import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/core/index.ts';
import { loadPack, type Pack } from '../../../src/packs/index.ts';
import { HarnessSessions, SCRATCH_TIMELINE_LIMITS } from '../../../src/server/harness-sessions.ts';
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

  it('keeps a bounded timeline however many tools an id calls, and every answer is the same past the bound', () => {
    const sessions = new HarnessSessions(pack, dbs, new ManualClock(), 60_000);
    const conversation = sessions.open('long_lived');
    expect(conversation.dispatch({ toolCallId: null, name: 'transfer_to_scheduler', rawArguments: {}, origin: 'http' }).output).toEqual({ assistant: 'scheduler' });
    const calls = SCRATCH_TIMELINE_LIMITS.maxEvents + 200;
    const outputs = new Set<string>();
    for (let i = 0; i < calls; i++) outputs.add(JSON.stringify(conversation.dispatch({ toolCallId: null, name: 'check_date', rawArguments: { date: '2026-10-07' }, origin: 'http' }).output));
    // One answer throughout, and a real one (the date check ran, it was not refused).
    expect(outputs.size).toBe(1);
    expect(JSON.parse([...outputs][0] ?? '{}')).toMatchObject({ ok: true });
    // The handoff's events and the tool calls that fit; the rest counted, not kept.
    const events = conversation.timeline.events();
    expect(events.length).toBeLessThanOrEqual(SCRATCH_TIMELINE_LIMITS.maxEvents);
    expect(events.reduce((n, e) => n + JSON.stringify(e).length + 1, 2)).toBeLessThanOrEqual(SCRATCH_TIMELINE_LIMITS.maxBytes);
    expect(events.length + (conversation.timeline.truncation()?.events_dropped ?? 0)).toBe(calls + 2);
    expect(conversation.timeline.truncation()?.limits.length).toBe(1);
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
