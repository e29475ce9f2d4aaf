import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Task } from '../../src/packs/index.ts';
import { csvCells } from '../../src/scoring/index.ts';
import { playDuplex, verdictOf, type Played } from '../support/duplex-rig.ts';
import { OpenAICompatibleStandIn } from '../support/openai-compatible.ts';

const TASK = 'C1-M1-COR';
/** The bound on how fast a yielding agent's audio stops once the caller's speech reaches the server. */
const YIELD_BOUND_MS = 200;
const DECISION = 'Sorry to cut in. Yes, please go ahead and save it.';

/** The correction task with a barge-in first: the caller cuts in with a decision as soon as the agent starts its read-back. */
function withBargeIn(task: Task): Task {
  const pin: Task['scripted_responses'][number] = {
    match_type: 'context',
    match_phrase: 'While the agent starts reading details back before saving them, NOT when it asks whether there is anything else.',
    response_type: 'phrase',
    response_value: DECISION,
    duplex: { act: 'barge_in', agent_says: ['read that back'], not_when_agent_says: ['anything else'], cut_in_after_ms: 0 },
  };
  return { ...task, scripted_responses: [pin, ...task.scripted_responses] };
}

/**
 * Issue 33 acceptance 2: the caller barges in on a long agent turn (the read-back, paced in real
 * time by the server); the scripted agent set to yield stops its audio within 200 ms of the
 * caller's speech reaching the server, measured on the server's timeline, and the one set to keep
 * talking is recorded as not yielding.
 */
describe('barge-in: a yielding agent stops its audio within 200 ms of the caller at the server; a talking one is recorded as not yielding', () => {
  let standIn: OpenAICompatibleStandIn;
  let yielding: Played;
  let talking: Played;

  beforeAll(async () => {
    standIn = await OpenAICompatibleStandIn.start({ chat: () => ({ tool: 'stay_silent' }) });
    yielding = await playDuplex(TASK, { yieldsToCaller: true, writes: 'corrected' }, standIn, withBargeIn);
    talking = await playDuplex(TASK, { yieldsToCaller: false, writes: 'corrected' }, standIn, withBargeIn);
  }, 180_000);

  afterAll(async () => {
    await yielding?.server.close();
    await talking?.server.close();
    await standIn?.close();
  });

  it('the caller says its decision over the read-back, once, in both calls', () => {
    for (const p of [yielding, talking]) {
      const cuts = p.run.callerFiles.get(p.callId)?.turns.filter((t) => t.duplex) ?? [];
      expect(cuts.map((t) => [t.text, t.duplex?.act, t.pin])).toEqual([[DECISION, 'barge_in', 1]]);
    }
  });

  it('records the yielding agent stopping within 200 ms on the server clock, the figure in the CSV too', () => {
    const [check] = verdictOf(yielding).diagnostics.duplex ?? [];
    expect(check).toMatchObject({ act: 'barge_in', agent_stopped: true, stale_calls: [], stale_in_state: null });
    expect(check?.stop_ms).not.toBeNull();
    expect(check?.stop_ms).toBeLessThanOrEqual(YIELD_BOUND_MS);
    // The figure is the server's: the cut utterance's speech.completed minus the caller's speech.started.
    const started = yielding.events.find((e) => e.type === 'speech.started' && e.side === 'caller' && e.utterance_id === check?.caller_utterance_id);
    const done = yielding.events.find((e) => e.type === 'speech.completed' && e.side === 'agent' && e.utterance_id === check?.over_utterance_id);
    expect(done).toMatchObject({ interrupted: true });
    expect(check?.stop_ms).toBe((done?.at_ms ?? 0) - (started?.at_ms ?? 0));
    expect(csvCells(verdictOf(yielding))).toMatchObject({ duplex_yielded: '1/1', duplex_stop_max_ms: check?.stop_ms });
  });

  it('records the talking agent as not yielding: its utterance ran to its end after the caller cut in', () => {
    const [check] = verdictOf(talking).diagnostics.duplex ?? [];
    expect(check).toMatchObject({ act: 'barge_in', agent_stopped: false, stop_ms: null });
    const done = talking.events.find((e) => e.type === 'speech.completed' && e.side === 'agent' && e.utterance_id === check?.over_utterance_id);
    expect(done).toMatchObject({ interrupted: false });
    expect(done?.at_ms).toBeGreaterThan(check?.at_ms ?? Number.POSITIVE_INFINITY);
    expect(csvCells(verdictOf(talking))).toMatchObject({ duplex_yielded: '0/1', duplex_stop_max_ms: null });
    expect(talking.run.score.aggregates.diagnostics.duplex).toMatchObject({ cut_ins: 1, yielded: 0 });
  });
});
