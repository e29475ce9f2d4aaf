/**
 * Duplex diagnostics (scoring.md §10.1, issue 33) on hand-made timelines: the caller's record says
 * which line was said over which agent utterance; the server's timeline says whether and when that
 * utterance stopped, and which calls carried a correction's stale value. (The CSV columns are
 * checked on real calls in test/integration/duplex-*.test.ts.)
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { loadPack, type Task } from '../../../src/packs/index.ts';
import { diagnosticsSummary, duplexChecks, type ConversationVerdict } from '../../../src/scoring/index.ts';
import type { CallerDuplexRecord, CallerFile, TimelineEvent } from '../../../src/snapshot/index.ts';
import { PACKS_DIR, toolEvent } from '../../support/scoring-fixtures.ts';

let task: Task;
beforeAll(async () => {
  const pack = await loadPack(PACKS_DIR, 'healthcare');
  const found = pack.tasks.get('C1-M1-COR');
  if (!found) throw new Error('healthcare C1-M1-COR missing');
  task = found;
});

type Side = 'agent' | 'caller';
const started = (seq: number, at: number, side: Side, id: string): TimelineEvent => ({ seq, at_ms: at, type: 'speech.started', side, utterance_id: id });
const completed = (seq: number, at: number, side: Side, id: string, interrupted: boolean): TimelineEvent => ({ seq, at_ms: at, type: 'speech.completed', side, utterance_id: id, interrupted });

/** A caller record with one line said over `u_1` (its pin and act given). */
function callerWith(pin: number, duplex: CallerDuplexRecord): CallerFile {
  return { ears: { model: 'ears' }, turns: [{ seq: 0, side: 'agent', utterance_id: 'u_1', text: '', source: null, pin: null, interrupted: false, audio_ms: 4000 }, { seq: 1, side: 'caller', utterance_id: 'c_1', text: 'line', source: 'pin', pin, interrupted: false, audio_ms: 900, duplex }] } as unknown as CallerFile;
}

const asVerdict = (duplex: ReturnType<typeof duplexChecks>): ConversationVerdict => ({ diagnostics: { turn_latencies_ms: [], barge_in_stops_ms: [], said_aloud: [], transcript_wer: null, judge: null, duplex }, cost: { cost_usd_est: null } }) as unknown as ConversationVerdict;

describe('duplex diagnostics', () => {
  it('a back-channel the agent stopped for took the floor; one it talked through did not', () => {
    const over = { act: 'back_channel' as const, over_utterance_id: 'u_1', at_agent_ms: 1500 };
    const stopped = [started(1, 0, 'agent', 'u_1'), started(2, 1500, 'caller', 'c_1'), completed(3, 1540, 'agent', 'u_1', true)];
    const talked = [started(1, 0, 'agent', 'u_1'), started(2, 1500, 'caller', 'c_1'), completed(3, 4000, 'agent', 'u_1', false)];
    const tookFloor = duplexChecks(stopped, callerWith(1, over), task, null);
    expect(tookFloor).toEqual([{ act: 'back_channel', pin: 1, caller_utterance_id: 'c_1', over_utterance_id: 'u_1', at_ms: 1500, agent_stopped: true, stop_ms: 40, stale_calls: [], stale_in_state: null }]);
    expect(duplexChecks(talked, callerWith(1, over), task, null)[0]).toMatchObject({ agent_stopped: false, stop_ms: null });
    expect(diagnosticsSummary([asVerdict(tookFloor)]).duplex).toEqual({ cut_ins: 0, yielded: 0, stop_max_ms: null, back_channels: 1, back_channels_took_floor: 1, corrections: 0, stale_used: 0 });
  });

  it('a correction: the calls from the cut-in on that carry the stale value, and the final state holding it', () => {
    const pin = task.scripted_responses.findIndex((r) => r.duplex?.act === 'correction') + 1;
    const record = callerWith(pin, { act: 'correction', over_utterance_id: 'u_1', at_agent_ms: 2200 });
    const register = (seq: number, at: number, dob: string): TimelineEvent => toolEvent({ seq, at_ms: at, name: 'register_new_patient', agent: 'scheduling', canonical_arguments: { full_name: 'Daniel Hughes', date_of_birth: dob } });
    const events = [started(1, 0, 'agent', 'u_1'), started(2, 2200, 'caller', 'c_1'), completed(3, 2300, 'agent', 'u_1', true), register(4, 1000, '1995-07-09'), register(5, 5000, '1995-07-09'), register(6, 6000, '1995-07-19')];
    const staleState = { patients: [{ full_name: 'Daniel Hughes', date_of_birth: '1995-07-09' }] };
    const [check] = duplexChecks(events, record, task, staleState);
    // The write before the correction is not counted: only what came after it was the agent's choice.
    expect(check).toMatchObject({ act: 'correction', agent_stopped: true, stop_ms: 100, stale_calls: [5], stale_in_state: true });
    const clean = duplexChecks(events.slice(0, 3), record, task, { patients: [{ full_name: 'Daniel Hughes', date_of_birth: '1995-07-19' }] });
    expect(clean[0]).toMatchObject({ stale_calls: [], stale_in_state: false });
    expect(diagnosticsSummary([asVerdict(check ? [check] : [])]).duplex).toMatchObject({ cut_ins: 1, yielded: 1, stop_max_ms: 100, corrections: 1, stale_used: 1 });
  });

  it('is empty without a caller record (another client\'s caller) or a task', () => {
    expect(duplexChecks([started(1, 0, 'agent', 'u_1')], null, task, null)).toEqual([]);
    expect(duplexChecks([started(1, 0, 'agent', 'u_1')], callerWith(1, { act: 'barge_in', over_utterance_id: 'u_1', at_agent_ms: 0 }), undefined, null)).toEqual([]);
  });
});
