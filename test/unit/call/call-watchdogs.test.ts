import { describe, expect, it } from 'vitest';
import { CallWatchdogs } from '../../../src/call/call-watchdogs.ts';
import { ManualClock } from '../../../src/core/index.ts';
import type { EndReason } from '../../../src/snapshot/index.ts';

interface Limits {
  maxCallMs: number;
  callerSilenceMs: number;
  pingIntervalMs: number;
}

/** Started watchdogs on a manual clock with a host that records what they did, and stops them on end as the call does. */
function setup(limits: Partial<Limits> = {}) {
  const clock = new ManualClock();
  const log: string[] = [];
  const ends: { reason: EndReason; code: number; callerClosed: boolean; at: number }[] = [];
  let lastFrameMs = 0;
  const watchdogs: CallWatchdogs = new CallWatchdogs(
    clock,
    { maxCallMs: 600_000, callerSilenceMs: 60_000, pingIntervalMs: 20_000, ...limits },
    {
      lastCallerFrameMs: () => lastFrameMs,
      ping: () => log.push(`ping@${clock.nowMs()}`),
      terminate: () => log.push(`terminate@${clock.nowMs()}`),
      end: (reason, code, callerClosed) => {
        ends.push({ reason, code, callerClosed, at: clock.nowMs() });
        watchdogs.stop();
      },
    },
  );
  watchdogs.start();
  /** The caller sends a frame now. */
  const frame = (): void => {
    lastFrameMs = clock.nowMs();
  };
  /** Moves the clock in 1 s steps, the caller sending a frame at each while `talking`. */
  const run = (ms: number, talking = true): void => {
    for (let t = 0; t < ms; t += 1_000) {
      if (talking) frame();
      clock.advance(1_000);
    }
  };
  return { clock, log, ends, watchdogs, run, frame };
}

describe('CallWatchdogs', () => {
  it('ends the call at its maximum duration with max_duration and 1000', () => {
    const { ends, run } = setup({ maxCallMs: 30_000 });
    run(29_000);
    expect(ends).toEqual([]);
    run(1_000);
    expect(ends).toEqual([{ reason: 'max_duration', code: 1000, callerClosed: false, at: 30_000 }]);
  });

  it('ends a call whose caller sent no frame for the silence limit with caller_silence', () => {
    const { ends, run } = setup({ callerSilenceMs: 5_000 });
    run(10_000); // frames keep it alive
    expect(ends).toEqual([]);
    run(10_000, false); // last frame at 9 s
    expect(ends).toEqual([{ reason: 'caller_silence', code: 1000, callerClosed: false, at: 14_000 }]);
  });

  it('pings every interval and keeps a peer that answers', () => {
    const { log, ends, watchdogs, run } = setup();
    for (let i = 0; i < 4; i++) {
      run(20_000);
      watchdogs.pong();
    }
    expect(log).toEqual(['ping@20000', 'ping@40000', 'ping@60000', 'ping@80000']);
    expect(ends).toEqual([]);
  });

  it('drops a peer that has not answered by the next ping as a caller hangup (1006, socket closed)', () => {
    const { log, ends, run } = setup();
    run(20_000);
    expect(log).toEqual(['ping@20000']);
    run(20_000);
    expect(log).toEqual(['ping@20000', 'terminate@40000']);
    expect(ends).toEqual([{ reason: 'caller_hangup', code: 1006, callerClosed: true, at: 40_000 }]);
  });

  it('ends after the farewell cap with the given reason unless the call ended first', () => {
    const { ends, watchdogs, run } = setup();
    run(3_000);
    watchdogs.endAfter(20_000, 'human_transfer');
    run(19_000);
    expect(ends).toEqual([]);
    run(1_000);
    expect(ends).toEqual([{ reason: 'human_transfer', code: 1000, callerClosed: false, at: 23_000 }]);
  });

  it('cancels every timer on stop, the farewell cap included, and starts none after it', () => {
    const { clock, ends, log, watchdogs, run } = setup({ maxCallMs: 10_000, callerSilenceMs: 2_000 });
    watchdogs.endAfter(5_000, 'agent_end_call');
    watchdogs.stop();
    expect(clock.pendingCount()).toBe(0);
    watchdogs.endAfter(1_000, 'agent_end_call');
    expect(clock.pendingCount()).toBe(0);
    run(60_000, false);
    expect(ends).toEqual([]);
    expect(log).toEqual([]);
  });
});
