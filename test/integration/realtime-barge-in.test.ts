import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/core/index.ts';
import type { Summary, TimelineEvent } from '../../src/snapshot/index.ts';
import { RawChirpClient } from '../support/chirp-client.ts';
import { eventsOf, readSnapshot, startRealtimeRig, type RealtimeRig } from '../support/realtime-call.ts';
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

  it('sends no response.cancel, since interrupt_response lets the server cancel (wire.md §2.7)', () => {
    const before = conn.log.findIndex((e) => e.type === 'conversation.item.truncate');
    expect(conn.log.slice(0, before).some((e) => e.type === 'response.cancel')).toBe(false);
  });

  it('records the barge-in and the interrupted utterance on the timeline', () => {
    expect(eventsOf(events, 'barge_in')).toMatchObject([{ played_ms: Number(truncate.audio_end_ms) }]);
    const agentDone = eventsOf(events, 'speech.completed').filter((e) => e.side === 'agent');
    expect(agentDone[0]?.interrupted).toBe(true);
    expect(summary.end_reason).toBe('caller_hangup');
  });
});
