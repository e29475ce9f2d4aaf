import { resolve } from 'node:path';
import type { CallRecord } from '../../src/snapshot/index.ts';
import { loadPack, type Pack } from '../../src/packs/index.ts';
import { emptyUsage, Timeline, type Smoke, type TimelineEventInput } from '../../src/snapshot/index.ts';

const ROOT = resolve(import.meta.dirname, '../..');

/** The control-industry pack (loaded once per test file by the caller). */
export function loadControlPack(): Promise<Pack> {
  return loadPack(resolve(ROOT, 'packs'), 'control-industry', resolve(ROOT, 'migrations'));
}

const SMOKE: Smoke = {
  both_sides_spoke: true,
  tools_recorded: true,
  trace_id_present: null,
  dead_air_max_s: 1,
  dead_air_ok: true,
  outbound_dropouts: 0,
  clipping_events: 0,
  clean_audio: true,
  first_agent_audio_ms: 400,
  first_audio_ok: true,
  pass: true,
};

/**
 * A finished S-E1-like call: greeting, caller line, handoff, check/book (the book call dispatched
 * before the check finished, so dispatch order differs from completion order), a barge-in, end_call.
 */
export function sampleEvents(): [TimelineEventInput, number][] {
  const tool = (name: string, kind: 'industry' | 'handoff' | 'session', agent: string, args: Record<string, unknown>, output: Record<string, unknown>, durationMs: number, refusal: 'HANDOFF_NOT_ALLOWED' | null = null) =>
    ({ type: 'tool', kind, name, agent, tool_call_id: `tc_${name}`, arguments: args, canonical_arguments: args, output, duration_ms: durationMs, executed: refusal === null, refusal, internal_fault: null }) as const;
  return [
    [{ type: 'call.started', call_id: 'x', pack: 'control-industry', harness: 'scripted', task_id: 'S-E1', run_id: null }, 0],
    [{ type: 'speech.started', side: 'agent', utterance_id: 'u_000000000001' }, 400],
    [{ type: 'transcript', side: 'agent', text: 'Maple Lane Repairs, how can I help?', utterance_id: 'item_1' }, 900],
    [{ type: 'speech.completed', side: 'agent', utterance_id: 'u_000000000001', interrupted: false }, 2000],
    [{ type: 'response.done', response_id: 'resp_1', status: 'completed', usage: { input_tokens: 10, output_tokens: 20 } }, 2000],
    [{ type: 'speech.started', side: 'caller', utterance_id: 'c_000000000001' }, 2500],
    [{ type: 'speech.completed', side: 'caller', utterance_id: 'c_000000000001', interrupted: false }, 4500],
    [{ type: 'transcript', side: 'caller', text: "Hi, I'd like to book a repair visit.", utterance_id: 'item_2' }, 4600],
    [tool('transfer_to_billing', 'handoff', 'reception', { reason: 'x' }, { ok: false, error_code: 'HANDOFF_NOT_ALLOWED' }, 0, 'HANDOFF_NOT_ALLOWED'), 4700],
    [tool('transfer_to_scheduler', 'handoff', 'reception', { reason: 'repair visit' }, { assistant: 'scheduler' }, 0), 4800],
    [{ type: 'handoff', from: 'reception', to: 'scheduler' }, 4800],
    [tool('check_date', 'industry', 'scheduler', { date: '2026-10-07' }, { ok: true, data: { open: true } }, 300), 5400],
    [tool('book_appointment', 'industry', 'scheduler', { date: '2026-10-07' }, { ok: true, data: { date: '2026-10-07' } }, 600), 5800],
    [{ type: 'speech.started', side: 'agent', utterance_id: 'u_000000000002' }, 6000],
    [{ type: 'speech.started', side: 'caller', utterance_id: 'c_000000000002' }, 6500],
    [{ type: 'barge_in', utterance_id: 'u_000000000002', played_ms: 500 }, 6500],
    [{ type: 'speech.completed', side: 'agent', utterance_id: 'u_000000000002', interrupted: true }, 6520],
    [{ type: 'speech.completed', side: 'caller', utterance_id: 'c_000000000002', interrupted: false }, 7500],
    [tool('end_call', 'session', 'scheduler', {}, { ok: true }, 0), 8000],
    [{ type: 'nudge', attempt: 1 }, 8100],
    [{ type: 'call.ended', end_reason: 'agent_end_call', close_code: 1000 }, 9000],
  ];
}

/** Builds a CallRecord for the given id from timeline inputs stamped at the given media offsets. */
export function sampleRecord(pack: Pack, callId: string, events: [TimelineEventInput, number][] = sampleEvents()): CallRecord {
  const timeline = new Timeline(() => 0);
  for (const [event, atMs] of events) timeline.add(event, atMs);
  return {
    pack,
    callId,
    runId: null,
    taskId: 'S-E1',
    harness: 'scripted',
    model: 'scripted',
    startedAtEpochMs: Date.UTC(2026, 9, 5, 13, 0, 0),
    endedAtEpochMs: Date.UTC(2026, 9, 5, 13, 0, 9),
    durationMs: 9000,
    endReason: 'agent_end_call',
    closeCode: 1000,
    events: timeline.events(),
    smoke: SMOKE,
    usage: { ...emptyUsage(), input_tokens: 10, output_tokens: 20, total_tokens: 30, input_audio_tokens: 10, output_audio_tokens: 20 },
    costUsd: 0.002,
    priceTableVersion: null,
    traceId: null,
    pacing: { intervals: 380, offOver5Ms: 1, maxOffMs: 6.5 },
  };
}
