import { describe, expect, it } from 'vitest';
import { StereoRecorder, type Resampler } from '../../../src/audio/index.ts';
import { AgentAudio } from '../../../src/call/agent-audio.ts';
import { TypedEmitter, ManualClock, seededIds } from '../../../src/core/index.ts';
import type { ChirpSocket, ChirpSocketEvents } from '../../../src/chirp/index.ts';
import { Timeline } from '../../../src/snapshot/index.ts';

/** A socket that records what the call sends (the ChirpSocket seam). */
function recordingSocket(): ChirpSocket & { binary: Buffer[]; texts: string[] } {
  const binary: Buffer[] = [];
  const texts: string[] = [];
  return {
    events: new TypedEmitter<ChirpSocketEvents>(),
    binary,
    texts,
    isOpen: () => true,
    sendBinary: (pcm) => binary.push(pcm),
    sendText: (text) => texts.push(text),
    ping: () => undefined,
    close: () => undefined,
    terminate: () => undefined,
    pause: () => undefined,
  };
}

/** A pass-through resampler that counts the bytes it converted. */
function countingResampler(): Resampler & { converted: number } {
  const r = {
    fromHz: 16_000,
    toHz: 16_000,
    converted: 0,
    process(pcm: Buffer) {
      r.converted += pcm.length;
      return pcm;
    },
    destroy: () => undefined,
  };
  return r;
}

const flushMicrotasks = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

function setup(fast = false) {
  const clock = new ManualClock();
  const socket = recordingSocket();
  const timeline = new Timeline(() => clock.nowMs());
  const audio = new AgentAudio({ clock, ids: seededIds('agent-audio'), socket, timeline, recorder: new StereoRecorder(), acceptedMs: 0, fast });
  const resampler = countingResampler();
  audio.useResampler(resampler);
  return { clock, socket, audio, resampler, timeline };
}

describe('AgentAudio', () => {
  it('resamples a reply delivered in one burst only as the pacer needs it', async () => {
    const { clock, socket, audio, resampler } = setup();
    for (let i = 0; i < 20; i++) audio.push('item_1', Buffer.alloc(3_200)); // 2 s in 100 ms deltas
    audio.finish('item_1');
    await flushMicrotasks();
    expect(resampler.converted).toBeLessThanOrEqual(640 * 35); // about the 400 ms target, not 2 s
    for (let t = 0; t < 2_500; t += 20) {
      clock.advance(20);
      await flushMicrotasks();
    }
    expect(resampler.converted).toBe(64_000);
    expect(socket.binary.reduce((n, f) => n + f.length, 0)).toBe(64_000);
    await audio.whenIdle();
    expect(socket.texts.map((t) => (JSON.parse(t) as { type: string }).type)).toEqual(['speech.started', 'speech.completed', 'mark']);
  });

  it('drops unconverted audio on barge-in', async () => {
    const { clock, socket, audio, resampler } = setup();
    for (let i = 0; i < 20; i++) audio.push('item_1', Buffer.alloc(3_200));
    await flushMicrotasks();
    clock.advance(300);
    await flushMicrotasks();
    const cut = audio.interrupt();
    expect(cut?.itemId).toBe('item_1');
    const sent = socket.binary.length;
    clock.advance(2_000);
    await flushMicrotasks();
    expect(socket.binary.length).toBe(sent);
    expect(resampler.converted).toBeLessThan(64_000);
  });

  it('drops late deltas of every item a barge-in cut, and plays a new item as usual', async () => {
    const { clock, socket, audio } = setup();
    expect(audio.push('item_1', Buffer.alloc(32_000))).toBe(true); // 1 s, playing
    audio.finish('item_1');
    expect(audio.push('item_2', Buffer.alloc(32_000))).toBe(true); // queued behind it
    await flushMicrotasks();
    clock.advance(300);
    await flushMicrotasks();
    expect(audio.interrupt()?.itemId).toBe('item_1');
    const framesAtCut = socket.binary.length;
    const textsAtCut = socket.texts.length;
    expect(audio.push('item_1', Buffer.alloc(6_400))).toBe(false);
    expect(audio.push('item_2', Buffer.alloc(6_400))).toBe(false);
    audio.finish('item_2');
    clock.advance(1_000);
    await flushMicrotasks();
    expect(socket.binary.length).toBe(framesAtCut);
    expect(socket.texts.length).toBe(textsAtCut);
    expect(audio.push('item_3', Buffer.alloc(6_400))).toBe(true);
    audio.finish('item_3');
    clock.advance(1_000);
    await flushMicrotasks();
    expect(socket.binary.length).toBe(framesAtCut + 10);
    expect(socket.texts.slice(textsAtCut).map((t) => (JSON.parse(t) as { type: string }).type)).toEqual(['speech.started', 'speech.completed', 'mark']);
  });

  it('closes an open utterance at teardown: speech.completed (interrupted, no mark) on the wire and in the timeline', async () => {
    const { clock, socket, audio, timeline } = setup();
    audio.push('item_1', Buffer.alloc(32_000));
    await flushMicrotasks();
    clock.advance(300);
    const frames = socket.binary.length;
    audio.closeOpenUtterances(true);
    audio.dispose();
    const wire = socket.texts.map((t) => JSON.parse(t) as { type: string; data: { utterance_id: string } });
    expect(wire.map((t) => t.type)).toEqual(['speech.started', 'speech.completed']);
    expect(wire[1]?.data.utterance_id).toBe(wire[0]?.data.utterance_id);
    expect(timeline.events().filter((e) => e.type === 'speech.completed')).toMatchObject([{ side: 'agent', utterance_id: wire[0]?.data.utterance_id, interrupted: true }]);
    clock.advance(2_000);
    await flushMicrotasks();
    expect(socket.binary.length).toBe(frames);
  });

  it('records the teardown pair in the timeline only once the socket cannot be written', async () => {
    const { clock, socket, audio, timeline } = setup();
    audio.push('item_1', Buffer.alloc(32_000));
    await flushMicrotasks();
    clock.advance(300);
    audio.closeOpenUtterances(false);
    expect(socket.texts.map((t) => (JSON.parse(t) as { type: string }).type)).toEqual(['speech.started']);
    expect(timeline.events().map((e) => e.type)).toEqual(['speech.started', 'speech.completed']);
  });

  it('has nothing to close when no utterance is open', () => {
    const { socket, audio, timeline } = setup();
    audio.closeOpenUtterances(true);
    expect(socket.texts).toEqual([]);
    expect(timeline.events()).toEqual([]);
  });

  it('reports the audio played only once it has reached the caller in real time, not at the last send', async () => {
    const { clock, socket, audio } = setup();
    let played = false;
    audio.push('item_1', Buffer.alloc(32_000)); // 1 s
    audio.finish('item_1');
    void audio.whenPlayed().then(() => (played = true));
    let sentAllAt = -1;
    for (let t = 0; t < 1_200; t += 20) {
      clock.advance(20);
      await flushMicrotasks();
      if (sentAllAt < 0 && socket.binary.length === 50) sentAllAt = clock.nowMs();
      if (clock.nowMs() < 1_000) expect(played).toBe(false);
    }
    expect(sentAllAt).toBe(780); // the last frame leaves 200 ms before it starts playing, 220 ms before the end
    expect(played).toBe(true);
  });

  it('reports it played at once in fast mode, which does not pace', async () => {
    const { audio } = setup(true);
    audio.push('item_1', Buffer.alloc(32_000));
    audio.finish('item_1');
    let played = false;
    void audio.whenPlayed().then(() => (played = true));
    await flushMicrotasks();
    expect(played).toBe(true);
  });

  it('ends a play-out wait on dispose, leaving no timer behind', async () => {
    const { clock, audio } = setup();
    audio.push('item_1', Buffer.alloc(6_400));
    audio.finish('item_1');
    let played = false;
    void audio.whenPlayed().then(() => (played = true));
    await flushMicrotasks();
    expect(played).toBe(false);
    audio.dispose();
    await flushMicrotasks();
    expect(played).toBe(true);
    expect(clock.pendingCount()).toBe(0);
  });
});
