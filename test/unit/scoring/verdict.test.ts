import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Pack } from '../../../src/packs/index.ts';
import { scoreConversation, scoreRun, type ConversationVerdict, type MappingEntry } from '../../../src/scoring/index.ts';
import { syntheticSnapshot } from '../../../src/scoring/offline-snapshot.ts';
import type { LoadedSnapshot } from '../../../src/scoring/sources.ts';
import { loadControlPack } from '../../support/scoring-fixtures.ts';
import { replayWorkspace, S_E1_ROUTE, type ReplayedCall, type ReplayWorkspace } from '../../support/scoring-replay.ts';

let pack: Pack;
let ws: ReplayWorkspace;
beforeAll(async () => {
  pack = await loadControlPack();
  ws = replayWorkspace(pack);
});
afterAll(() => ws.close());

function snap(call: ReplayedCall, id = call.summary.call_id, parts: { summary?: boolean; events?: boolean; final?: boolean } = {}): LoadedSnapshot {
  return syntheticSnapshot(pack.id, id, parts.summary === false ? null : call.summary, parts.events === false ? null : call.events, parts.final === false ? null : call.final);
}

function score(snapshot: LoadedSnapshot | null, entry?: MappingEntry, opts: { drift?: boolean; id?: string } = {}): ConversationVerdict {
  return scoreConversation(
    { conversationId: opts.id ?? snapshot?.callId ?? 'x', snapshot, entry, packHint: null },
    { packs: new Map([[pack.id, pack]]), minCallMs: 20_000, allowPackDrift: opts.drift ?? false },
  );
}

const entry = (conversation_id: string, task_id: string | null, platform_status: string | null = null): MappingEntry => ({ conversation_id, task_id, pack: 'control-industry', platform_status });

describe('verdict: inputs and statuses (scoring.md §2, §3, §7)', () => {
  it('the reference route passes with reward 1', () => {
    const v = score(snap(ws.replay(S_E1_ROUTE, { callId: 'ok1', taskId: 'S-E1' })));
    expect([v.status, v.reward, v.combined_pass, v.handoff?.verdict]).toEqual(['PASS', 1, true, 'optimal']);
  });

  it('missing timeline → VOID snapshot_missing, never PASS', () => {
    const v = score(snap(ws.replay(S_E1_ROUTE, { callId: 'nt', taskId: 'S-E1' }), 'nt', { events: false }));
    expect([v.status, v.void_reason, v.reward, v.combined_pass]).toEqual(['VOID', 'snapshot_missing', null, null]);
  });

  it('scored table absent from the dump → VOID snapshot_missing, not an empty table', () => {
    const call = ws.replay(S_E1_ROUTE, { callId: 'nta', taskId: 'S-E1' });
    const { appointments: _dropped, ...rest } = call.final;
    const v = score(syntheticSnapshot(pack.id, 'nta', call.summary, call.events, rest));
    expect([v.status, v.void_reason, v.void_detail]).toEqual(['VOID', 'snapshot_missing', ['table_absent:appointments']]);
  });

  it('task id from the summary (X-Mivas-Task-Id); mapping file only when the summary lacks one', () => {
    const withId = ws.replay(S_E1_ROUTE, { callId: 'm1', taskId: 'S-E1' });
    expect(score(snap(withId), entry('m1', 'S-E1')).task_id).toBe('S-E1');
    const without = ws.replay(S_E1_ROUTE, { callId: 'm2', taskId: null });
    expect(score(snap(without)).unmapped_reason).toBe('no_task');
    const mapped = score(snap(without), entry('m2', 'S-E1'));
    expect([mapped.task_id, mapped.status]).toEqual(['S-E1', 'PASS']);
  });

  it('summary and mapping disagree → UNMAPPED mapping_conflict', () => {
    const v = score(snap(ws.replay(S_E1_ROUTE, { callId: 'mc', taskId: 'S-E1' })), entry('mc', 'S-E2'));
    expect([v.status, v.unmapped_reason]).toEqual(['UNMAPPED', 'mapping_conflict']);
  });

  it('an unknown task id → UNMAPPED unknown_task', () => {
    expect(score(snap(ws.replay(S_E1_ROUTE, { callId: 'ut', taskId: 'S-E9' }))).unmapped_reason).toBe('unknown_task');
  });

  it('an API-listed result with no snapshot → VOID, counted', () => {
    const v = score(null, entry('res_1', 'S-E1', 'COMPLETED'), { id: 'res_1' });
    expect([v.status, v.void_reason, v.task_id]).toEqual(['VOID', 'snapshot_missing', 'S-E1']);
  });

  it('listed results with no snapshot are counted as voids in the run', () => {
    const mapping = new Map([['res_9', entry('res_9', 'S-E1', 'COMPLETED')], ['res_8', entry('res_8', 'S-E1', 'NO_ANSWER')]]);
    const report = scoreRun([snap(ws.replay(S_E1_ROUTE, { callId: 'listed_ok', taskId: 'S-E1' }))], new Map([[pack.id, pack]]), mapping, { k: 5, seed: 1729, resamples: 10, minCallMs: 20_000, allowPackDrift: false, pack: null, stamp: null, flags: {} });
    expect(report.aggregates.status).toMatchObject({ pass: 1, void: 2, voids_by_type: { snapshot_missing: 1, infra_error: 1 } });
    expect(report.tasks[0]).toMatchObject({ task_id: 'S-E1', n: 1, c: 1, voids: 2 });
  });

  it('a NO_ANSWER result → VOID infra_error with detail caller_platform:NO_ANSWER', () => {
    const v = score(null, entry('res_2', 'S-E1', 'NO_ANSWER'), { id: 'res_2' });
    expect([v.status, v.void_reason, v.void_detail]).toEqual(['VOID', 'infra_error', ['caller_platform:NO_ANSWER']]);
  });

  it('a result still running is PENDING', () => {
    expect(score(null, entry('res_3', 'S-E1', 'RUNNING'), { id: 'res_3' }).status).toBe('PENDING');
  });

  it('pack version mismatch → UNMAPPED, or scored and flagged under --allow-pack-drift', () => {
    const call = ws.replay(S_E1_ROUTE, { callId: 'pv', taskId: 'S-E1' }, { pack_version: 'deadbeefdeadbeef' });
    expect(score(snap(call)).unmapped_reason).toBe('pack_version_mismatch');
    const drift = score(snap(call), undefined, { drift: true });
    expect([drift.status, drift.pack_drift]).toEqual(['PASS', true]);
  });

  it('zero tools when tools are expected → FAIL, not void', () => {
    const v = score(snap(ws.replay([{ kind: 'hop', to: 'scheduler' }], { callId: 'z', taskId: 'S-E1' })));
    expect([v.status, v.void_reason, v.reward]).toEqual(['FAIL', null, 0]);
    expect(v.fail_reasons).toContain('tools: #1 book_appointment never called');
  });

  it('any failing gate gives reward 0; a VOID gives a null reward', () => {
    const wrong = score(snap(ws.replay([{ kind: 'hop', to: 'scheduler' }, { kind: 'call', name: 'book_appointment', parameters: { date: '2026-10-08' } }], { callId: 'w', taskId: 'S-E1' })));
    expect([wrong.status, wrong.reward, wrong.state?.pass, wrong.tools?.pass, wrong.handoff?.pass]).toEqual(['FAIL', 0, false, false, true]);
    const voided = score(snap(ws.replay(S_E1_ROUTE, { callId: 'v', taskId: 'S-E1', greet: false })));
    expect([voided.status, voided.reward]).toEqual(['VOID', null]);
  });
});
