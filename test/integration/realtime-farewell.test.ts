import { beforeAll, describe, expect, it } from 'vitest';
import { MAX_LEAD_MS } from '../../src/chirp/index.ts';
import { ManualClock } from '../../src/core/index.ts';
import type { Summary, TimelineEvent } from '../../src/snapshot/index.ts';
import { RawChirpClient, type CloseInfo } from '../support/chirp-client.ts';
import { advanceUntil, eventsOf, readSnapshot, startRealtimeRig, type RealtimeRig } from '../support/realtime-call.ts';
import { outputOf, tone, type ResponsePart, type StandInConnection } from '../support/realtime-server.ts';

const FAREWELL_MS = 800;
const END_CALL: ResponsePart = { call: { name: 'end_call', args: { reason: 'caller_done' } } };
const GOODBYE: ResponsePart = { audio: tone(FAREWELL_MS, 24_000, 550), transcript: 'Thank you for calling. Goodbye.' };

interface Ended {
  readonly conn: StandInConnection;
  readonly client: RawChirpClient;
  readonly closed: CloseInfo;
  readonly summary: Summary;
  readonly events: readonly TimelineEvent[];
  readonly endCallId: string;
}

/**
 * A call on the injected clock whose model answers the greeting nudge with `firstReply` (which
 * calls end_call), and, when `farewellReply` is given, answers the farewell request with it. The
 * clock then moves in 20 ms steps until the caller's socket closes.
 */
async function endedCall(callId: string, firstReply: readonly ResponsePart[], farewellReply: readonly ResponsePart[] | null): Promise<Ended> {
  const clock = new ManualClock();
  const rig: RealtimeRig = await startRealtimeRig('openai/realtime', {}, { clock });
  try {
    const client = await RawChirpClient.connect(rig.server.wsUrl, { 'X-Simulation-Result-Id': callId });
    const session = rig.server.ctx.registry.get(callId);
    const conn = await rig.standIn.nextConnection();
    await conn.next('response.create');
    const first = conn.respond(firstReply);
    const endCallId = first.callIds[0] ?? '';
    await conn.toolOutput(endCallId);
    if (farewellReply) {
      await conn.next('response.create');
      conn.respond(farewellReply);
    }
    const closed = await advanceUntil(clock, client.closed);
    await session?.finished();
    return { conn, client, closed, endCallId, ...(await readSnapshot(rig.server, callId)) };
  } finally {
    await rig.close();
  }
}

/** The last agent utterance's speech.started / speech.completed, and call.ended, from the timeline. */
function farewellTimes(events: readonly TimelineEvent[]) {
  const started = eventsOf(events, 'speech.started').filter((e) => e.side === 'agent').at(-1);
  const completed = eventsOf(events, 'speech.completed').find((e) => e.utterance_id === started?.utterance_id);
  const ended = eventsOf(events, 'call.ended')[0];
  return { started, completed, ended };
}

/** Assertions shared by both ways of saying goodbye. */
function itClosesAfterThePlayOut(get: () => Ended): void {
  it('closes 1000 with agent_end_call', () => {
    expect(get().closed.code).toBe(1000);
    expect(get().summary.end_reason).toBe('agent_end_call');
  });

  it('closes no earlier than the farewell\u2019s last frame plus the pacer lead, and within one frame of its play-out', () => {
    // speech.completed leaves with the last frame, so its stamp is the last send on the injected clock.
    const { completed, ended } = farewellTimes(get().events);
    expect(completed?.interrupted).toBe(false);
    const waitedMs = (ended?.at_ms ?? 0) - (completed?.at_ms ?? Infinity);
    expect(waitedMs).toBeGreaterThanOrEqual(MAX_LEAD_MS);
    expect(waitedMs).toBeLessThanOrEqual(MAX_LEAD_MS + 40);
  });

  it('delivers the whole farewell and its mark before the close', () => {
    const { client } = get();
    const last = client.ofType('speech.started').at(-1)?.frame.utteranceId;
    const lastStart = client.ofType('speech.started').at(-1)?.afterBinaryFrames ?? 0;
    expect(client.binaries().length - lastStart).toBe(FAREWELL_MS / 20);
    expect(JSON.parse(client.texts().at(-1)?.raw ?? '{}')).toMatchObject({ type: 'mark', data: { name: last } });
  });
}

describe('end_call alone, then the farewell it asks for (wire.md §1.9, §6.14)', () => {
  let ended: Ended;
  beforeAll(async () => {
    ended = await endedCall('rt_farewell_asked', [END_CALL], [GOODBYE]);
  });

  itClosesAfterThePlayOut(() => ended);

  it('asks for the farewell once, after the output of end_call', () => {
    const creates = ended.conn.log.filter((e) => e.dir === 'in' && e.type === 'response.create');
    const outputAt = ended.conn.log.find((e) => e.dir === 'in' && outputOf({ type: e.type, ...e.event }, ended.endCallId) !== null)?.seq ?? Infinity;
    expect(creates).toHaveLength(2); // the nudge, the farewell
    expect(creates[1]?.seq).toBeGreaterThan(outputAt);
  });
});

describe('end_call in the same response as the goodbye audio', () => {
  let ended: Ended;
  beforeAll(async () => {
    ended = await endedCall('rt_farewell_same', [GOODBYE, END_CALL], null);
  });

  itClosesAfterThePlayOut(() => ended);

  it('sends no response.create after end_call: the model is not asked to speak again', () => {
    expect(ended.conn.received('response.create')).toHaveLength(1); // the nudge alone
    expect(eventsOf(ended.events, 'speech.started').filter((e) => e.side === 'agent')).toHaveLength(1);
  });
});
