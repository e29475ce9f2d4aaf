import { describe, expect, it } from 'vitest';
import { GreetingNudge } from '../../../src/call/greeting-nudge.ts';
import { ManualClock } from '../../../src/core/index.ts';

function setup(onSend: (attempt: number, nudge: GreetingNudge) => void = () => undefined) {
  const clock = new ManualClock();
  const sends: { attempt: number; at: number }[] = [];
  const nudge: GreetingNudge = new GreetingNudge(clock, 3_000, 5, (attempt) => {
    sends.push({ attempt, at: clock.nowMs() });
    onSend(attempt, nudge);
    return true;
  });
  return { clock, sends, nudge };
}

describe('GreetingNudge', () => {
  it('sends exactly 5 nudges 3 s apart when every one is ignored', () => {
    const { clock, sends, nudge } = setup();
    nudge.start();
    clock.advance(60_000);
    expect(sends).toEqual([0, 3_000, 6_000, 9_000, 12_000].map((at, i) => ({ attempt: i + 1, at })));
    expect(nudge.sent()).toBe(5);
    expect(clock.pendingCount()).toBe(0);
  });

  it('sends exactly 1 when the first is answered', () => {
    const { clock, sends, nudge } = setup();
    nudge.start();
    clock.advance(800); // agent audio arrives
    nudge.stop();
    clock.advance(60_000);
    expect(sends).toHaveLength(1);
    expect(nudge.sent()).toBe(1);
  });

  it('stops between attempts when audio arrives late', () => {
    const { clock, sends, nudge } = setup();
    nudge.start();
    clock.advance(6_500);
    nudge.stop();
    clock.advance(60_000);
    expect(sends.map((s) => s.at)).toEqual([0, 3_000, 6_000]);
  });

  it('keeps its schedule when a send throws', () => {
    const { clock, sends, nudge } = setup((attempt) => {
      if (attempt < 3) throw new Error('response already active');
    });
    expect(() => nudge.start()).not.toThrow();
    clock.advance(60_000);
    expect(sends).toHaveLength(5);
  });

  it('starts once, and not at all after stop', () => {
    const { clock, sends, nudge } = setup();
    nudge.start();
    nudge.start();
    clock.advance(1);
    expect(sends).toHaveLength(1);
    const stopped = setup();
    stopped.nudge.stop();
    stopped.nudge.start();
    stopped.clock.advance(60_000);
    expect(stopped.sends).toHaveLength(0);
  });

  it('does not count a skipped send and tries again after the delay', () => {
    const clock = new ManualClock();
    const sent: { attempt: number; at: number }[] = [];
    // The owner skips while a response is open: here from 2.5 s to 7 s.
    const nudge = new GreetingNudge(clock, 3_000, 3, (attempt) => {
      const now = clock.nowMs();
      if (now >= 2_500 && now < 7_000) return false;
      sent.push({ attempt, at: now });
      return true;
    });
    nudge.start();
    clock.advance(60_000);
    expect(sent).toEqual([
      { attempt: 1, at: 0 },
      { attempt: 2, at: 9_000 },
      { attempt: 3, at: 12_000 },
    ]);
    expect(nudge.sent()).toBe(3);
    expect(clock.pendingCount()).toBe(0);
  });

  it('follows the configured delay and count', () => {
    const clock = new ManualClock();
    const at: number[] = [];
    new GreetingNudge(clock, 1_500, 3, () => at.push(clock.nowMs()) > 0).start();
    clock.advance(60_000);
    expect(at).toEqual([0, 1_500, 3_000]);
  });
});
