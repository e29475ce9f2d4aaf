import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSpeechSynth } from '../../src/audio/index.ts';
import { dialOpeningLine, openingLineOf, type CallerReport } from '../../src/caller/index.ts';
import { finalStateSchema, summarySchema, timelineFileSchema, type FinalState, type Summary, type TimelineEvent } from '../../src/snapshot/index.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

interface Snapshot {
  readonly summary: Summary;
  readonly final: FinalState;
  readonly events: readonly TimelineEvent[];
}

/** Four calls at once: three tasks, one of them twice, so a shared database would show. */
const CALLS = [
  { callId: 'conc_a_S-E1', taskId: 'S-E1', rows: [{ id: 'appt_20261007', date: '2026-10-07' }] },
  { callId: 'conc_b_S-E2', taskId: 'S-E2', rows: [{ id: 'appt_20261012', date: '2026-10-12' }] },
  { callId: 'conc_c_S-E3', taskId: 'S-E3', rows: [] },
  { callId: 'conc_d_S-E1', taskId: 'S-E1', rows: [{ id: 'appt_20261007', date: '2026-10-07' }] },
] as const;

describe('concurrent calls (acceptance 4)', () => {
  let server: TestServer;
  let reports: CallerReport[];
  const snapshots = new Map<string, Snapshot>();

  beforeAll(async () => {
    // Paced in real time, so each call lasts seconds and the four overlap however loaded the machine is.
    server = await startTestServer({});
    const synth = await createSpeechSynth(16_000);
    reports = await Promise.all(
      CALLS.map((c) =>
        dialOpeningLine({
          url: server.wsUrl,
          callId: c.callId,
          taskId: c.taskId,
          runId: 'run_concurrency1',
          auth: null,
          openingLine: openingLineOf(server.ctx.pack.tasks.get(c.taskId)?.intent ?? ''),
          synth,
          paced: true,
          timeoutMs: 30_000,
        }),
      ),
    );
    await server.ctx.outbox.flush();
    const dir = join(server.dataDir, 'snapshots', 'control-industry');
    for (const { callId } of CALLS) {
      const read = (part: string): unknown => JSON.parse(readFileSync(join(dir, `${callId}.${part}`), 'utf8'));
      snapshots.set(callId, {
        summary: summarySchema.parse(read('summary.json')),
        final: finalStateSchema.parse(read('final.json')),
        events: timelineFileSchema.parse(read('timeline.json')).events,
      });
    }
  }, 40_000);

  afterAll(async () => {
    await server?.close();
  });

  it('every call ends normally', () => {
    expect(reports.map((r) => [r.callId, r.closeCode, r.timedOut])).toEqual(CALLS.map((c) => [c.callId, 1000, false]));
  });

  it('the calls overlapped in time', () => {
    const spans = CALLS.map(({ callId }) => {
      const s = snapshots.get(callId)?.summary;
      return { start: Date.parse(s?.started_at ?? ''), end: Date.parse(s?.ended_at ?? '') };
    });
    const latestStart = Math.max(...spans.map((s) => s.start));
    const earliestEnd = Math.min(...spans.map((s) => s.end));
    expect(latestStart).toBeLessThan(earliestEnd);
  });

  it.each(CALLS)('$callId holds only its own rows', ({ callId, rows }) => {
    const snap = snapshots.get(callId);
    expect(snap?.final.appointments?.map(({ id, date }) => ({ id, date }))).toEqual(rows);
    expect(snap?.summary.counts.rows_written).toBe(rows.length);
  });

  it.each(CALLS)('$callId has a timeline of its own call only', ({ callId, taskId }) => {
    const snap = snapshots.get(callId);
    const started = snap?.events.find((e) => e.type === 'call.started');
    expect(started).toMatchObject({ call_id: callId, task_id: taskId });
    expect(snap?.summary.call_id).toBe(callId);
    const task = server.ctx.pack.tasks.get(taskId);
    const industry = snap?.events.flatMap((e) => (e.type === 'tool' && e.kind === 'industry' ? [[e.name, e.canonical_arguments]] : [])) ?? [];
    expect(industry).toEqual(task?.exp_tool_calls.map((c) => [c.name, c.parameters]));
    // Each booking was the first on its own database, never an idempotent repeat of another call's.
    for (const e of snap?.events ?? []) {
      if (e.type === 'tool' && e.name === 'book_appointment') expect(e.output).toMatchObject({ ok: true, data: { idempotent: false } });
    }
  });

  it('leaves no live call, no per-call database and no spooled set behind', async () => {
    const health = (await (await fetch(`${server.httpUrl}/health`)).json()) as { live_calls: number; snapshot_backlog: number };
    expect(health).toMatchObject({ live_calls: 0, snapshot_backlog: 0 });
    const callsDir = join(server.dataDir, 'calls');
    expect(existsSync(callsDir) ? readdirSync(callsDir) : []).toEqual([]);
  });
});
