import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/core/index.ts';
import type { TimelineEvent } from '../../src/snapshot/index.ts';
import { advanceUntil, dial, eventsOf, readSnapshot, startRealtimeRig } from '../support/realtime-call.ts';
import { tone, type ResponsePart } from '../support/realtime-server.ts';

const RETRY_MS = 3_000;
const END_CALL: ResponsePart = { call: { name: 'end_call', args: { reason: 'caller_done' } } };

/**
 * One call on the injected clock (architecture.md §13) where the stand-in ignores every response.create
 * before `answerAttempt` (null: all of them). Each ignored nudge is followed by exactly one retry
 * delay on the clock; the answer carries greeting audio plus end_call so that awaiting its output
 * proves the server has taken the audio before the clock moves on. That audio is also the goodbye,
 * so no farewell is requested and the call closes once it has played. With no answer, end_call
 * alone gets a farewell request, answered silent.
 */
async function nudgeCall(answerAttempt: number | null): Promise<{ events: readonly TimelineEvent[]; creates: number; closeCode: number }> {
  const clock = new ManualClock();
  const rig = await startRealtimeRig('openai/realtime', {}, { clock });
  try {
    const callId = `rt_nudge_${answerAttempt ?? 'never'}`;
    const caller = dial(rig, callId);
    const conn = await rig.standIn.nextConnection();
    const lastAttempt = answerAttempt ?? 5;
    for (let attempt = 1; attempt <= lastAttempt; attempt++) {
      await conn.next('response.create');
      if (attempt < lastAttempt) clock.advance(RETRY_MS);
    }
    // Past the point where two more nudges would have gone out; still short of the 20 s ping.
    if (answerAttempt === null) clock.advance(2 * RETRY_MS);
    const answer = conn.respond(answerAttempt === null ? [END_CALL] : [{ audio: tone(500, 24_000), transcript: 'Hello.' }, END_CALL]);
    await conn.toolOutput(answer.callIds[0] ?? '');
    if (answerAttempt !== null) clock.advance(5 * RETRY_MS);
    else {
      await conn.next('response.create');
      conn.respond([]);
    }
    const report = await advanceUntil(clock, caller);
    const creates = conn.received('response.create').length;
    return { events: (await readSnapshot(rig.server, callId)).events, creates, closeCode: report.closeCode };
  } finally {
    await rig.close();
  }
}

function nudgeTimes(events: readonly TimelineEvent[]): number[] {
  return eventsOf(events, 'nudge').map((e) => e.at_ms);
}

describe('the greeting nudge on the injected clock (issue 3 acceptance 2, wire.md §6.11)', () => {
  it('sends exactly 5 bare response.create, 3 s apart, when every one is ignored', async () => {
    const { events, creates, closeCode } = await nudgeCall(null);
    expect(eventsOf(events, 'nudge').map((e) => e.attempt)).toEqual([1, 2, 3, 4, 5]);
    const times = nudgeTimes(events);
    expect(times.slice(1).map((t, i) => t - (times[i] ?? 0))).toEqual([RETRY_MS, RETRY_MS, RETRY_MS, RETRY_MS]);
    // Five nudges, then the farewell request after end_call.
    expect(creates).toBe(6);
    expect(closeCode).toBe(1000);
  });

  it('re-sends an ignored nudge and stops once agent audio arrives', async () => {
    const { events, creates } = await nudgeCall(2);
    const times = nudgeTimes(events);
    expect(times).toHaveLength(2);
    expect((times[1] ?? 0) - (times[0] ?? 0)).toBe(RETRY_MS);
    expect(creates).toBe(2);
  });

  it('sends exactly one nudge when the first is answered', async () => {
    const { events, creates } = await nudgeCall(1);
    expect(nudgeTimes(events)).toHaveLength(1);
    expect(creates).toBe(1);
  });

  it('sends the nudge as a bare response.create with no conversation item before it', async () => {
    const clock = new ManualClock();
    const rig = await startRealtimeRig('openai/realtime', {}, { clock });
    try {
      const caller = dial(rig, 'rt_nudge_bare');
      const conn = await rig.standIn.nextConnection();
      const create = await conn.next('response.create');
      expect(create).toEqual({ type: 'response.create' });
      expect(conn.received('conversation.item.create')).toEqual([]);
      const answer = conn.respond([END_CALL]);
      await conn.toolOutput(answer.callIds[0] ?? '');
      await conn.next('response.create');
      conn.respond([]);
      expect((await caller).closeCode).toBe(1000);
    } finally {
      await rig.close();
    }
  });
});
