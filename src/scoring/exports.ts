import { JUDGE_CRITERIA } from './judge-rubric.ts';
import { staleUsed } from './diagnostics.ts';
import type { ConversationVerdict, DuplexCheck } from './types.ts';

/** The CSV columns of scoring.md §9, in their fixed order. */
export const CSV_COLUMNS = [
  'run_id', 'conversation_id', 'task_id', 'pack', 'pack_version', 'harness', 'model', 'category', 'difficulty', 'audio_condition', 'trial_index', 'started_at', 'duration_s', 'end_reason',
  'status', 'void_reason', 'void_detail', 'combined_pass', 'reward',
  'state_pass', 'state_missing', 'state_extra', 'state_changed', 'state_diff',
  'tools_pass', 'tools_score', 'tools_missing', 'tools_missing_reasons', 'tools_forbidden', 'tools_scope_violations', 'tools_extra', 'scope_refusals', 'expected_tool_calls', 'actual_tool_calls',
  'handoff_pass', 'handoff_verdict', 'expected_path', 'actual_path', 'agent_sequence', 'transfer_refusals',
  'smoke_pass', 'smoke_failed', 'first_agent_audio_ms', 'dead_air_max_s', 'outbound_dropouts', 'clipping_events', 'latency_p50_ms', 'latency_p95_ms',
  'input_tokens', 'output_tokens', 'cost_usd_est', 'price_table_version',
  'trace_id', 'trace', 'transcript', 'snapshot_uri',
  'turn_latencies_ms', 'barge_in_stop_max_ms', 'said_aloud_checked', 'said_aloud_missed', 'transcript_wer',
  'duplex_yielded', 'duplex_stop_max_ms', 'duplex_back_channel_took_floor', 'duplex_stale_used',
  'diag_judge_model', ...JUDGE_CRITERIA.map((c) => `diag_judge_${c}` as const),
] as const;

/** One CSV column name. */
export type CsvColumn = (typeof CSV_COLUMNS)[number];

type Cell = string | number | boolean | null | undefined | readonly string[] | { readonly json: unknown };

/**
 * A text cell a spreadsheet would run as a formula (a leading =, +, -, @, tab or carriage return)
 * gets a leading `'`, so a caller's words or a tool's output opened in Excel or Sheets stay text.
 * Numbers are never text cells, so a negative number keeps its sign.
 */
export function formulaSafe(text: string): string {
  return /^[=+\-@\t\r]/.test(text) ? `'${text}` : text;
}

/** Renders one cell: booleans as true/false, numbers with at most six decimals, lists `;`-joined, JSON compact; text formula-safe. */
export function formatCell(value: Cell): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'number') return Number.isFinite(value) ? String(Number(value.toFixed(6))) : '';
  if (typeof value === 'string') return formulaSafe(value);
  if (Array.isArray(value)) return formulaSafe(value.join(';'));
  return JSON.stringify((value as { json: unknown }).json);
}

/** RFC 4180 quoting: a field with a quote, comma or line break is quoted with quotes doubled. */
export function quoteCsv(field: string): string {
  return /[",\r\n]/.test(field) ? `"${field.replaceAll('"', '""')}"` : field;
}

function counted(names: readonly string[]): string[] {
  const counts = new Map<string, number>();
  for (const n of names) counts.set(n, (counts.get(n) ?? 0) + 1);
  return [...counts.entries()].sort(([a], [b]) => (a < b ? -1 : 1)).map(([n, c]) => `${n}:${c}`);
}

function gateCells(v: ConversationVerdict): Partial<Record<CsvColumn, Cell>> {
  const { state, tools, handoff } = v;
  if (!state || !tools || !handoff) return {};
  return {
    state_pass: state.pass,
    state_missing: state.missing,
    state_extra: state.extra,
    state_changed: state.changed,
    state_diff: { json: state.diff },
    tools_pass: tools.pass,
    tools_score: tools.score,
    tools_missing: tools.missing.map((m) => `#${m.index} ${m.name}`),
    tools_missing_reasons: { json: tools.missing },
    tools_forbidden: tools.forbidden.map((f) => f.name),
    tools_scope_violations: tools.scope_violations.map((s) => `${s.name}@${s.agent}`),
    tools_extra: counted(tools.extra.map((e) => e.name)),
    scope_refusals: tools.scope_refusals.map((s) => `${s.name}@${s.agent}`),
    expected_tool_calls: { json: tools.expected_calls },
    actual_tool_calls: { json: tools.actual_calls.map((a) => ({ seq: a.seq, name: a.name, agent: a.agent, at_ms: a.at_ms, executed: a.executed, ok: a.ok, error_code: a.error_code, arguments: a.canonical_arguments })) },
    handoff_pass: handoff.pass,
    handoff_verdict: handoff.verdict,
    expected_path: handoff.expected_path,
    actual_path: handoff.actual_path,
    agent_sequence: handoff.agent_sequence,
    transfer_refusals: handoff.transfer_refusals.map((r) => `${r.name}@${r.agent}`),
  };
}

/** void_detail also carries the UNMAPPED reason (`unmapped:<reason>`) and the drift flag (`pack_drift`). */
function detailCell(v: ConversationVerdict): string[] {
  return [...(v.unmapped_reason ? [`unmapped:${v.unmapped_reason}`] : []), ...v.void_detail, ...(v.pack_drift ? ['pack_drift'] : [])];
}

/** The diagnostics columns (scoring.md §10.1): empty when a figure does not apply; judge columns empty without a judge. */
function diagnosticCells(v: ConversationVerdict): Partial<Record<CsvColumn, Cell>> {
  const d = v.diagnostics;
  const stops = d.barge_in_stops_ms;
  const judged = d.judge ? Object.fromEntries(JUDGE_CRITERIA.map((c) => [`diag_judge_${c}`, d.judge?.scores[c] ?? null])) : {};
  return {
    turn_latencies_ms: d.turn_latencies_ms.map(String),
    barge_in_stop_max_ms: stops.length ? Math.max(...stops) : null,
    said_aloud_checked: d.said_aloud.length ? d.said_aloud.length : null,
    said_aloud_missed: d.said_aloud.length ? d.said_aloud.filter((c) => !c.said).map((c) => `${c.tool}.${c.key}=${c.value}`) : null,
    transcript_wer: d.transcript_wer,
    ...duplexCells(d.duplex ?? []),
    diag_judge_model: d.judge?.model ?? null,
    ...judged,
  };
}

/** The duplex columns (docs/caller.md): yielded of the cut-ins, the slowest stop, back-channels that took the floor, corrections whose stale value was used; empty when no such act was said. */
function duplexCells(checks: readonly DuplexCheck[]): Partial<Record<CsvColumn, Cell>> {
  const cutIns = checks.filter((c) => c.act !== 'back_channel');
  const stops = cutIns.flatMap((c) => c.stop_ms ?? []);
  const backChannels = checks.filter((c) => c.act === 'back_channel');
  const corrections = checks.filter((c) => c.act === 'correction');
  return {
    duplex_yielded: cutIns.length ? `${cutIns.filter((c) => c.agent_stopped === true).length}/${cutIns.length}` : null,
    duplex_stop_max_ms: stops.length ? Math.max(...stops) : null,
    duplex_back_channel_took_floor: backChannels.length ? backChannels.filter((c) => c.agent_stopped === true).length : null,
    duplex_stale_used: corrections.length ? corrections.filter(staleUsed).length : null,
  };
}

/** The cells of one conversation's row; a VOID (or unscored) row leaves gate and reward cells empty. */
export function csvCells(v: ConversationVerdict): Record<CsvColumn, Cell> {
  const cells: Partial<Record<CsvColumn, Cell>> = {
    run_id: v.run_id, conversation_id: v.conversation_id, task_id: v.task_id, pack: v.pack, pack_version: v.pack_version, harness: v.harness, model: v.model,
    category: v.category, difficulty: v.difficulty, audio_condition: v.audio_condition, trial_index: v.trial_index, started_at: v.started_at, duration_s: v.duration_s, end_reason: v.end_reason,
    status: v.status, void_reason: v.void_reason, void_detail: detailCell(v), combined_pass: v.combined_pass, reward: v.reward,
    ...gateCells(v),
    smoke_pass: v.quality.smoke_pass, smoke_failed: v.quality.smoke_failed, first_agent_audio_ms: v.quality.first_agent_audio_ms, dead_air_max_s: v.quality.dead_air_max_s,
    outbound_dropouts: v.quality.outbound_dropouts, clipping_events: v.quality.clipping_events, latency_p50_ms: v.quality.latency_p50_ms, latency_p95_ms: v.quality.latency_p95_ms,
    input_tokens: v.cost.input_tokens, output_tokens: v.cost.output_tokens, cost_usd_est: v.cost.cost_usd_est ?? v.cost.cost_note, price_table_version: v.cost.price_table_version,
    trace_id: v.evidence.trace_id, trace: v.evidence.trace, transcript: v.evidence.transcript, snapshot_uri: v.evidence.snapshot_uri,
    ...diagnosticCells(v),
  };
  return Object.fromEntries(CSV_COLUMNS.map((c) => [c, cells[c]])) as Record<CsvColumn, Cell>;
}

/** The CSV's first line: the column names, LF-terminated. */
export const CSV_HEADER_LINE = `${CSV_COLUMNS.join(',')}\n`;

/** One conversation's CSV line, LF-terminated. */
export function csvLine(v: ConversationVerdict): string {
  const cells = csvCells(v);
  return `${CSV_COLUMNS.map((c) => quoteCsv(formatCell(cells[c]))).join(',')}\n`;
}

/** conversations.csv: header plus one row per conversation, UTF-8 without BOM, LF endings. */
export function conversationsCsv(verdicts: readonly ConversationVerdict[]): string {
  return CSV_HEADER_LINE + verdicts.map(csvLine).join('');
}

/** The full JSON export: stable key order from construction, two-space indent, trailing newline. */
export function scoresJson(report: unknown): string {
  return `${JSON.stringify(report, null, 2)}\n`;
}

/** Where the conversations go in a report's JSON text written with an empty list (only a top-level key sits at two spaces). */
const CONVERSATIONS_SLOT = '\n  "conversations": [],\n';

/**
 * `scoresJson` of a report written in pieces, with the conversations supplied one at a time:
 * `head`, then `element(v, i)` for each conversation in order, then `tail(count)`. The pieces
 * join to the same bytes as `scoresJson` of the report holding those conversations.
 */
export function scoresJsonPieces(report: { readonly conversations: readonly unknown[] }): { readonly head: string; element(v: ConversationVerdict, index: number): string; tail(count: number): string } {
  const text = scoresJson({ ...report, conversations: [] });
  const at = text.indexOf(CONVERSATIONS_SLOT);
  if (at < 0) throw new Error('scores.json: the report has no top-level conversations list');
  const open = CONVERSATIONS_SLOT.length - ']'.length - ',\n'.length;
  return {
    head: text.slice(0, at + open),
    element: (v, index) => `${index ? ',' : ''}\n    ${JSON.stringify(v, null, 2).replaceAll('\n', '\n    ')}`,
    tail: (count) => `${count ? '\n  ' : ''}${text.slice(at + open)}`,
  };
}
