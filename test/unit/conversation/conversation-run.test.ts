import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConversationRun } from '../../../src/conversation/index.ts';
import { ManualClock } from '../../../src/core/index.ts';
import { episodePack, type EpisodePack } from '../../support/episode-rig.ts';

/** The run's rules on their own (architecture.md §20); test/integration/conversation-endings.test.ts plays them in every context. */
describe('ConversationRun', () => {
  let rig: EpisodePack;
  let n = 0;

  beforeAll(async () => {
    rig = await episodePack('healthcare');
  }, 60_000);
  afterAll(() => rig?.close());

  const open = (clock = new ManualClock()): ConversationRun => {
    const run = new ConversationRun({ pack: rig.pack, id: `run_unit_${++n}`, databases: rig.databases, clock, harness: 'unit', taskId: null, runId: null, inMemory: true });
    run.start();
    return run;
  };
  const call = (name: string, args: Record<string, unknown> = {}) => ({ toolCallId: null, name, rawArguments: args });

  it('says what follows each dispatch: go on, a handoff with the new agent\'s setup, the farewell, then an ending already under way', () => {
    const run = open();
    expect(run.dispatch(call('list_locations')).next).toEqual({ kind: 'continue' });
    const hop = run.dispatch(call('transfer_to_scheduling')).next;
    expect(hop).toMatchObject({ kind: 'handoff', to: 'scheduling', setup: { name: 'scheduling' } });
    expect(run.dispatch(call('transfer_to_human', { reason: 'caller_request' })).next).toEqual({ kind: 'farewell', reason: 'human_transfer' });
    expect(run.dispatch(call('end_call', { reason: 'caller_done' })).next).toEqual({ kind: 'ending', reason: 'human_transfer' });
    expect(run.pendingEnding()).toBe('human_transfer');
    run.close();
  });

  it('keeps the first ending against a later caller hang-up or watchdog, and fixes it once decided', () => {
    const run = open();
    run.dispatch(call('end_call', { reason: 'caller_done' }));
    expect(run.end('caller_hangup')).toBe('agent_end_call');
    expect(run.end('max_duration')).toBe('agent_end_call');
    const quiet = open();
    expect(quiet.pendingEnding()).toBeNull();
    expect(quiet.end('caller_hangup')).toBe('caller_hangup');
    // Once the caller's hang-up stands, a session tool still recorded changes nothing.
    expect(quiet.dispatch(call('end_call', { reason: 'caller_done' })).next).toEqual({ kind: 'ending', reason: 'caller_hangup' });
    run.close();
    quiet.close();
  });

  it('lets a fault override any ending: the evidence cannot be trusted', () => {
    for (const fault of ['internal_error', 'provider_error', 'drain_deadline', 'caller_flood'] as const) {
      const run = open();
      run.dispatch(call('transfer_to_human', { reason: 'caller_request' }));
      expect(run.end('caller_hangup')).toBe('human_transfer');
      expect(run.end(fault)).toBe(fault);
      run.close();
    }
  });

  it('records call.started and call.ended on the context\'s clock, with the reason that stands', () => {
    const clock = new ManualClock();
    clock.advance(5_000);
    const run = open(clock);
    clock.advance(1_200);
    run.dispatch(call('transfer_to_human', { reason: 'caller_request' }));
    run.end('caller_hangup');
    run.close();
    expect(run.recordEnd(1000)).toBe('human_transfer');
    const events = run.timeline.events();
    expect(events.map((e) => e.type)).toEqual(['call.started', 'tool', 'call.ended']);
    expect(events.map((e) => e.at_ms)).toEqual([0, 1_200, 1_200]);
    expect(events.at(-1)).toMatchObject({ end_reason: 'human_transfer', close_code: 1000 });
  });
});
