import { beforeAll, describe, expect, it } from 'vitest';
import { advisoryVoidReason, buildSummary } from '../../../src/snapshot/index.ts';
import type { Pack } from '../../../src/packs/index.ts';
import { detectVoids } from '../../../src/scoring/index.ts';
import {
  ABNORMAL_CLOSE_CODES,
  deriveVoidFacts,
  hasCallerSpoken,
  isAbnormalCallerClose,
  selectCallEvents,
  summarySchema,
  timelineFileSchema,
  type EndReason,
  type TimelineEventInput,
  type VoidReason,
} from '../../../src/snapshot/index.ts';
import { loadControlPack, sampleRecord } from '../../support/call-record.ts';

type Step = [TimelineEventInput, number];

const started: Step = [{ type: 'call.started', call_id: 'v', pack: 'control-industry', harness: 'scripted', task_id: 'S-E1', run_id: null }, 0];
const agentSays = (atMs: number, n = 1): Step[] => [
  [{ type: 'speech.started', side: 'agent', utterance_id: `u_00000000000${n}` }, atMs],
  [{ type: 'speech.completed', side: 'agent', utterance_id: `u_00000000000${n}`, interrupted: false }, atMs + 1500],
];
const callerSays = (atMs: number, n = 1): Step[] => [
  [{ type: 'speech.started', side: 'caller', utterance_id: `c_00000000000${n}` }, atMs],
  [{ type: 'speech.completed', side: 'caller', utterance_id: `c_00000000000${n}`, interrupted: false }, atMs + 2000],
];
const ended = (endReason: EndReason, closeCode: number | null, atMs = 90_000): Step => [{ type: 'call.ended', end_reason: endReason, close_code: closeCode }, atMs];
const endCall: Step = [{ type: 'tool', kind: 'session', name: 'end_call', agent: 'scheduler', tool_call_id: 'tc_end', arguments: {}, canonical_arguments: {}, output: { ok: true }, duration_ms: 0, executed: true, refusal: null, internal_fault: null }, 80_000];
const fault: Step = [{ type: 'tool', kind: 'industry', name: 'book_appointment', agent: 'scheduler', tool_call_id: 'tc_b', arguments: {}, canonical_arguments: {}, output: { ok: false, error_code: 'INTERNAL_ERROR' }, duration_ms: 1, executed: true, refusal: null, internal_fault: 'TypeError: boom' }, 30_000];
const fatal: Step = [{ type: 'provider.error', code: 'server_error', message: 'gone', fatal: true }, 40_000];
const conversation = (): Step[] => [started, ...agentSays(400), ...callerSays(2_500)];

/** Each case: the timeline (ending as recorded), and the void both readers must find. */
const CASES: readonly (readonly [string, Step[], VoidReason | null])[] = [
  ['normal close after end_call', [...conversation(), endCall, ended('agent_end_call', 1000)], null],
  ['caller hangs up normally (1000)', [...conversation(), ended('caller_hangup', 1000)], null],
  ['caller hangs up going away (1001)', [...conversation(), ended('caller_hangup', 1001)], null],
  ...ABNORMAL_CLOSE_CODES.map((code): [string, Step[], VoidReason] => [`caller close ${code}`, [...conversation(), ended('caller_hangup', code)], 'caller_dropped_early']),
  ['1006 on a watchdog end is not a caller drop', [...conversation(), ended('caller_silence', 1006)], null],
  ['max duration', [...conversation(), ended('max_duration', 1000)], null],
  ['caller never spoke', [started, ...agentSays(400), ended('caller_silence', 1000)], 'caller_never_spoke'],
  ['caller never spoke beats a 1006', [started, ...agentSays(400), ended('caller_hangup', 1006)], 'caller_never_spoke'],
  ['caller spoke only after the call ended', [started, ...agentSays(400), endCall, ended('agent_end_call', 1000), ...callerSays(90_500)], 'caller_never_spoke'],
  ['caller spoke only after end_call, during the farewell', [started, ...agentSays(400), endCall, ...callerSays(81_000), ...agentSays(81_500, 2), ended('agent_end_call', 1000)], null],
  ['a lone caller speech.completed is a segment', [started, ...agentSays(400), [{ type: 'speech.completed', side: 'caller', utterance_id: 'c_000000000001', interrupted: false }, 4_000], ended('caller_hangup', 1000)], null],
  ['no agent audio', [started, ...callerSays(2_500), ended('caller_hangup', 1000)], 'no_agent_audio'],
  ['no agent audio beats a 1006', [started, ended('caller_hangup', 1006)], 'no_agent_audio'],
  ['provider error', [...conversation(), fatal, ended('provider_error', 1011)], 'provider_error'],
  ['a fatal provider error under another end reason', [...conversation(), fatal, ended('caller_hangup', 1000)], 'provider_error'],
  ['provider error with no agent audio', [started, ended('provider_error', 1011)], 'provider_error'],
  ['internal error', [...conversation(), ended('internal_error', 1011)], 'infra_error'],
  ['drain deadline', [...conversation(), ended('drain_deadline', 1000)], 'infra_error'],
  ['a tool internal fault beats a provider error', [...conversation(), fault, fatal, ended('provider_error', 1011)], 'infra_error'],
];

describe('void facts: the server and the scorer agree (scoring.md §3)', () => {
  let pack: Pack;
  beforeAll(async () => {
    pack = await loadControlPack();
  });

  it.each(CASES)('%s', (_name, steps, expected) => {
    const end = steps.find(([e]) => e.type === 'call.ended')?.[0];
    if (end?.type !== 'call.ended') throw new Error('case without call.ended');
    const record = { ...sampleRecord(pack, 'void_case', steps), endReason: end.end_reason, closeCode: end.close_code };
    expect(advisoryVoidReason(record)).toBe(expected);
    // The scorer reads what the server wrote, through the snapshot schemas, with no minimum call time.
    const summary = summarySchema.parse(JSON.parse(JSON.stringify(buildSummary(record, 0))));
    const events = timelineFileSchema.parse(JSON.parse(JSON.stringify({ events: record.events }))).events;
    expect(summary.void_reason).toBe(expected);
    expect(detectVoids({ snapshotProblems: [], summary, events, platformStatus: null, minCallMs: 0 }).reason).toBe(expected);
  });
});

describe('void facts', () => {
  const stamp = (steps: Step[]) => steps.map(([e, atMs], seq) => ({ ...e, seq, at_ms: atMs }) as ReturnType<typeof selectCallEvents>[number]);

  it('orders by seq and stops at call.ended', () => {
    const events = stamp([started, ...agentSays(400), ended('agent_end_call', 1000, 3_000), ...callerSays(4_000)]);
    expect(selectCallEvents([...events].reverse()).map((e) => e.seq)).toEqual([0, 1, 2, 3]);
    expect(hasCallerSpoken(events)).toBe(false);
  });

  it('takes the end from call.ended, else from the recorded end', () => {
    const withEnd = stamp([started, ...agentSays(400), ...callerSays(2_500), ended('caller_hangup', 1006)]);
    expect(deriveVoidFacts(withEnd, { endReason: 'agent_end_call', closeCode: 1000 })).toMatchObject({ endReason: 'caller_hangup', closeCode: 1006, abnormalCallerClose: true, firstAgentAudioMs: 400, callerSpoke: true });
    const truncated = stamp([started, ...agentSays(400)]);
    expect(deriveVoidFacts(truncated, { endReason: 'caller_hangup', closeCode: 1011 })).toMatchObject({ ended: null, endReason: 'caller_hangup', closeCode: 1011, abnormalCallerClose: true, callerSpoke: false });
    const noCode = stamp([started, ended('caller_hangup', null)]);
    expect(deriveVoidFacts(noCode, { endReason: 'caller_hangup', closeCode: 1006 }).closeCode).toBe(1006);
  });

  it('calls only a caller hang-up with an abnormal code an abnormal close', () => {
    expect(isAbnormalCallerClose('caller_hangup', 1006)).toBe(true);
    expect(isAbnormalCallerClose('caller_hangup', 1000)).toBe(false);
    expect(isAbnormalCallerClose('caller_hangup', null)).toBe(false);
    expect(isAbnormalCallerClose('internal_error', 1011)).toBe(false);
    expect(isAbnormalCallerClose(null, 1006)).toBe(false);
  });
});
