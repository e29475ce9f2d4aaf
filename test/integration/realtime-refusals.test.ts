import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CallerReport } from '../../src/caller/index.ts';
import type { Summary, TimelineEvent } from '../../src/snapshot/index.ts';
import { dial, eventsOf, readSnapshot, startRealtimeRig, type RealtimeRig } from '../support/realtime-call.ts';
import { tone, type StandInConnection, type WireEntry } from '../support/realtime-server.ts';

const CALL_ID = 'rt_refusals';

/** One model call in its own response; resolves with the call id and the output the harness sent. */
async function callTool(conn: StandInConnection, name: string, args: unknown): Promise<{ callId: string; output: unknown; answeredAt: number }> {
  const sent = conn.respond([{ call: { name, args } }]);
  const callId = sent.callIds[0] ?? '';
  const output = JSON.parse(await conn.toolOutput(callId)) as unknown;
  const answeredAt = conn.log.length;
  await conn.next('response.create');
  return { callId, output, answeredAt };
}

describe('undeclared tools and edges are refused and the call goes on (issue 3 acceptance 4, wire.md §6.16, §6.22)', () => {
  let rig: RealtimeRig;
  let conn: StandInConnection;
  let report: CallerReport;
  let summary: Summary;
  let events: readonly TimelineEvent[];
  const results = new Map<string, { output: unknown; answeredAt: number }>();

  beforeAll(async () => {
    rig = await startRealtimeRig('openai/realtime');
    const caller = dial(rig, CALL_ID);
    conn = await rig.standIn.nextConnection();
    await conn.next('response.create');
    conn.respond([{ audio: tone(300, 24_000) }]);
    await conn.waitForCallerSpeech();
    results.set('reception:book_appointment', await callTool(conn, 'book_appointment', { date: '2026-10-07' }));
    results.set('reception:no_such_tool', await callTool(conn, 'no_such_tool', {}));
    results.set('reception:transfer_to_scheduler', await callTool(conn, 'transfer_to_scheduler', {}));
    results.set('scheduler:transfer_to_scheduler', await callTool(conn, 'transfer_to_scheduler', {}));
    results.set('scheduler:check_date', await callTool(conn, 'check_date', { date: '2026-10-07' }));
    await callTool(conn, 'end_call', { reason: 'caller_done' });
    conn.respond([{ audio: tone(200, 24_000) }]);
    report = await caller;
    ({ summary, events } = await readSnapshot(rig.server, CALL_ID));
  });
  afterAll(async () => {
    await rig?.close();
  });

  it('answers another desk’s tool with TOOL_NOT_AVAILABLE and an unknown one with UNKNOWN_TOOL', () => {
    expect(results.get('reception:book_appointment')?.output).toMatchObject({ ok: false, error_code: 'TOOL_NOT_AVAILABLE' });
    expect(results.get('reception:no_such_tool')?.output).toMatchObject({ ok: false, error_code: 'UNKNOWN_TOOL' });
  });

  it('answers an undeclared edge with HANDOFF_NOT_ALLOWED, then response.create but no session.update', () => {
    expect(results.get('scheduler:transfer_to_scheduler')?.output).toMatchObject({ ok: false, error_code: 'HANDOFF_NOT_ALLOWED' });
    const updates = conn.log.filter((e: WireEntry) => e.dir === 'in' && e.type === 'session.update');
    expect(updates).toHaveLength(2);
    expect(updates[1]?.seq).toBeLessThan(results.get('scheduler:transfer_to_scheduler')?.answeredAt ?? 0);
  });

  it('records each refusal on the timeline as a call that did not execute', () => {
    const tools = eventsOf(events, 'tool');
    expect(tools.filter((t) => !t.executed).map((t) => [t.agent, t.name, t.refusal])).toEqual([
      ['reception', 'book_appointment', 'TOOL_NOT_AVAILABLE'],
      ['reception', 'no_such_tool', 'UNKNOWN_TOOL'],
      ['scheduler', 'transfer_to_scheduler', 'HANDOFF_NOT_ALLOWED'],
    ]);
    expect(eventsOf(events, 'handoff')).toHaveLength(1);
  });

  it('goes on: a later tool runs and the call ends normally', () => {
    expect(results.get('scheduler:check_date')?.output).toMatchObject({ ok: true });
    expect(report.closeCode).toBe(1000);
    expect(summary.end_reason).toBe('agent_end_call');
    expect(summary.void_reason).toBeNull();
  });
});
