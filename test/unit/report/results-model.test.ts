import { describe, expect, it } from 'vitest';
import {
  buildComparison,
  buildReportModel,
  compactBytesPerSecond,
  compactWav,
  decidingGate,
  labelStep,
  layUtterances,
  linearToMulaw,
  mediaMap,
  mulawToLinear,
  parseTaskInfo,
  renderComparePage,
  renderFlipsPage,
  renderLeaderboardPage,
  renderScoreTable,
  transcriptLines,
} from '../../../src/report/index.ts';
import { breakdowns, diagnosticsSummary, groupMetrics, taskStats, type ConversationVerdict, type ScoreReport } from '../../../src/scoring/index.ts';
import type { TimelineEvent } from '../../../src/snapshot/index.ts';
import { CLINIC_BLUEPRINT } from '../../support/scoring-fixtures.ts';
import { trials } from '../../support/scoring-verdicts.ts';

const settings = { seed: 1729, resamples: 200, k: 5 };

function report(verdicts: ConversationVerdict[]): ScoreReport {
  const tasks = taskStats(verdicts, 5);
  const status = { pass: 0, fail: 0, void: 0, unmapped: 0, pending: 0, voids_by_type: { snapshot_missing: 0, infra_error: 0, provider_error: 0, no_agent_audio: 0, caller_never_spoke: 0, caller_dropped_early: 0, caller_deviation: 0 } };
  return {
    meta: { scorer_version: 'x', packs: [{ id: 'healthcare', pack_version: 'v1', template_hash: 't', task_set_hash: 'suite1', policy_hash: 'p' }], k: 5, bootstrap: { prng: 'mulberry32', seed: 1729, resamples: 200 }, headline_excluded_packs: ['control-industry'], flags: {} },
    conversations: verdicts,
    tasks,
    aggregates: { headline: groupMetrics(tasks, settings), status, headline_status: status, diagnostics: diagnosticsSummary(verdicts) },
    breakdowns: breakdowns(tasks, settings),
    leaderboard: [],
  };
}

/** One run: a run id on every trial of the given patterns. */
function run(runId: string, harness: string, patterns: Record<string, string>): ConversationVerdict[] {
  return Object.entries(patterns).flatMap(([task, p]) => trials(task, p, { harness }).map((v) => ({ ...v, conversation_id: `${runId}_${v.conversation_id}`, run_id: runId, started_at: '2026-10-06T10:00:00Z' })));
}

describe('runs and entries', () => {
  const good = run('run_a', 'openai', { T1: 'PP', T2: 'PP', T3: 'PF' });
  const bad = run('run_b', 'qwen', { T1: 'FF', T2: 'PP', T3: 'FF' });

  it('every run gets its own entry and figures; nothing is pooled across harnesses', () => {
    const model = buildReportModel({ reports: [report([...good, ...bad])] });
    expect(model.runs.map((r) => r.run_id)).toEqual(['run_a', 'run_b']);
    expect(model.entries.map((e) => [e.run.run_id, e.harness, e.metrics.pass_at_1])).toEqual([
      ['run_a', 'openai', 5 / 6],
      ['run_b', 'qwen', 2 / 6],
    ]);
    const page = renderLeaderboardPage(model);
    expect(page).toContain('openai gpt-realtime · healthcare · 2026-10-06 10:00');
    expect(page).not.toContain('pass@1 0.583');
    // The terminal table of the same mixed scoring gives one headline per harness/model.
    expect(renderScoreTable(report([...good, ...bad]))).toMatch(/headline per harness\/model \(2; not pooled\)/);
  });

  it('ranks only within a suite and task set, at the k the trials allow, and states the rule', () => {
    const other = run('run_c', 'openai', { T1: 'P' });
    const model = buildReportModel({ reports: [report([...good, ...bad, ...other])] });
    const groups = model.groups.map((g) => [g.tasks, g.k, g.rows.map((r) => [r.entry.run.run_id, r.rank])]).sort((x, y) => Number(y[0]) - Number(x[0]));
    expect(groups).toEqual([
      [3, 2, [['run_a', 1], ['run_b', 2]]],
      [1, 1, [['run_c', 1]]],
    ]);
    expect(renderLeaderboardPage(model)).toContain('ranked by pass^2 (k = 2, the largest k every task here has scored trials for)');
  });

  it('labels from run.json replace the default', () => {
    const derived = buildReportModel({ reports: [report(good)] }).runs[0];
    const model = buildReportModel({ reports: [report(good)], runMeta: new Map([['run_a', { ...derived!, label: 'baseline', labelled: true }]]) });
    expect(model.entries[0]?.label).toBe('baseline');
  });
});

describe('the comparison', () => {
  const a = run('run_a', 'scripted', { T1: 'P', T2: 'P', T3: 'P', T4: 'F' });
  const b = run('run_b', 'noop', { T1: 'F', T2: 'F', T3: 'P', T4: 'P' }).map((v) => (v.status === 'FAIL' ? { ...v, tools: { pass: false } as ConversationVerdict['tools'], fail_reasons: ['tools: #1 book never called'] } : v));

  it('pairs the runs task by task and lists each difference with the deciding gate', () => {
    const model = buildReportModel({ reports: [report(a), report(b)] });
    const [suite] = buildComparison(model);
    const pair = suite?.pairs[0];
    expect(pair?.a.entry.run.run_id).toBe('run_a');
    expect(pair?.stats.table).toEqual({ tasks: 4, both: 1, a_only: 2, b_only: 1, neither: 0 });
    expect(pair?.differing.map((d) => [d.taskId, d.winner, d.decidingGates])).toEqual([
      ['T1', 'a', ['tools']],
      ['T2', 'a', ['tools']],
      ['T4', 'b', []],
    ]);
    const page = renderComparePage(model);
    expect(page).toContain('exact McNemar p = <span class="p">1.000</span>');
    expect(page).toMatch(/href="conv-run_b_noop_T1_0\.html"/);
    expect(page).toContain('href="task-healthcare.T1.html"');
  });

  it('the deciding gate is the gate the losing side failed most', () => {
    const fail = (g: 'state' | 'tools'): ConversationVerdict => ({ ...trials('T', 'F')[0]!, [g]: { pass: false }, fail_reasons: [`${g}: why`] }) as ConversationVerdict;
    expect(decidingGate([fail('tools'), fail('tools'), fail('state')])).toEqual({ gates: ['tools'], reason: 'tools: why' });
  });
});

describe('verdict flips', () => {
  it('lists conversations whose status or reward changed between two scorings, with the gates that changed', () => {
    const before = run('run_a', 'openai', { T1: 'PP', T2: 'F' });
    const after = before.map((v, i) => (i === 0 ? { ...v, status: 'FAIL' as const, reward: 0, state: { pass: false } as ConversationVerdict['state'] } : v));
    const model = buildReportModel({ reports: [report(after)], before: report(before.map((v, i) => (i === 0 ? { ...v, state: { pass: true } as ConversationVerdict['state'] } : v))) });
    expect(model.flips?.rows.map((f) => f.after.conversation_id)).toEqual([before[0]?.conversation_id]);
    const page = renderFlipsPage(model) as string;
    expect(page).toContain('1 pass lost');
    expect(page).toContain('state pass → fail');
  });
});

describe('compact audio', () => {
  function wav(samples: (i: number) => [number, number], frames: number, rate = 16_000): Buffer {
    const data = Buffer.alloc(frames * 4);
    for (let i = 0; i < frames; i++) {
      const [l, r] = samples(i);
      data.writeInt16LE(l, i * 4);
      data.writeInt16LE(r, i * 4 + 2);
    }
    const head = Buffer.alloc(44);
    head.write('RIFF', 0);
    head.writeUInt32LE(36 + data.length, 4);
    head.write('WAVEfmt ', 8);
    head.writeUInt32LE(16, 16);
    head.writeUInt16LE(1, 20);
    head.writeUInt16LE(2, 22);
    head.writeUInt32LE(rate, 24);
    head.writeUInt32LE(rate * 4, 28);
    head.writeUInt16LE(4, 32);
    head.writeUInt16LE(16, 34);
    head.write('data', 36);
    head.writeUInt32LE(data.length, 40);
    return Buffer.concat([head, data]);
  }

  it('μ-law keeps a sample within its quantisation step', () => {
    for (const s of [0, 100, -100, 1000, -5000, 12345, 32767, -32768]) {
      const back = mulawToLinear(linearToMulaw(s));
      expect(Math.abs(back - Math.max(-32635, Math.min(32635, s)))).toBeLessThanOrEqual(Math.max(8, Math.abs(s) / 16));
    }
  });

  it('a stereo 16 kHz call becomes 8 kHz μ-law: a quarter of the bytes, a 400 Hz tone kept, channels apart', () => {
    const frames = 16_000 * 2;
    const original = wav((i) => [Math.round(8000 * Math.sin((2 * Math.PI * 400 * i) / 16_000)), 0], frames);
    const compact = compactWav(original) as Buffer;
    expect(compact.toString('ascii', 0, 4)).toBe('RIFF');
    expect(compact.readUInt16LE(20)).toBe(7);
    expect(compact.readUInt32LE(24)).toBe(8000);
    const dataAt = compact.indexOf('data') + 8;
    expect(compact.length - dataAt).toBe(2 * compactBytesPerSecond(2) / 2 * 2);
    expect(compact.length / original.length).toBeLessThan(0.26);
    let peakLeft = 0;
    let peakRight = 0;
    for (let i = dataAt + 200; i < compact.length; i += 2) {
      peakLeft = Math.max(peakLeft, Math.abs(mulawToLinear(compact[i] as number)));
      peakRight = Math.max(peakRight, Math.abs(mulawToLinear(compact[i + 1] as number)));
    }
    expect(peakLeft).toBeGreaterThan(7000);
    expect(peakRight).toBeLessThan(16);
  });
});

describe('fast-run placement', () => {
  const events: TimelineEvent[] = [
    { seq: 0, at_ms: 10, type: 'speech.started', side: 'agent', utterance_id: 'a1' },
    { seq: 1, at_ms: 12, type: 'transcript', side: 'agent', text: 'one two three four', utterance_id: null },
    { seq: 2, at_ms: 20, type: 'speech.completed', side: 'agent', utterance_id: 'a1', interrupted: false },
    { seq: 3, at_ms: 30, type: 'speech.started', side: 'agent', utterance_id: 'a2' },
    { seq: 4, at_ms: 31, type: 'transcript', side: 'agent', text: 'five six', utterance_id: null },
    { seq: 5, at_ms: 40, type: 'speech.completed', side: 'agent', utterance_id: 'a2', interrupted: false },
    { seq: 6, at_ms: 45, type: 'handoff', from: 'a', to: 'b' },
    { seq: 7, at_ms: 50, type: 'call.ended', end_reason: 'agent_end_call', close_code: 1000 },
  ];
  // Six words of 400 ms with 60 ms pauses, back to back: the first utterance ends after word four.
  const words: [number, number][] = Array.from({ length: 6 }, (_, i) => [i * 460, i * 460 + 400]);

  it('lays utterances along the channel by transcript length, snapped to the pause between words', () => {
    const laid = layUtterances([{ startMs: 10, endMs: 20, weight: 18 }, { startMs: 30, endMs: 40, weight: 8 }], words);
    expect(laid[0]?.[1]).toBeCloseTo(1810, 0);
    expect(laid[1]?.[1]).toBe(2700);
  });

  it('places an event after the agent utterance it follows, and is the identity on a real-time call', () => {
    const map = mediaMap(events, 2700, { left: [], right: words });
    expect(map.fast).toBe(true);
    expect(map.place(45, 'agent')).toBe(2700);
    expect(map.place(25, 'agent')).toBeCloseTo(1810, 0);
    const realtime = mediaMap(events, 60, { left: [], right: words });
    expect(realtime.fast).toBe(false);
    expect(realtime.place(45)).toBe(45);
  });
});

describe('task facts and transcripts', () => {
  const task = JSON.stringify({
    task_id: 'C1-E1',
    task_name: 'C1-E1: Book a new patient',
    intent: 'You are Ann. Open with exactly: "Hi, I need a visit." Close with exactly: "Thanks, bye."',
    customer_name: 'Ann Lee',
    traits: [{ trait_name: 'dob', value: '1990-01-02' }],
    exp_handoff_path: ['transfer_to_identity', 'transfer_to_scheduling'],
    exp_tool_calls: [{ name: 'book_visit', parameters: { date: '2026-10-07' } }],
    scripted_responses: [{ match_type: 'context', match_phrase: 'date of birth', response_type: 'phrase', response_value: 'January second, 1990' }],
    exp_db_state: { visits: [] },
    forbidden_tools: ['cancel_visit'],
    behaviors: { creativity: 0 },
    metadata: { category: 'C1', category_slug: 'x', difficulty: 'easy', audio_condition: 'perfect' },
    a_field_from_the_future: true,
  });

  it('says what a task measures from its own expectations and reads its caller script', () => {
    const info = parseTaskInfo('healthcare', task, CLINIC_BLUEPRINT);
    expect(info?.measures).toBe("Whether the agent routes reception → identity → scheduling (transfer_to_identity, transfer_to_scheduling), calls book_visit with the caller's facts and leaves visits exactly as expected, never calling cancel_visit.");
    expect([info?.title, info?.opening, info?.closing, info?.pins[0]?.say]).toEqual(['Book a new patient', 'Hi, I need a visit.', 'Thanks, bye.', 'January second, 1990']);
  });

  it('shows both sides: caller words from the caller record by utterance id, or the scripted opening line', () => {
    const ev: TimelineEvent[] = [
      { seq: 0, at_ms: 0, type: 'transcript', side: 'agent', text: 'Hello', utterance_id: null },
      { seq: 1, at_ms: 100, type: 'speech.started', side: 'caller', utterance_id: 'c_1' },
      { seq: 2, at_ms: 900, type: 'speech.started', side: 'caller', utterance_id: 'c_2' },
    ];
    const record = { kind: 'llm', seed: 7, model: 'm', turns: [{ utteranceId: 'c_2', text: 'second', source: 'pin' }, { utteranceId: 'c_1', text: 'first', source: 'opening' }] };
    expect(transcriptLines(ev, record, null).map((l) => [l.side, l.text, l.source])).toEqual([
      ['agent', 'Hello', 'timeline'],
      ['caller', 'first', 'caller record'],
      ['caller', 'second', 'caller record'],
    ]);
    expect(transcriptLines(ev, null, 'Hi there').map((l) => l.text)).toEqual(['Hello', 'Hi there', '(caller speech; no words recorded)']);
  });

  it('thins axis labels so none overlap', () => {
    expect(labelStep(5, 348)).toBe(1);
    expect(labelStep(30, 348)).toBe(3);
  });
});
