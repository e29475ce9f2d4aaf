import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/core/index.ts';
import type { Summary, TimelineEvent } from '../../src/snapshot/index.ts';
import { RawChirpClient } from '../support/chirp-client.ts';
import { advanceUntil, eventsOf, readSnapshot, startRealtimeRig, type RealtimeRig } from '../support/realtime-call.ts';
import { tone, type ClientEvent, type StandInConnection } from '../support/realtime-server.ts';

const CALL_ID = 'rt_barge_in';
const FRAME_BYTES = 640;
/** How far the injected clock runs into the greeting before the caller talks over it. */
const PLAYED_MS = 1_000;
/** The pacer may lead real time by 200 ms (wire.md §1.7): frames 0..60 are due by t = 1000 ms. */
const FRAMES_DUE = (PLAYED_MS + 200) / 20 + 1;

describe('barge-in on the injected clock (issue 3 acceptance 3, wire.md §6.13)', () => {
  let rig: RealtimeRig;
  let client: RawChirpClient;
  let conn: StandInConnection;
  let truncate: ClientEvent;
  let greetingItem: string;
  let summary: Summary;
  let events: readonly TimelineEvent[];

  beforeAll(async () => {
    const clock = new ManualClock();
    rig = await startRealtimeRig('openai/realtime', {}, { clock });
    client = await RawChirpClient.connect(rig.server.wsUrl, { 'X-Simulation-Result-Id': CALL_ID });
    conn = await rig.standIn.nextConnection();
    await conn.next('response.create');
    // One delta holds the whole 3 s greeting, so the first CHIRP frame proves all of it is queued.
    const greeting = conn.respond([{ audio: tone(3_000, 24_000), transcript: 'Thanks for calling Maple Lane Repairs, how can I help you today?', chunkBytes: 3_000 * 48 }]);
    greetingItem = greeting.itemIds[0] ?? '';
    await client.waitForType('speech.started');
    clock.advance(PLAYED_MS);
    await client.waitFor(() => client.binaries().length >= FRAMES_DUE, 'the frames due by 1 s');
    conn.send({ type: 'input_audio_buffer.speech_started', item_id: 'in_1', audio_start_ms: 900 });
    truncate = await conn.next('conversation.item.truncate');
    await client.waitForType('speech.completed');
    clock.advance(2_000);
    // A second, short reply: every frame before its speech.started belongs to the greeting.
    conn.respond([{ audio: tone(100, 24_000, 330) }]);
    await client.waitForType('speech.started', 2);
    const session = rig.server.ctx.registry.get(CALL_ID);
    client.close(1000);
    await session?.finished();
    ({ summary, events } = await readSnapshot(rig.server, CALL_ID));
  });
  afterAll(async () => {
    await rig?.close();
  });

  it('truncates the interrupted item at what was played, within 20 ms and never beyond what was sent', () => {
    expect(truncate).toMatchObject({ type: 'conversation.item.truncate', item_id: greetingItem, content_index: 0 });
    const audioEndMs = Number(truncate.audio_end_ms);
    expect(Math.abs(audioEndMs - PLAYED_MS)).toBeLessThanOrEqual(20);
    const sentMs = (client.ofType('speech.completed')[0]?.afterBinaryFrames ?? 0) * 20;
    expect(audioEndMs).toBeLessThanOrEqual(sentMs);
  });

  it('stops queued agent audio within one frame and closes the utterance without a mark', () => {
    const completed = client.ofType('speech.completed')[0];
    const secondStart = client.ofType('speech.started')[1];
    expect(completed?.afterBinaryFrames).toBeLessThanOrEqual(FRAMES_DUE + 1);
    expect(secondStart?.afterBinaryFrames).toBe(completed?.afterBinaryFrames);
    const firstId = client.ofType('speech.started')[0]?.frame.utteranceId;
    expect(client.ofType('mark').map((m) => m.frame.name)).not.toContain(firstId);
    expect(client.binaries().slice(0, FRAMES_DUE).every((f) => f.length === FRAME_BYTES)).toBe(true);
  });

  it('sends no response.cancel when the response of the interrupted reply was already done', () => {
    expect(conn.received('response.cancel')).toEqual([]);
  });

  it('records the barge-in and the interrupted utterance on the timeline', () => {
    expect(eventsOf(events, 'barge_in')).toMatchObject([{ played_ms: Number(truncate.audio_end_ms) }]);
    const agentDone = eventsOf(events, 'speech.completed').filter((e) => e.side === 'agent');
    expect(agentDone[0]?.interrupted).toBe(true);
    expect(summary.end_reason).toBe('caller_hangup');
  });
});

/** The frames of each agent utterance as the caller received them, between its speech.started and speech.completed. */
function framesPerUtterance(client: RawChirpClient): { id: unknown; frames: number }[] {
  const starts = client.ofType('speech.started');
  const ends = client.ofType('speech.completed');
  return starts.map((s, i) => ({ id: s.frame.utteranceId, frames: (ends[i]?.afterBinaryFrames ?? Infinity) - s.afterBinaryFrames }));
}

describe('barge-in while the reply is still being generated (late deltas of the cut item)', () => {
  const LATE_ID = 'rt_barge_in_late';
  let rig: RealtimeRig;
  let client: RawChirpClient;
  let conn: StandInConnection;
  let events: readonly TimelineEvent[];
  let truncateSeq: number;

  beforeAll(async () => {
    const clock = new ManualClock();
    rig = await startRealtimeRig('openai/realtime', {}, { clock });
    client = await RawChirpClient.connect(rig.server.wsUrl, { 'X-Simulation-Result-Id': LATE_ID });
    conn = await rig.standIn.nextConnection();
    await conn.next('response.create');
    // The reply is still streaming: created, one second of audio, and no audio.done or response.done yet.
    conn.send({ type: 'response.created', response: { id: 'resp_live', status: 'in_progress' } });
    conn.send({ type: 'response.output_item.added', response_id: 'resp_live', item: { id: 'item_live', type: 'message', role: 'assistant' } });
    conn.send({ type: 'response.output_audio.delta', response_id: 'resp_live', item_id: 'item_live', content_index: 0, delta: tone(1_000, 24_000).toString('base64') });
    await client.waitForType('speech.started');
    clock.advance(500);
    await client.waitFor(() => client.binaries().length >= 36, 'the frames due by 500 ms');
    conn.send({ type: 'input_audio_buffer.speech_started', item_id: 'in_1', audio_start_ms: 450 });
    await conn.next('conversation.item.truncate');
    truncateSeq = conn.log.find((e) => e.type === 'conversation.item.truncate')?.seq ?? -1;
    await client.waitForType('speech.completed');
    // Deltas of the cut item already in flight when the server cancelled, then its cancelled done.
    for (let i = 0; i < 4; i++) conn.send({ type: 'response.output_audio.delta', response_id: 'resp_live', item_id: 'item_live', content_index: 0, delta: tone(250, 24_000).toString('base64') });
    conn.send({ type: 'response.output_audio.done', response_id: 'resp_live', item_id: 'item_live', content_index: 0 });
    conn.send({ type: 'response.done', response: { id: 'resp_live', status: 'cancelled', usage: null } });
    clock.advance(2_000);
    // The answer to the caller: 100 ms, five frames. Everything the stand-in sent before it has been handled once it plays.
    conn.respond([{ audio: tone(100, 24_000, 330) }]);
    await advanceUntil(clock, client.waitForType('speech.completed', 2));
    const session = rig.server.ctx.registry.get(LATE_ID);
    client.close(1000);
    await session?.finished();
    ({ events } = await readSnapshot(rig.server, LATE_ID));
  });
  afterAll(async () => {
    await rig?.close();
  });

  it('cancels the response that was still open, once, before the truncate', () => {
    const cancels = conn.log.filter((e) => e.dir === 'in' && e.type === 'response.cancel');
    expect(cancels).toHaveLength(1);
    expect(cancels[0]?.seq).toBeLessThan(truncateSeq);
  });

  it('sends the caller no frame of the interrupted item after the truncate, and opens no utterance for it', () => {
    const utterances = framesPerUtterance(client);
    expect(utterances).toHaveLength(2);
    const firstEnd = client.ofType('speech.completed')[0]?.afterBinaryFrames;
    expect(client.ofType('speech.started')[1]?.afterBinaryFrames).toBe(firstEnd);
    // The second utterance is the 100 ms answer alone (five frames), none of the second of late audio.
    expect(utterances[1]?.frames).toBe(5);
    expect(client.binaries().length).toBe((firstEnd ?? 0) + 5);
  });

  it('records one barge-in and two agent utterances, the first interrupted', () => {
    expect(eventsOf(events, 'barge_in')).toHaveLength(1);
    const started = eventsOf(events, 'speech.started').filter((e) => e.side === 'agent');
    const done = eventsOf(events, 'speech.completed').filter((e) => e.side === 'agent');
    expect(started).toHaveLength(2);
    expect(done.map((d) => [d.utterance_id, d.interrupted])).toEqual([
      [started[0]?.utterance_id, true],
      [started[1]?.utterance_id, false],
    ]);
  });

  it('asks for no response after the cancelled one, which carried no call', () => {
    expect(conn.received('response.create')).toHaveLength(1);
  });
});
