/**
 * Results UI render time (issue 8, acceptance 4): every page of a synthetic 72-task × 5-trial
 * run (360 conversations, each with a three-minute timeline, tool and state diffs and waveform
 * peaks) rendered in-process. Measures and prints; the target is under 1 s per page.
 *
 *   npx tsx bench/report-bench.ts
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { Blueprint } from '../src/packs/index.ts';
import { buildReportModel, mediaMap, parseBlueprint, parseScoreFile, renderConversationPage, renderLeaderboardPage, renderTaskGridPage, renderTaskPage, type ConversationEvidence, type WaveformPeaks } from '../src/report/index.ts';
import { BOOTSTRAP_PRNG, breakdowns, diagnosticsOf, diagnosticsSummary, groupMetrics, headlineTasks, leaderboard, SCORER_VERSION, statusCounts, taskStats, type ConversationVerdict, type ScoreReport } from '../src/scoring/index.ts';
import type { TimelineEvent } from '../src/snapshot/index.ts';
import { ROOT } from './bench-context.ts';
import { summarize, type LatencySummary } from './stats.ts';

/** The section's figures: one latency summary per page kind, in ms. */
export interface ReportBenchResult {
  readonly tasks: number;
  readonly trials: number;
  readonly conversations: number;
  /** Parsing scores.json (about what `/ui` does when the file changes) plus building the page model. */
  readonly modelBuildMs: number;
  readonly leaderboard: LatencySummary;
  readonly taskGrid: LatencySummary;
  readonly taskPage: LatencySummary;
  readonly conversationPage: LatencySummary;
  readonly largestPageBytes: number;
}

type WithoutSeq<T> = T extends unknown ? Omit<T, 'seq'> : never;

const PACK = 'healthcare';
const TRIALS = 5;
const SPAN_MS = 180_000;

function taskIds(): string[] {
  const ids = readdirSync(join(ROOT, 'packs', PACK, 'tasks')).filter((f) => f.endsWith('.json')).map((f) => f.replace(/\.json$/, '')).sort();
  const out = ids.slice(0, 72);
  for (let i = out.length; i < 72; i++) out.push(`SYN-${i}`);
  return out;
}

/** A deterministic pseudo-random sequence (mulberry32), so every run renders the same pages. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function syntheticEvents(callId: string, rand: () => number): TimelineEvent[] {
  const events: TimelineEvent[] = [{ seq: 0, at_ms: 0, type: 'call.started', call_id: callId, pack: PACK, harness: 'openai/realtime', task_id: null, run_id: 'run_bench' }];
  const push = (e: WithoutSeq<TimelineEvent>): void => void events.push({ ...e, seq: events.length } as TimelineEvent);
  for (let turn = 0, at = 400; turn < 24; turn++, at += 7000) {
    const side = turn % 2 ? 'caller' : 'agent';
    push({ at_ms: at, type: 'speech.started', side, utterance_id: `u${turn}` });
    push({ at_ms: at, type: 'transcript', side, text: `Turn ${turn}: I would like to move my follow-up to next Tuesday afternoon if possible.`, utterance_id: null });
    push({ at_ms: at + 4000, type: 'speech.completed', side, utterance_id: `u${turn}`, interrupted: false });
    if (turn % 4 === 3) push({ at_ms: at + 4500, type: 'handoff', from: 'reception', to: 'scheduling' });
    if (turn % 3 === 2) {
      push({ at_ms: at + 4600, type: 'tool', kind: 'industry', name: 'find_openings', agent: 'scheduling', tool_call_id: null, arguments: { location_id: 'loc_cobble_hill' }, canonical_arguments: { location_id: 'loc_cobble_hill', visit_type: rand() > 0.5 ? 'follow_up' : 'new' }, output: { ok: true, data: { openings: [{ id: 'opn_1', starts_at: '2026-10-13T14:00' }] } }, duration_ms: 4, executed: true, refusal: null, internal_fault: null });
    }
  }
  push({ at_ms: SPAN_MS, type: 'call.ended', end_reason: 'agent_end_call', close_code: 1000 });
  return events;
}

function verdict(taskId: string, trial: number, rand: () => number): ConversationVerdict {
  const id = `loc_${taskId.toLowerCase().replace(/[^a-z0-9]/g, '')}${trial}`.slice(0, 64);
  const pass = rand() > 0.35;
  const diff = pass ? [] : [{ table: 'appointments', kind: 'changed' as const, key: { patient_id: 'pat_dana', starts_at: '2026-10-13T14:00' }, field: 'location_id', expected: 'loc_cobble_hill', actual: 'loc_park_ave', expected_normalised: 'loc_cobble_hill', actual_normalised: 'loc_park_ave', rule: 'exact, text', allowed: false, unparsed: false }];
  const calls = Array.from({ length: 8 }, (_, i) => ({ seq: 10 + i * 6, at_ms: 5000 + i * 20000, name: i % 2 ? 'find_openings' : 'verify_identity', kind: 'industry' as const, agent: 'scheduling', executed: true, refusal: null, ok: true, error_code: null, canonical_arguments: { location_id: 'loc_cobble_hill' } }));
  const [category, difficulty] = [taskId.split('-')[0] ?? 'C1', ['easy', 'medium', 'hard'][Math.floor(rand() * 3)] ?? 'easy'];
  return {
    conversation_id: id, run_id: 'run_bench', task_id: taskId, pack: PACK, pack_version: 'benchbenchbench0', harness: 'openai/realtime', model: 'gpt-realtime-2.1', category, difficulty, audio_condition: taskId.endsWith('BG') ? 'background' : 'perfect',
    trial_index: trial, started_at: '2026-10-06T10:00:00Z', duration_s: SPAN_MS / 1000, end_reason: 'agent_end_call', status: pass ? 'PASS' : 'FAIL', unmapped_reason: null, void_reason: null, void_detail: [], pack_drift: false,
    combined_pass: pass, reward: pass ? 1 : 0, fail_reasons: pass ? [] : ['state: appointments changed location_id (exact, text)', 'tools: #3 book_visit opening_id expected "opn_cobble_hill_1013_1400", got "opn_park_ave_1013_1400" (text)'],
    state: { pass, missing: 0, extra: 0, changed: diff.length, tables: [{ table: 'appointments', mode: 'exact', pass }, { table: 'charges', mode: 'exact', pass: true }], diff },
    tools: { pass, score: pass ? 1 : 0.8, matched: [{ expected: 1, seq: 10 }], missing: pass ? [] : [{ index: 2, name: 'book_visit', never_called: false, candidates: [{ seq: 16, agent: 'scheduling', used_by: null, failures: [{ argument: 'opening_id', reason: 'mismatch', expected: 'opn_cobble_hill_1013_1400', actual: 'opn_park_ave_1013_1400', rule: 'text' }] }] }], forbidden: [], scope_violations: [], extra: [], scope_refusals: [], expected_calls: [{ name: 'verify_identity', parameters: { full_name: 'Dana Whitcombe' } }, { name: 'book_visit', parameters: { opening_id: 'opn_cobble_hill_1013_1400' } }], actual_calls: calls },
    handoff: { pass: true, verdict: 'optimal', expected_path: ['transfer_to_scheduling'], actual_path: ['transfer_to_scheduling'], agent_sequence: ['reception', 'scheduling'], transfer_refusals: [], first_unmatched: null },
    quality: { smoke_pass: true, smoke_failed: [], first_agent_audio_ms: 900 + rand() * 400, dead_air_max_s: 3, outbound_dropouts: 0, clipping_events: 0, latency_p50_ms: 600 + rand() * 300, latency_p95_ms: 1400 },
    cost: { input_tokens: 12000, output_tokens: 3000, cost_usd_est: 0.12 + rand() * 0.05, cost_note: null, price_table_version: '2026-10' },
    evidence: { trace_id: null, trace: 'reception>scheduling; scheduling:find_openings ok', transcript: 'agent: hello', snapshot_uri: `${PACK}/${id}`, audio_uri: `${PACK}/${id}.wav` },
    diagnostics: diagnosticsOf(null, null, undefined, undefined),
  };
}

/** A synthetic score report of 72 tasks × 5 trials, aggregated by the real scorer functions. */
export function syntheticScoreReport(resamples = 1000): ScoreReport {
  const rand = prng(1729);
  const conversations = taskIds().flatMap((t) => Array.from({ length: TRIALS }, (_, i) => verdict(t, i + 1, rand)));
  const settings = { seed: 1729, resamples, k: TRIALS };
  const tasks = taskStats(conversations, TRIALS);
  return {
    meta: { scorer_version: SCORER_VERSION, packs: [{ id: PACK, pack_version: 'benchbenchbench0', template_hash: 'x', task_set_hash: 'x', policy_hash: 'x' }], k: TRIALS, bootstrap: { prng: BOOTSTRAP_PRNG, seed: 1729, resamples }, headline_excluded_packs: ['control-industry'], flags: {} },
    conversations,
    tasks,
    aggregates: { headline: groupMetrics(headlineTasks(tasks), settings), status: statusCounts(conversations), headline_status: statusCounts(conversations), diagnostics: diagnosticsSummary(conversations) },
    breakdowns: breakdowns(tasks, settings),
    leaderboard: leaderboard(tasks, conversations, settings),
  };
}

function peaks(rand: () => number): WaveformPeaks {
  const bucket = (): number => Math.round(rand() * 100) / 100;
  return { durationMs: SPAN_MS, rateHz: 16_000, left: Array.from({ length: 1200 }, bucket), right: Array.from({ length: 1200 }, bucket) };
}

function timed(samples: number[], render: () => string | null, sizes: number[]): void {
  const start = performance.now();
  const text = render();
  samples.push(performance.now() - start);
  sizes.push(text?.length ?? 0);
}

/** Renders every page of the synthetic run `iterations` times (the pages once per iteration) and summarises the times. */
export async function benchReportPages(options: { iterations?: number } = {}): Promise<ReportBenchResult> {
  const iterations = options.iterations ?? 3;
  const report = syntheticScoreReport();
  const blueprint: Blueprint | null = parseBlueprint(readFileSync(join(ROOT, 'packs', PACK, 'blueprint.json')));
  const text = JSON.stringify(report);
  const buildStart = performance.now();
  const parsed = parseScoreFile(text);
  if (!parsed.ok) throw new Error(parsed.problem);
  const model = buildReportModel(parsed.report);
  const modelBuildMs = performance.now() - buildStart;
  const rand = prng(7);
  const evidence = new Map<string, ConversationEvidence>(report.conversations.map((v) => [v.conversation_id, { events: syntheticEvents(v.conversation_id, rand), summary: null, peaks: peaks(rand), audioHref: `audio/${v.conversation_id}.wav`, blueprint, media: mediaMap(null, null, null), caller: null }]));
  const times = { leaderboard: [] as number[], grid: [] as number[], task: [] as number[], conv: [] as number[] };
  const sizes: number[] = [];
  for (let i = 0; i < iterations; i++) {
    timed(times.leaderboard, () => renderLeaderboardPage(model), sizes);
    timed(times.grid, () => renderTaskGridPage(model), sizes);
    for (const slug of model.tasksBySlug.keys()) timed(times.task, () => renderTaskPage(model, slug), sizes);
    for (const v of report.conversations) timed(times.conv, () => renderConversationPage(v, evidence.get(v.conversation_id) as ConversationEvidence), sizes);
  }
  return {
    tasks: model.taskRows.length,
    trials: TRIALS,
    conversations: report.conversations.length,
    modelBuildMs: Math.round(modelBuildMs * 1000) / 1000,
    leaderboard: summarize(times.leaderboard),
    taskGrid: summarize(times.grid),
    taskPage: summarize(times.task),
    conversationPage: summarize(times.conv),
    largestPageBytes: Math.max(...sizes),
  };
}

if (process.argv[1] && import.meta.url === new URL(`file://${process.argv[1]}`).href) {
  const result = await benchReportPages();
  console.log(`Results UI render (${result.tasks} tasks × ${result.trials} trials = ${result.conversations} conversations; ms; target < 1000 per page)`);
  console.log(JSON.stringify(result, null, 2));
}
