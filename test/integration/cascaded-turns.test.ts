import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSpeechSynth, toneSpeech } from '../../src/audio/index.ts';
import { ManualClock } from '../../src/core/index.ts';
import type { Summary, TimelineEvent } from '../../src/snapshot/index.ts';
import { CascadeStandIn, type ChatRequest } from '../support/cascade-endpoints-server.ts';
import { RawChirpClient } from '../support/chirp-client.ts';
import { eventsOf, readSnapshot } from '../support/realtime-call.ts';
import { tone } from '../support/realtime-server.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

/** Lets sockets and fetches run without moving the injected clock. */
async function settle(rounds = 20): Promise<void> {
  for (let i = 0; i < rounds; i++) await new Promise((resolve) => setImmediate(resolve));
}

/** Polls (without moving the clock) until `check` holds. */
async function until(check: () => boolean, what: string, rounds = 4_000): Promise<void> {
  for (let i = 0; i < rounds; i++) {
    if (check()) return;
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe('cascaded latency split on the injected clock (issue 19 acceptance 3)', () => {
  const CALL_ID = 'cascade_latency';
  let standIn: CascadeStandIn;
  let server: TestServer;
  let summary: Summary;
  let events: readonly TimelineEvent[];

  beforeAll(async () => {
    const clock = new ManualClock();
    standIn = await CascadeStandIn.start();
    const synth = await createSpeechSynth(16_000, { preferTones: true });
    // Unpaced (fast) so nothing but the stages below moves the clock.
    server = await startTestServer({ MIVAS_PACK: 'control-industry', MIVAS_FAST: '1', ...standIn.env() }, { synth, clock });
    const client = await RawChirpClient.connect(server.wsUrl, { 'X-Simulation-Result-Id': CALL_ID });
    (await standIn.chat.next()).respond({ text: 'Hello, this is Maple Lane Repairs.' });
    await client.waitForType('speech.completed');
    const ttsDelay = { ms: 0 };
    standIn.tts.handler = (r) => {
      clock.advance(ttsDelay.ms);
      return tone(300, 24_000);
    };
    client.say(toneSpeech('I need a repair visit', 16_000), 640);
    const stt = await standIn.stt.next();
    clock.advance(120);
    stt.respond('I need a repair visit.');
    const chat = await standIn.chat.next();
    ttsDelay.ms = 180;
    chat.respond({ text: 'Sure, let me check.', beforeFirstChunk: () => clock.advance(250) });
    await client.waitForType('speech.completed', 2);
    client.close(1000);
    await server.ctx.registry.get(CALL_ID)?.finished();
    ({ summary, events } = await readSnapshot(server, CALL_ID));
  }, 30_000);
  afterAll(async () => {
    await server?.close();
    await standIn?.close();
  });

  it('records end of speech → first audio, split into STT, LLM first token and TTS first byte', () => {
    expect(summary.turn_latency).toEqual([{ endpoint_ms: 0, stt_ms: 120, llm_first_token_ms: 250, tts_first_byte_ms: 180, total_ms: 550 }]);
    expect(eventsOf(events, 'turn.latency')).toMatchObject([{ stt_ms: 120, llm_first_token_ms: 250, tts_first_byte_ms: 180, total_ms: 550 }]);
  });
});

describe('cascaded barge-in: speech stops and the history keeps only what was played (issue 19 acceptance 3)', () => {
  const CALL_ID = 'cascade_barge_in';
  const S1 = 'Thanks for calling Maple Lane Repairs.';
  const S2 = 'We fix doors, windows, roofs and fences all week long.';
  const S3 = 'How can I help you today?';
  let standIn: CascadeStandIn;
  let server: TestServer;
  let next: ChatRequest;
  let events: readonly TimelineEvent[];

  beforeAll(async () => {
    const clock = new ManualClock();
    // Every sentence speaks for exactly one second.
    standIn = await CascadeStandIn.start({ ttsMs: () => 1_000 });
    const held: (() => void)[] = [];
    standIn.tts.handler = (r) => {
      const pcm = tone(1_000, 24_000);
      // The third sentence's audio is still on its way when the caller talks over the greeting.
      if (r.body.input === S3) return new Promise<Buffer>((resolve) => held.push(() => resolve(pcm)));
      return pcm;
    };
    standIn.stt.handler = () => 'Sorry, can you repeat that?';
    const synth = await createSpeechSynth(16_000, { preferTones: true });
    server = await startTestServer({ MIVAS_PACK: 'control-industry', ...standIn.env() }, { synth, clock });
    const client = await RawChirpClient.connect(server.wsUrl, { 'X-Simulation-Result-Id': CALL_ID });
    (await standIn.chat.next()).respond({ text: `${S1} ${S2} ${S3}` });
    await client.waitForType('speech.started');
    await until(() => standIn.tts.seen.length === 3, 'three speech requests');
    // 1.5 s into the greeting (the pacer leads by at most 200 ms), the caller starts talking.
    for (let t = 0; t < 1_500; t += 20) {
      clock.advance(20);
      await settle(3);
    }
    client.say(toneSpeech('Sorry what', 16_000), 640);
    const answer = await standIn.chat.next();
    next = answer.request;
    await until(() => standIn.ttsAborted.includes(S3), 'the held speech request to be aborted');
    for (const release of held) release();
    client.close(1000);
    await server.ctx.registry.get(CALL_ID)?.finished();
    ({ events } = await readSnapshot(server, CALL_ID));
  }, 30_000);
  afterAll(async () => {
    await server?.close();
    await standIn?.close();
  });

  it('cuts the greeting at the caller and aborts the speech request still running', () => {
    const cut = eventsOf(events, 'barge_in')[0];
    expect(cut).toBeDefined();
    expect(Math.abs((cut?.played_ms ?? 0) - 1_500)).toBeLessThanOrEqual(60);
    expect(standIn.ttsAborted).toEqual([S3]);
    expect(eventsOf(events, 'speech.completed').find((e) => e.side === 'agent')?.interrupted).toBe(true);
  });

  it('answers the next turn with a history that holds only the played text of the greeting', () => {
    const assistant = next.body.messages.filter((m) => m.role === 'assistant');
    expect(assistant).toHaveLength(1);
    // All of S1 (0–1 s) and the share of S2's words that fits the share of its second that was played.
    const playedMs = eventsOf(events, 'barge_in')[0]?.played_ms ?? 0;
    const words = S2.split(' ');
    const heard = words.slice(0, Math.floor((words.length * (playedMs - 1_000)) / 1_000));
    expect(heard.length).toBeGreaterThan(3);
    expect(assistant[0]?.content).toBe(`${S1} ${heard.join(' ')}`);
    expect(next.body.messages.at(-1)).toEqual({ role: 'user', content: 'Sorry, can you repeat that?' });
  });
});

describe('cascaded with MIVAS_CASCADE_RESET_HISTORY=1: a handoff starts the next specialist from the caller’s last words', () => {
  it('sends the scheduler only its system message and the caller’s latest utterance', async () => {
    const standIn = await CascadeStandIn.start({ ttsMs: () => 100 });
    standIn.stt.handler = () => 'I want to book a visit for Wednesday.';
    const synth = await createSpeechSynth(16_000, { preferTones: true });
    const server = await startTestServer({ MIVAS_PACK: 'control-industry', MIVAS_FAST: '1', ...standIn.env({ MIVAS_CASCADE_RESET_HISTORY: '1' }) }, { synth });
    try {
      const client = await RawChirpClient.connect(server.wsUrl, { 'X-Simulation-Result-Id': 'cascade_reset' });
      (await standIn.chat.next()).respond({ text: 'Hello, Maple Lane Repairs.' });
      await client.waitForType('speech.completed');
      client.say(toneSpeech('I want to book a visit', 16_000), 640);
      (await standIn.chat.next()).respond({ calls: [{ name: 'transfer_to_scheduler', args: {} }] });
      const scheduler = await standIn.chat.next();
      expect(scheduler.request.body.messages.map((m) => m.role)).toEqual(['system', 'user']);
      expect(scheduler.request.body.messages[1]?.content).toBe('I want to book a visit for Wednesday.');
      expect(String(scheduler.request.body.messages[0]?.content)).toContain('YOUR ROLE: Scheduler');
      scheduler.respond({ text: 'Goodbye.', calls: [{ name: 'end_call', args: { reason: 'caller_done' } }] });
      await server.ctx.registry.get('cascade_reset')?.finished();
    } finally {
      await server.close();
      await standIn.close();
    }
  }, 30_000);
});
