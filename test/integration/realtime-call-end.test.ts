import { beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/core/index.ts';
import { drainCalls } from '../../src/server/index.ts';
import type { EndReason, Summary, TimelineEvent } from '../../src/snapshot/index.ts';
import { RawChirpClient, type CloseInfo } from '../support/chirp-client.ts';
import { eventsOf, readSnapshot, startRealtimeRig, type RealtimeRig } from '../support/realtime-call.ts';
import { tone, type StandInConnection } from '../support/realtime-server.ts';

/** Long enough that every end path below lands while the caller is still hearing it. */
const UTTERANCE_MS = 3_000;

interface Live {
  readonly clock: ManualClock;
  readonly rig: RealtimeRig;
  readonly conn: StandInConnection;
  readonly client: RawChirpClient;
}

/** One way a call ends while an agent utterance is playing. */
interface EndPath {
  readonly name: string;
  readonly env: Record<string, string>;
  readonly reason: EndReason;
  /** The CHIRP close code the caller sees. */
  readonly closeCode: number;
  /** False when the caller's socket is gone first: the pair can only be in the timeline. */
  readonly onWire: boolean;
  /** Gets the call to the utterance that will be cut; defaults to a long greeting. */
  readonly speak?: (live: Live) => Promise<void>;
  readonly end: (live: Live) => Promise<void> | void;
}

async function longGreeting({ conn }: Live): Promise<void> {
  conn.respond([{ audio: tone(UTTERANCE_MS, 24_000), chunkBytes: UTTERANCE_MS * 48 }]);
}

const PATHS: readonly EndPath[] = [
  { name: 'provider_error', env: {}, reason: 'provider_error', closeCode: 1011, onWire: true, end: ({ conn }) => conn.drop() },
  { name: 'max_duration', env: { MIVAS_MAX_CALL_S: '1' }, reason: 'max_duration', closeCode: 1000, onWire: true, end: ({ clock }) => clock.advance(1_000) },
  { name: 'caller_silence', env: { MIVAS_CALLER_SILENCE_S: '1' }, reason: 'caller_silence', closeCode: 1000, onWire: true, end: ({ clock }) => clock.advance(1_000) },
  {
    name: 'drain_deadline',
    env: { MIVAS_DRAIN_S: '1' },
    reason: 'drain_deadline',
    closeCode: 1011,
    onWire: true,
    end: ({ clock, rig }) => {
      void drainCalls(rig.server.ctx);
      clock.advance(1_000);
    },
  },
  {
    name: 'farewell_cap',
    env: { MIVAS_END_CALL_MAX_WAIT_S: '1' },
    reason: 'agent_end_call',
    closeCode: 1000,
    onWire: true,
    // end_call alone, then a farewell longer than the cap: the cap cuts it.
    speak: async ({ conn }) => {
      const end = conn.respond([{ call: { name: 'end_call', args: { reason: 'caller_done' } } }]);
      await conn.toolOutput(end.callIds[0] ?? '');
      await conn.next('response.create');
      conn.respond([{ audio: tone(UTTERANCE_MS, 24_000), chunkBytes: UTTERANCE_MS * 48 }]);
    },
    end: ({ clock }) => clock.advance(1_000),
  },
  { name: 'caller_hangup', env: {}, reason: 'caller_hangup', closeCode: 1000, onWire: false, end: ({ client }) => client.close(1000) },
];

/** Runs one call to the middle of an agent utterance, ends it along `path`, and returns what both sides saw. */
async function endMidUtterance(path: EndPath): Promise<{ client: RawChirpClient; closed: CloseInfo; summary: Summary; events: readonly TimelineEvent[] }> {
  const clock = new ManualClock();
  const rig = await startRealtimeRig('openai/realtime', path.env, { clock });
  try {
    const callId = `rt_end_${path.name}`;
    const client = await RawChirpClient.connect(rig.server.wsUrl, { 'X-Simulation-Result-Id': callId });
    const session = rig.server.ctx.registry.get(callId);
    const conn = await rig.standIn.nextConnection();
    const live = { clock, rig, conn, client };
    await conn.next('response.create');
    await (path.speak ?? longGreeting)(live);
    await client.waitForType('speech.started');
    await client.waitFor(() => client.binaries().length >= 10, 'the first frames');
    await path.end(live);
    const closed = await client.closed;
    await session?.finished();
    return { client, closed, ...(await readSnapshot(rig.server, callId)) };
  } finally {
    await rig.close();
  }
}

describe.each(PATHS)('a call that ends mid-utterance: $name', (path) => {
  let result: Awaited<ReturnType<typeof endMidUtterance>>;

  beforeAll(async () => {
    result = await endMidUtterance(path);
  });

  it('ends the way the path says', () => {
    expect(result.summary.end_reason).toBe(path.reason);
    if (path.onWire) expect(result.closed.code).toBe(path.closeCode);
  });

  it('pairs every agent speech.started with one speech.completed, interrupted, before call.ended in the timeline', () => {
    const started = eventsOf(result.events, 'speech.started').filter((e) => e.side === 'agent');
    const completed = eventsOf(result.events, 'speech.completed').filter((e) => e.side === 'agent');
    const ended = eventsOf(result.events, 'call.ended')[0];
    expect(started).toHaveLength(1);
    expect(completed.map((c) => [c.utterance_id, c.interrupted])).toEqual([[started[0]?.utterance_id, true]]);
    expect(completed[0]?.seq).toBeLessThan(ended?.seq ?? -1);
  });

  it.runIf(path.onWire)('sends the caller speech.completed for the open utterance before the close, with no mark and no frame after it', () => {
    const { client } = result;
    const started = client.ofType('speech.started');
    const completed = client.ofType('speech.completed');
    expect(started).toHaveLength(1);
    expect(completed.map((c) => c.frame.utteranceId)).toEqual([started[0]?.frame.utteranceId]);
    expect(completed[0]?.afterBinaryFrames).toBe(client.binaries().length);
    expect(client.ofType('mark')).toEqual([]);
    // Everything the server sent arrived before the close frame; a 1011 close keeps session.error last.
    const lastTypes = client.texts().map((t) => (JSON.parse(t.raw) as { type: string }).type);
    if (path.closeCode === 1011) expect(lastTypes.slice(-2)).toEqual(['speech.completed', 'session.error']);
    else expect(lastTypes.at(-1)).toBe('speech.completed');
  });
});
