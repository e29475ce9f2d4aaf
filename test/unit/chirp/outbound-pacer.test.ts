import { describe, expect, it } from 'vitest';
import { FRAME_BYTES } from '../../../src/audio/index.ts';
import { CATCH_UP_MS, MAX_LEAD_MS, OutboundPacer, type PacerEffects } from '../../../src/chirp/outbound-pacer.ts';
import { ManualClock, type Clock, type Timer } from '../../../src/core/index.ts';

type Event =
  | { kind: 'started'; id: string; at: number }
  | { kind: 'frame'; id: string; bytes: number; at: number; positionMs: number }
  | { kind: 'completed'; id: string; interrupted: boolean; at: number }
  | { kind: 'underrun'; id: string; gapMs: number; at: number }
  | { kind: 'clockReset'; id: string; behindMs: number; at: number };

/** The pacer's effects, recorded with the clock time each happened. */
function recorder(clock: Clock): { effects: PacerEffects; events: Event[] } {
  const events: Event[] = [];
  return {
    events,
    effects: {
      utteranceStarted: (id) => events.push({ kind: 'started', id, at: clock.nowMs() }),
      frame: (pcm, id, positionMs) => events.push({ kind: 'frame', id, bytes: pcm.length, at: clock.nowMs(), positionMs }),
      utteranceCompleted: (id, _item, interrupted) => events.push({ kind: 'completed', id, interrupted, at: clock.nowMs() }),
      underrun: (id, gapMs) => events.push({ kind: 'underrun', id, gapMs, at: clock.nowMs() }),
      clockReset: (id, behindMs) => events.push({ kind: 'clockReset', id, behindMs, at: clock.nowMs() }),
    },
  };
}

function counter(): () => string {
  let n = 0;
  return () => `u_${(++n).toString(16).padStart(12, '0')}`;
}

/**
 * A clock whose timers fire late, as an event loop under load does: time moves in fixed ticks
 * and a due timer runs at the end of the tick that passes its due time.
 */
class LateClock implements Clock {
  private now = 0;
  private readonly timers: { due: number; fn: () => void; cancelled: boolean }[] = [];
  nowMs(): number {
    return this.now;
  }
  epochMs(): number {
    return this.now;
  }
  setTimer(delayMs: number, fn: () => void): Timer {
    const t = { due: this.now + Math.max(0, delayMs), fn, cancelled: false };
    this.timers.push(t);
    return { cancel: () => { t.cancelled = true; } };
  }
  tick(ms: number): void {
    this.now += ms;
    for (;;) {
      const due = this.timers.filter((t) => !t.cancelled && t.due <= this.now);
      if (!due.length) return;
      for (const t of due) {
        this.timers.splice(this.timers.indexOf(t), 1);
        t.fn();
      }
    }
  }
}

const frames = (events: Event[]) => events.flatMap((e) => (e.kind === 'frame' ? [e] : []));

describe('OutboundPacer', () => {
  it('keeps bytes sent within 32 × elapsed ms + 7,040 and takes ≥ 2.8 s to send a 3 s burst', () => {
    const clock = new ManualClock();
    const { effects, events } = recorder(clock);
    const pacer = new OutboundPacer(clock, effects, counter());
    pacer.push('item_1', Buffer.alloc(96_000 + 100, 1));
    pacer.finish('item_1');
    for (let i = 0; i < 4_000 && !pacer.isIdle(); i++) clock.advance(1);
    expect(pacer.isIdle()).toBe(true);

    const start = events.find((e) => e.kind === 'started');
    const sent = frames(events);
    expect(start).toBeDefined();
    let bytes = 0;
    for (const f of sent) {
      bytes += f.bytes;
      expect(bytes).toBeLessThanOrEqual(32 * (f.at - (start?.at ?? 0)) + 7_040);
    }
    expect(bytes).toBe(96_100);
    const last = sent.at(-1);
    expect((last?.at ?? 0) - (start?.at ?? 0)).toBeGreaterThanOrEqual(2_800);
    // Paced, not stalled: it finishes within real time.
    expect((last?.at ?? 0) - (start?.at ?? 0)).toBeLessThanOrEqual(3_000);
    // At the start it may lead by 200 ms: eleven frames go at once, no more.
    expect(sent.filter((f) => f.at === start?.at)).toHaveLength(MAX_LEAD_MS / 20 + 1);
  });

  it('holds the bound when timers fire late', () => {
    const clock = new LateClock();
    const { effects, events } = recorder(clock);
    const pacer = new OutboundPacer(clock, effects, counter());
    pacer.push('item_1', Buffer.alloc(64_000, 1));
    pacer.finish('item_1');
    const jitter = [7, 1, 13, 3, 9, 17, 2, 5];
    for (let i = 0; i < 2_000 && !pacer.isIdle(); i++) clock.tick(jitter[i % jitter.length] ?? 1);
    const t0 = events.find((e) => e.kind === 'started')?.at ?? 0;
    let bytes = 0;
    for (const f of frames(events)) {
      bytes += f.bytes;
      expect(bytes).toBeLessThanOrEqual(32 * (f.at - t0) + 7_040);
    }
    expect(bytes).toBe(64_000);
  });

  it('counts its own send intervals past the lead: even when on time, off after a stall, none across a wait for audio', () => {
    const clock = new LateClock();
    const { effects } = recorder(clock);
    const pacer = new OutboundPacer(clock, effects, counter());
    pacer.push('item_1', Buffer.alloc(FRAME_BYTES * 50, 1));
    for (let t = 0; t < 1_000; t++) clock.tick(1);
    // 50 frames: 0 to 10 leave together (the lead), so 39 intervals are paced, all 20 ms.
    expect(pacer.pacingStats()).toEqual({ intervals: 39, offOver5Ms: 0, maxOffMs: 0 });
    // The provider goes quiet for a second, then sends more: the gap is waiting, not pacing.
    pacer.push('item_1', Buffer.alloc(FRAME_BYTES * 30, 1));
    for (let t = 0; t < 300; t++) clock.tick(1);
    clock.tick(45); // a stall: one interval of 65 ms, then frames that fell due together
    for (let t = 0; t < 1_000; t++) clock.tick(1);
    const stats = pacer.pacingStats();
    expect(stats.intervals).toBe(39 + 29);
    expect(stats.offOver5Ms).toBeGreaterThanOrEqual(2);
    expect(stats.maxOffMs).toBeGreaterThanOrEqual(20);
  });

  it('sends 640-byte frames but for the last, which is even, whatever the chunking', () => {
    const clock = new ManualClock();
    const { effects, events } = recorder(clock);
    const pacer = new OutboundPacer(clock, effects, counter());
    for (const size of [1_000, 3_200, 2, 777 + 1, 4_410]) pacer.push('item_1', Buffer.alloc(size, 2));
    pacer.finish('item_1');
    clock.advance(5_000);
    const sizes = frames(events).map((f) => f.bytes);
    const total = 1_000 + 3_200 + 2 + 778 + 4_410;
    expect(sizes.reduce((a, b) => a + b, 0)).toBe(total);
    expect(sizes.slice(0, -1).every((s) => s === FRAME_BYTES)).toBe(true);
    expect(sizes.at(-1)).toBe(total % FRAME_BYTES || FRAME_BYTES);
    expect((sizes.at(-1) ?? 1) % 2).toBe(0);
  });

  it('does not send a short frame before the utterance is finished', () => {
    const clock = new ManualClock();
    const { effects, events } = recorder(clock);
    const pacer = new OutboundPacer(clock, effects, counter());
    pacer.push('item_1', Buffer.alloc(1_000, 3));
    clock.advance(1_000);
    expect(frames(events).map((f) => f.bytes)).toEqual([640]);
    pacer.finish('item_1');
    clock.advance(100);
    expect(frames(events).map((f) => f.bytes)).toEqual([640, 360]);
  });

  it('brackets each utterance: speech.started before its first frame, completed after its last, one at a time', () => {
    const clock = new ManualClock();
    const { effects, events } = recorder(clock);
    const pacer = new OutboundPacer(clock, effects, counter());
    pacer.push('item_a', Buffer.alloc(6_400, 1));
    pacer.push('item_b', Buffer.alloc(3_200, 2));
    pacer.finish('item_b');
    pacer.finish('item_a');
    clock.advance(2_000);
    expect(pacer.isIdle()).toBe(true);
    const shape = events.map((e) => (e.kind === 'frame' ? `f:${e.id}` : `${e.kind}:${e.id}`));
    const collapsed = shape.filter((s, i) => s !== shape[i - 1]);
    expect(collapsed).toEqual([
      'started:u_000000000001',
      'f:u_000000000001',
      'completed:u_000000000001',
      'started:u_000000000002',
      'f:u_000000000002',
      'completed:u_000000000002',
    ]);
    expect(frames(events).filter((f) => f.id === 'u_000000000001')).toHaveLength(10);
    expect(events.filter((e) => e.kind === 'completed').every((e) => e.kind === 'completed' && !e.interrupted)).toBe(true);
  });

  it('interrupt drops the queue, closes the utterance as interrupted and reports played ms ≤ sent ms', async () => {
    const clock = new ManualClock();
    const { effects, events } = recorder(clock);
    const pacer = new OutboundPacer(clock, effects, counter());
    pacer.push('item_1', Buffer.alloc(64_000, 1));
    pacer.push('item_2', Buffer.alloc(6_400, 1));
    pacer.finish('item_1');
    const idle = pacer.whenIdle();
    clock.advance(500);
    const sentBefore = frames(events).reduce((a, f) => a + f.bytes, 0);
    const cut = pacer.interrupt();
    expect(cut).not.toBeNull();
    expect(cut?.itemId).toBe('item_1');
    expect(cut?.sentMs).toBe(sentBefore / 32);
    expect(cut?.playedMs).toBeLessThanOrEqual(cut?.sentMs ?? -1);
    expect(cut?.playedMs).toBe(500);
    expect((cut?.sentMs ?? 0) - (cut?.playedMs ?? 0)).toBeLessThanOrEqual(MAX_LEAD_MS + 20);
    expect(events.at(-1)).toMatchObject({ kind: 'completed', id: cut?.utteranceId, interrupted: true });
    const count = events.length;
    clock.advance(5_000);
    expect(events).toHaveLength(count);
    expect(pacer.isIdle()).toBe(true);
    await idle;
    expect(pacer.interrupt()).toBeNull();
  });

  it('after an underrun restarts the clock instead of bursting', () => {
    const clock = new ManualClock();
    const { effects, events } = recorder(clock);
    const pacer = new OutboundPacer(clock, effects, counter());
    pacer.push('item_1', Buffer.alloc(6_400, 1)); // 200 ms, all of it within the lead
    clock.advance(1_000); // the model stalls for a second
    const before = frames(events).length;
    pacer.push('item_1', Buffer.alloc(32_000, 1)); // then a second of audio arrives at once
    const burst = frames(events).length - before;
    expect(burst).toBeLessThanOrEqual(MAX_LEAD_MS / 20 + 1);
    expect(events.some((e) => e.kind === 'underrun' && e.gapMs > CATCH_UP_MS)).toBe(true);
    // From the restart on, the bound holds against the new start.
    const restartAt = clock.nowMs();
    pacer.finish('item_1');
    let bytes = 0;
    for (let i = 0; i < 2_000 && !pacer.isIdle(); i++) {
      clock.advance(1);
      bytes = frames(events).slice(before).reduce((a, f) => a + f.bytes, 0);
      expect(bytes).toBeLessThanOrEqual(32 * (clock.nowMs() - restartAt) + 7_040);
    }
    expect(bytes).toBe(32_000);
  });

  it('reports a clock reset only when a stall leaves it more than CATCH_UP_MS behind', () => {
    const clock = new ManualClock();
    const { effects, events } = recorder(clock);
    const pacer = new OutboundPacer(clock, effects, counter());
    // 200 ms goes out at once (the lead); the stream is then due to play on until t = 200.
    pacer.push('item_1', Buffer.alloc(6_400, 1));
    clock.advance(260); // 60 ms behind: an underrun, the clock kept
    pacer.push('item_1', Buffer.alloc(640, 1));
    expect(events.filter((e) => e.kind === 'clockReset')).toEqual([]);
    expect(events.filter((e) => e.kind === 'underrun')).toHaveLength(1);
    clock.advance(CATCH_UP_MS + 50); // stalls again: the 12th frame was to play at 220, so 190 ms behind
    pacer.push('item_1', Buffer.alloc(640, 1));
    const resets = events.filter((e) => e.kind === 'clockReset');
    expect(resets).toEqual([{ kind: 'clockReset', id: 'u_000000000001', behindMs: 190, at: 410 }]);
    // The restarted clock is on time: the next frame is not behind.
    clock.advance(10);
    pacer.push('item_1', Buffer.alloc(640, 1));
    expect(events.filter((e) => e.kind === 'clockReset')).toHaveLength(1);
  });

  it('fast mode sends everything at once, still in 640-byte frames', () => {
    const clock = new ManualClock();
    const { effects, events } = recorder(clock);
    const pacer = new OutboundPacer(clock, effects, counter(), true);
    pacer.push('item_1', Buffer.alloc(96_000, 1));
    pacer.finish('item_1');
    expect(pacer.isIdle()).toBe(true);
    expect(frames(events)).toHaveLength(150);
    expect(frames(events).every((f) => f.bytes === 640)).toBe(true);
    expect(events.at(-1)).toMatchObject({ kind: 'completed', interrupted: false });
  });

  it('dispose stops every timer', () => {
    const clock = new ManualClock();
    const { effects, events } = recorder(clock);
    const pacer = new OutboundPacer(clock, effects, counter());
    pacer.push('item_1', Buffer.alloc(32_000, 1));
    pacer.dispose();
    const count = events.length;
    clock.advance(2_000);
    expect(events).toHaveLength(count);
    expect(clock.pendingCount()).toBe(0);
    pacer.push('item_2', Buffer.alloc(640, 1));
    expect(events).toHaveLength(count);
  });
});

describe('back-to-back utterances', () => {
  it('keep one schedule, so the lead never exceeds 200 ms across the boundary', () => {
    const clock = new ManualClock();
    const { effects, events } = recorder(clock);
    const pacer = new OutboundPacer(clock, effects, counter());
    pacer.push('a', Buffer.alloc(FRAME_BYTES * 25));
    pacer.finish('a');
    pacer.push('b', Buffer.alloc(FRAME_BYTES * 25));
    pacer.finish('b');
    for (let t = 0; t < 1_500; t += 5) clock.advance(5);
    const frames = events.filter((e): e is Extract<Event, { kind: 'frame' }> => e.kind === 'frame');
    expect(frames).toHaveLength(50);
    frames.forEach((frame, n) => {
      // Frame n of the whole stream plays at n × 20 ms; it may leave at most 200 ms earlier.
      expect(frame.at).toBeGreaterThanOrEqual(n * 20 - MAX_LEAD_MS);
      expect(frame.positionMs).toBe(n * 20);
    });
    const secondStart = events.find((e) => e.kind === 'started' && e.id !== frames[0]?.id);
    const secondFirstFrame = frames[25];
    expect(secondStart?.at).toBe(secondFirstFrame?.at);
  });
});

describe('OutboundPacer.playedOutAtMs', () => {
  it('is where the sent audio ends at the caller: the last send plus the lead and the last frame', () => {
    const clock = new ManualClock();
    const { effects, events } = recorder(clock);
    const pacer = new OutboundPacer(clock, effects, counter());
    pacer.push('item_1', Buffer.alloc(FRAME_BYTES * 25)); // 500 ms
    pacer.finish('item_1');
    clock.advance(1_000);
    const lastFrameAt = events.filter((e) => e.kind === 'frame').at(-1)?.at ?? -1;
    expect(lastFrameAt).toBe(500 - 20 - MAX_LEAD_MS);
    expect(pacer.playedOutAtMs()).toBe(500);
    expect(pacer.playedOutAtMs()).toBe(lastFrameAt + MAX_LEAD_MS + 20);
  });

  it('continues from the previous utterance when the next follows it at once', () => {
    const clock = new ManualClock();
    const pacer = new OutboundPacer(clock, recorder(clock).effects, counter());
    pacer.push('item_1', Buffer.alloc(FRAME_BYTES * 10));
    pacer.finish('item_1');
    pacer.push('item_2', Buffer.alloc(FRAME_BYTES * 10));
    pacer.finish('item_2');
    clock.advance(1_000);
    expect(pacer.playedOutAtMs()).toBe(400);
  });
});


describe('OutboundPacer timers', () => {
  it('keeps the timer armed for the next frame when audio is topped up mid-utterance: one timer per frame, none cancelled', () => {
    const clock = new ManualClock();
    let set = 0;
    let cancelled = 0;
    const counting: Clock = {
      nowMs: () => clock.nowMs(),
      epochMs: () => clock.epochMs(),
      setTimer: (ms, fn): Timer => {
        set++;
        const timer = clock.setTimer(ms, fn);
        return { cancel: () => (cancelled++, timer.cancel()) };
      },
    };
    const { effects, events } = recorder(clock);
    const pacer = new OutboundPacer(counting, effects, counter());
    const chunk = Buffer.alloc(5 * FRAME_BYTES); // 100 ms, as a provider delta arrives
    let chunksLeft = 20;
    const topUp = (): void => {
      while (chunksLeft > 0 && pacer.queuedMs() < 400) {
        chunksLeft--;
        pacer.push('item_1', chunk);
      }
      if (chunksLeft === 0) pacer.finish('item_1');
    };
    topUp();
    while (!pacer.isIdle()) {
      clock.advance(1);
      topUp();
    }
    const frames = events.filter((e) => e.kind === 'frame');
    expect(frames).toHaveLength(100);
    // The schedule is unchanged: frame n leaves at n × 20 ms − 200 ms (never before 0).
    expect(frames.map((f) => f.at)).toEqual(frames.map((_, n) => Math.max(0, n * 20 - MAX_LEAD_MS)));
    // Frames 0–10 leave at once; each later frame needed one timer, and no push re-armed one.
    expect(set).toBe(frames.length - MAX_LEAD_MS / 20 - 1);
    expect(cancelled).toBe(0);
  });
});
