import { advisoryVoidReason, type CallRecord, type TimelineEvent } from '../snapshot/index.ts';
import type { LinkEvent, LinkToolCall, TranscriptLine, UpdateSimulationResultBody } from './schema.ts';

/** Ids minted by mivas rather than Bluejay: `call_…` (no header) and `loc_…` (the local caller). */
const MINTED_ID = /^(call|loc)_/;

/** Why a call is not linked (wire.md §4.2 "Skip the POST, with a warning"). */
export type LinkSkip = 'no_api_key' | 'minted_id' | 'no_trace_id';

/** The decision for one finished call. */
export type LinkDecision = { readonly link: true; readonly path: 'trace_ids' | 'tool_calls' } | { readonly link: false; readonly reason: LinkSkip };

/** Decides whether and how a call is linked; tool calls take exactly one path. */
export function decideLink(callId: string, settings: { readonly apiKey: string | undefined; readonly tracingOn: boolean }, traceId: string | null): LinkDecision {
  if (!settings.apiKey) return { link: false, reason: 'no_api_key' };
  if (MINTED_ID.test(callId)) return { link: false, reason: 'minted_id' };
  if (settings.tracingOn && !traceId) return { link: false, reason: 'no_trace_id' };
  return { link: true, path: settings.tracingOn ? 'trace_ids' : 'tool_calls' };
}

type Tool = Extract<TimelineEvent, { type: 'tool' }>;

/** Every tool call of every kind, in time order (dispatch offset, then seq): offsets never decrease. */
export function toolCallsOf(events: readonly TimelineEvent[]): LinkToolCall[] {
  const tools = events.filter((e): e is Tool => e.type === 'tool');
  const start = (e: Tool): number => Math.max(0, Math.round(e.at_ms - e.duration_ms));
  return [...tools]
    .sort((a, b) => start(a) - start(b) || a.seq - b.seq)
    .map((e) => ({ name: e.name, start_offset_ms: start(e), description: `${e.kind} tool on ${e.agent}`, parameters: e.arguments ?? {}, output: e.output }));
}

function eventsOf(record: CallRecord): LinkEvent[] {
  const out: LinkEvent[] = [];
  for (const e of record.events) {
    if (e.type === 'handoff') out.push({ title: `handoff ${e.from} → ${e.to}`, start_offset_ms: e.at_ms, tags: ['handoff'], metadata: { from: e.from, to: e.to } });
    if (e.type === 'barge_in') {
      out.push({ title: 'barge-in', start_offset_ms: e.at_ms, description: `caller interrupted after ${Math.round(e.played_ms)} ms of the agent's utterance`, tags: ['barge_in'], metadata: { utterance_id: e.utterance_id, played_ms: e.played_ms } });
    }
  }
  const voidReason = advisoryVoidReason(record);
  if (voidReason) out.push({ title: `void: ${voidReason}`, start_offset_ms: Math.round(record.durationMs), tags: ['void'], metadata: { void_reason: voidReason, end_reason: record.endReason } });
  return out.sort((a, b) => a.start_offset_ms - b.start_offset_ms);
}

/**
 * The recorded transcript: each transcript event is placed on the speech interval of its side
 * that was open (or last opened) when it arrived; transcripts carry provider item ids, not the
 * CHIRP utterance ids, so time is the join key.
 */
export function transcriptOf(events: readonly TimelineEvent[]): TranscriptLine[] {
  const intervals = new Map<string, { start: number; end: number | null }>();
  const latest: Record<'caller' | 'agent', string | null> = { caller: null, agent: null };
  const lines: { side: 'caller' | 'agent'; key: string | null; at: number; text: string }[] = [];
  for (const e of events) {
    if (e.type === 'speech.started') {
      const key = `${e.side}:${e.utterance_id}`;
      intervals.set(key, { start: e.at_ms, end: null });
      latest[e.side] = key;
    }
    if (e.type === 'speech.completed') {
      const iv = intervals.get(`${e.side}:${e.utterance_id}`);
      if (iv) iv.end = e.at_ms;
    }
    if (e.type === 'transcript' && e.text.trim()) lines.push({ side: e.side, key: latest[e.side], at: e.at_ms, text: e.text.trim() });
  }
  return lines.map((l) => {
    const iv = l.key ? intervals.get(l.key) : undefined;
    const start = Math.round(iv?.start ?? l.at);
    const end = Math.round(Math.max(start, iv?.end ?? l.at));
    return { start_offset_ms: start, end_offset_ms: end, speaker: l.side === 'agent' ? 'AGENT' : 'USER', utterance: l.text } as const;
  });
}

/** Builds the update-simulation-result body for a linked call. */
export function buildLinkBody(record: CallRecord, path: 'trace_ids' | 'tool_calls', traceId: string | null, snapshotKey: string): UpdateSimulationResultBody {
  const common = {
    simulation_result_id: String(record.callId),
    events: eventsOf(record),
    recorded_transcript: transcriptOf(record.events),
    tags: ['mivas', `pack:${record.pack.id}`, `harness:${record.harness}`, ...(record.model ? [`model:${record.model}`] : [])],
    metadata: {
      pack: record.pack.id,
      pack_version: record.pack.packVersion,
      harness: record.harness,
      model: record.model,
      task_id: record.taskId,
      run_id: record.runId,
      end_reason: record.endReason,
      void_reason: advisoryVoidReason(record),
      snapshot_key: snapshotKey,
    },
  };
  if (path === 'trace_ids' && traceId) return { ...common, trace_ids: [traceId] };
  return { ...common, tool_calls: toolCallsOf(record.events) };
}
