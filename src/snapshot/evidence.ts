import { canonicalJson, rowsJson, sameRow } from '../core/index.ts';
import type { SnapshotBody } from './outbox.ts';
import { summarySchema, type EndReason, type FinalState, type SnapshotPart, type Smoke, type Summary, type TimelineEvent, type TimelineFile, type Truncation, type Usage, type VoidReason } from './schema.ts';
import { findVoids } from './void-table.ts';

/**
 * The evidence builder (architecture.md §20): every context (a live call, a
 * text episode) freezes its conversation through these functions, over plain data only, so the
 * summary and the advisory void reason are written by one piece of code.
 */

/** The pack a conversation ran on, as the summary names it. */
export interface EvidencePack {
  readonly id: string;
  readonly packVersion: string;
  readonly templateHash: string;
}

/** The outbound pacer's own count of its send intervals (the chirp pacer's figures, as plain data). */
export interface PacingCounts {
  readonly intervals: number;
  readonly offOver5Ms: number;
  readonly maxOffMs: number;
}

/** A database's rows by table (the store's dump, as plain data). */
type Rows = FinalState;

/** Everything known about a conversation when it ends (a call at hangup, a text episode when it is done). */
export interface CallRecord {
  readonly pack: EvidencePack;
  readonly callId: string;
  readonly runId: string | null;
  readonly taskId: string | null;
  readonly harness: string;
  readonly model: string | null;
  readonly startedAtEpochMs: number;
  readonly endedAtEpochMs: number;
  readonly durationMs: number;
  readonly endReason: EndReason;
  readonly closeCode: number | null;
  /** Why an internal_error or caller_flood ended the conversation (recorded as `end_detail`). */
  readonly endDetail?: string | null;
  readonly events: readonly TimelineEvent[];
  /** timeline.json's text when the timeline made it (`Timeline.json()`, for `events` as they are); absent, it is written from `events`. */
  readonly timelineJson?: string;
  /** What the timeline's bounds left out; null or absent when it is whole. */
  readonly truncation?: Truncation | null;
  readonly smoke: Smoke;
  readonly usage: Usage;
  readonly costUsd: number | null;
  /** Why an estimated call has no cost (`unpriced: <why>`, from the price table); null when priced or never estimated. */
  readonly costNote?: string | null;
  readonly priceTableVersion: string | null;
  readonly traceId: string | null;
  /** The pacer's own count of its send intervals (null in fast mode, which does not pace). */
  readonly pacing: PacingCounts | null;
}

/**
 * The advisory void reason the server records; the scorer re-derives it (scoring.md §3). Both read
 * the one void table (`void-table.ts`) over the same facts; the server knows no `--min-call-s`, so
 * its early drop is the abnormal close alone (the scorer's with `minCallMs` 0), and no caller
 * deviation (the scorer's last row, which needs the task).
 */
export function advisoryVoidReason(record: Pick<CallRecord, 'endReason' | 'closeCode' | 'events' | 'truncation'>): VoidReason | null {
  const summary = { truncated: record.truncation != null, end_reason: record.endReason, close_code: record.closeCode };
  return findVoids({ snapshotProblems: [], summary, events: record.events, platformStatus: null, minCallMs: 0 }).reason;
}

/** A template table's rows, their canonical forms in the same order and by row, and the set of those forms. */
interface TemplateRows {
  readonly rows: readonly Record<string, unknown>[];
  readonly canonical: readonly string[];
  readonly byRow: ReadonlyMap<Record<string, unknown>, string>;
  readonly set: ReadonlySet<string>;
}

/** Every call compares against the same template, so its canonical rows are computed once per dump. */
const templateRowSets = new WeakMap<Rows, Map<string, TemplateRows>>();

function templateRows(template: Rows, table: string): TemplateRows {
  let tables = templateRowSets.get(template);
  if (!tables) {
    tables = new Map();
    templateRowSets.set(template, tables);
  }
  let rows = tables.get(table);
  if (!rows) {
    const canonical = (template[table] ?? []).map(canonicalJson);
    const all = template[table] ?? [];
    rows = { rows: all, canonical, byRow: new Map(all.map((row, i) => [row, canonical[i] as string])), set: new Set(canonical) };
    tables.set(table, rows);
  }
  return rows;
}

/**
 * Rows that differ from the template: inserted, changed or deleted (a count for the per-call
 * summary). A final row that is one of the template's (the store's dump reuses them), or identical
 * to the template's row at the same place (both are in primary-key order), takes that row's
 * canonical form instead of computing it again.
 */
export function countRowsWritten(template: Rows, final: Rows): number {
  let changed = 0;
  for (const table of new Set([...Object.keys(template), ...Object.keys(final)])) {
    // The same array: a table the conversation left as it was (the store's dump shares it).
    if (final[table] === template[table]) continue;
    const before = templateRows(template, table);
    const after = new Set(
      (final[table] ?? []).map((row, i) => {
        const known = before.byRow.get(row);
        if (known !== undefined) return known;
        const twin = before.rows[i];
        return twin && sameRow(twin, row) ? (before.canonical[i] as string) : canonicalJson(row);
      }),
    );
    for (const row of after) if (!before.set.has(row)) changed++;
    for (const row of before.set) if (!after.has(row)) changed++;
  }
  return changed;
}

/** Builds the summary through its schema (so the server can only write what the scorer reads). */
export function buildSummary(record: CallRecord, rowsWritten: number): Summary {
  return summarySchema.parse({
    call_id: record.callId,
    run_id: record.runId,
    task_id: record.taskId,
    pack: record.pack.id,
    pack_version: record.pack.packVersion,
    template_hash: record.pack.templateHash,
    harness: record.harness,
    model: record.model,
    started_at: new Date(record.startedAtEpochMs).toISOString(),
    ended_at: new Date(record.endedAtEpochMs).toISOString(),
    duration_ms: Math.round(record.durationMs),
    end_reason: record.endReason,
    close_code: record.closeCode,
    void_reason: advisoryVoidReason(record),
    ...(record.endDetail ? { end_detail: record.endDetail.slice(0, 2000) } : {}),
    smoke: record.smoke,
    usage: record.usage,
    cost_usd_est: record.costUsd,
    ...costNoteOf(record),
    price_table_version: record.priceTableVersion,
    truncated: record.truncation != null,
    ...(record.truncation ? { truncation: record.truncation } : {}),
    trace_id: record.traceId,
    ...(record.pacing ? { pacing: { intervals: record.pacing.intervals, off_over_5ms: record.pacing.offOver5Ms, max_off_ms: Math.round(record.pacing.maxOffMs * 10) / 10 } } : {}),
    ...turnLatencyOf(record.events),
    counts: {
      tool_calls: record.events.filter((e) => e.type === 'tool').length,
      handoffs: record.events.filter((e) => e.type === 'handoff').length,
      rows_written: rowsWritten,
    },
  });
}

/** The unpriced note, only when the call was estimated and has no cost (keyless calls and text episodes carry none). */
function costNoteOf(record: Pick<CallRecord, 'costUsd' | 'priceTableVersion' | 'costNote'>): Pick<Summary, 'cost_note'> {
  const note = record.costUsd === null && record.priceTableVersion !== null ? (record.costNote ?? null) : null;
  return note === null ? {} : { cost_note: note };
}

/** The per-turn latency split of the harnesses that report one (absent otherwise). */
function turnLatencyOf(events: readonly TimelineEvent[]): Pick<Summary, 'turn_latency'> {
  const turns = events.flatMap((e) => (e.type === 'turn.latency' ? [{ endpoint_ms: e.endpoint_ms, stt_ms: e.stt_ms, llm_first_token_ms: e.llm_first_token_ms, tts_first_byte_ms: e.tts_first_byte_ms, total_ms: e.total_ms }] : []));
  return turns.length ? { turn_latency: turns } : {};
}

/**
 * `JSON.stringify(dump)`, the same text, with each frozen table's rows written once and reused:
 * most of a conversation's tables are its template's own arrays (the store shares them).
 */
export function dumpJson(dump: Rows): string {
  const tables = Object.keys(dump);
  if (!tables.every((table) => Array.isArray(dump[table]))) return JSON.stringify(dump);
  return `{${tables.map((table) => `${JSON.stringify(table)}:${rowsJson(dump[table] as Record<string, unknown>[])}`).join(',')}}`;
}

/** The five snapshot parts, ready for the outbox (the WAV as bytes or as the recorder's file). */
export function snapshotParts<W extends SnapshotBody>(record: CallRecord, dump: Rows, templateDump: Rows, db: Buffer, wav: W): { parts: Map<SnapshotPart, Buffer | W>; summary: Summary } {
  const summary = buildSummary(record, countRowsWritten(templateDump, dump));
  // Each event passed the schema as it was added (src/snapshot/timeline.ts): no second pass over thousands here.
  const timeline: TimelineFile = { events: [...record.events] };
  const parts = new Map<SnapshotPart, Buffer | W>([
    ['timeline.json', Buffer.from(record.timelineJson ?? JSON.stringify(timeline))],
    ['final.json', Buffer.from(dumpJson(dump))],
    ['db', db],
    ['wav', wav],
    ['summary.json', Buffer.from(`${JSON.stringify(summary, null, 2)}\n`)],
  ]);
  return { parts, summary };
}
