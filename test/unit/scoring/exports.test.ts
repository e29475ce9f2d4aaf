import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Pack } from '../../../src/packs/index.ts';
import { existsSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { renderScoreReport, renderScoreTable, scoreReportPieces } from '../../../src/report/index.ts';
import { conversationsCsv, CSV_COLUMNS, parseCsv, reportOf, scoreRun, scoresJson, scoresJsonPieces, VerdictSpill, withJudgeScores, type ConversationVerdict, type ScoreOptions } from '../../../src/scoring/index.ts';
import { syntheticSnapshot } from '../../../src/scoring/offline-snapshot.ts';
import { loadControlPack } from '../../support/scoring-fixtures.ts';
import { replayWorkspace, S_E1_ROUTE, type ReplayWorkspace } from '../../support/scoring-replay.ts';

let pack: Pack;
let ws: ReplayWorkspace;
beforeAll(async () => {
  pack = await loadControlPack();
  ws = replayWorkspace(pack);
});
afterAll(() => ws.close());

const OPTIONS: ScoreOptions = { k: 5, seed: 1729, resamples: 200, minCallMs: 20_000, allowPackDrift: false, pack: null, stamp: null, flags: {} };

function run() {
  const ok = ws.replay(S_E1_ROUTE, { callId: 'e_ok', taskId: 'S-E1' });
  const fail = ws.replay([{ kind: 'hop', to: 'scheduler' }, { kind: 'call', name: 'book_appointment', parameters: { date: '2026-10-08' } }], { callId: 'e_fail', taskId: 'S-E1' });
  const voided = ws.replay(S_E1_ROUTE, { callId: 'e_void', taskId: 'S-E1', greet: false });
  const events = ok.events.map((e) => (e.type === 'transcript' ? { ...e, text: 'line one,\n"quoted" <b>line</b> two' } : e));
  const snaps = [
    syntheticSnapshot(pack.id, 'e_ok', ok.summary, events, ok.final),
    syntheticSnapshot(pack.id, 'e_fail', fail.summary, fail.events, fail.final),
    syntheticSnapshot(pack.id, 'e_void', voided.summary, voided.events, voided.final),
  ];
  return scoreRun(snaps, new Map([[pack.id, pack]]), new Map(), OPTIONS);
}

describe('exports (scoring.md §9)', () => {
  it('the CSV header equals the specified column list; void rows have empty gate cells', () => {
    const csv = conversationsCsv(run().conversations);
    const [header, ...rows] = parseCsv(csv).filter((r) => r.length > 1);
    expect(header).toEqual([...CSV_COLUMNS]);
    // 65 columns, plus the four duplex diagnostics (issue 33).
    expect(CSV_COLUMNS).toHaveLength(69);
    const voidRow = rows.find((r) => r[header!.indexOf('conversation_id')] === 'e_void') ?? [];
    const cell = (name: string) => voidRow[header!.indexOf(name)];
    expect([cell('status'), cell('void_reason')]).toEqual(['VOID', 'no_agent_audio']);
    for (const name of ['combined_pass', 'reward', 'state_pass', 'state_diff', 'tools_pass', 'tools_score', 'handoff_pass', 'handoff_verdict']) expect(cell(name)).toBe('');
    expect(csv.includes('\r')).toBe(false);
    expect(csv.charCodeAt(0)).not.toBe(0xfeff);
  });

  it('the CSV survives a round trip with newlines in transcripts', () => {
    const report = run();
    const [header, ...rows] = parseCsv(conversationsCsv(report.conversations)).filter((r) => r.length > 1);
    const okRow = rows.find((r) => r[header!.indexOf('conversation_id')] === 'e_ok') ?? [];
    expect(okRow[header!.indexOf('transcript')]).toBe(report.conversations.find((c) => c.conversation_id === 'e_ok')?.evidence.transcript);
    expect(okRow[header!.indexOf('transcript')]).toContain('line one,\n"quoted"');
    expect(rows).toHaveLength(3);
    const failRow = rows.find((r) => r[header!.indexOf('conversation_id')] === 'e_fail') ?? [];
    expect(JSON.parse(failRow[header!.indexOf('state_diff')] ?? '[]')).toHaveLength(2);
  });

  it('the JSON output is byte-identical across two runs', () => {
    const a = scoresJson(run());
    const b = scoresJson(run());
    expect(a).toBe(b);
    expect(a).not.toMatch(/"stamp"/);
  });

  it('the HTML report is self-contained and escapes every value', () => {
    const page = renderScoreReport(run(), { snapshotRoot: '/data/snapshots' });
    expect(page.startsWith('<!doctype html>')).toBe(true);
    expect(page).not.toMatch(/<script|<link|<img|<iframe|src=|@import|url\(/i);
    expect(page).not.toContain('<b>line</b>');
    expect(page).toContain('&lt;b&gt;line&lt;/b&gt;');
    expect(page).toContain('<svg');
    for (const section of ['Leaderboard', 'Breakdowns', 'Tasks', 'Conversations', 'k-of-n histogram']) expect(page).toContain(section);
  });
});

/**
 * `mivas score` keeps one small row per conversation and spills the whole verdict to a file
 * (src/scoring/verdict-spill.ts); its outputs are written in pieces from the spill. The rows must
 * give the same report as the whole verdicts, and the pieces the same bytes as the one-string
 * writers, with a judge's scores laid on.
 */
describe('the verdict spill', () => {
  it('gives back each verdict as written, with the trial index and judge scores laid on its row since', () => {
    const whole = run();
    const spill = VerdictSpill.create();
    try {
      // Spilled with the trial index unset, as scoring leaves it; the report sets it on the rows.
      const rows = whole.conversations.map((v) => spill.add({ ...v, trial_index: null }));
      expect(JSON.stringify(rows[0])).not.toContain('"evidence"');
      const judged = new Map([['e_ok', { model: 'judge-x', prompt_version: 'v1', scores: { helpful: 4 } }]]);
      const fromRows = withJudgeScores(reportOf(rows, new Map([[pack.id, pack]]), OPTIONS), judged);
      const expected = withJudgeScores(whole, judged);
      expect(fromRows.conversations.map((r) => r.trial_index)).toEqual(expected.conversations.map((c) => c.trial_index));
      expect(fromRows.conversations.some((r) => r.trial_index !== null)).toBe(true);
      const back: ConversationVerdict[] = fromRows.conversations.map((r) => spill.verdict(r));
      expect(back).toEqual(expected.conversations);
      // Everything but the conversations is computed from the rows alone, and equals the whole report's.
      expect({ ...fromRows, conversations: [] }).toEqual({ ...expected, conversations: [] });
      expect(renderScoreTable(fromRows)).toBe(renderScoreTable(expected));

      const json = scoresJsonPieces(fromRows);
      expect(json.head + back.map((v, i) => json.element(v, i)).join('') + json.tail(back.length)).toBe(scoresJson(expected));
      const page = scoreReportPieces(fromRows, { snapshotRoot: null });
      expect(page.head + back.map(page.conversation).join('') + page.tail).toBe(renderScoreReport(expected, { snapshotRoot: null }));
    } finally {
      spill.close();
    }
  });

  it('writes an empty conversation list as scoresJson does', () => {
    const empty = { ...run(), conversations: [] };
    const json = scoresJsonPieces(empty);
    expect(json.head + json.tail(0)).toBe(scoresJson(empty));
  });

  it('removes its file and folder when closed', () => {
    const before = new Set(readdirSync(tmpdir()).filter((n) => n.startsWith('mivas-verdicts-')));
    const spill = VerdictSpill.create();
    const made = readdirSync(tmpdir()).filter((n) => n.startsWith('mivas-verdicts-') && !before.has(n));
    expect(made).toHaveLength(1);
    spill.close();
    expect(existsSync(`${tmpdir()}/${made[0]}`)).toBe(false);
  });
});
