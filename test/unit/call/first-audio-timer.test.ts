import { describe, expect, it } from 'vitest';
import { FirstAudioTimer } from '../../../src/call/first-audio-timer.ts';
import { ManualClock } from '../../../src/core/index.ts';

function setup(): { clock: ManualClock; timer: FirstAudioTimer; recorded: [string | null, number][] } {
  const clock = new ManualClock();
  const recorded: [string | null, number][] = [];
  const timer = new FirstAudioTimer(clock, (responseId, ttftMs) => recorded.push([responseId, ttftMs]));
  return { clock, timer, recorded };
}

describe('FirstAudioTimer', () => {
  it('times a response from its latest trigger to its first audio only', () => {
    const { clock, timer, recorded } = setup();
    timer.triggered(); // a nudge that was dropped
    clock.advance(3_000);
    timer.triggered(); // the nudge that was answered
    clock.advance(100);
    timer.responseStarted('resp_1');
    clock.advance(250);
    timer.audioArrived();
    clock.advance(40);
    timer.audioArrived();
    timer.responseDone();
    expect(recorded).toEqual([['resp_1', 350]]);
  });

  it('does not time a response without audio, nor one that nothing asked for', () => {
    const { clock, timer, recorded } = setup();
    timer.triggered();
    timer.responseStarted('resp_tool_only');
    timer.responseDone();
    clock.advance(500);
    timer.responseStarted('resp_unprompted');
    timer.audioArrived();
    expect(recorded).toEqual([]);
  });

  it('times from the end of caller speech when the model answers on its own', () => {
    const { clock, timer, recorded } = setup();
    clock.advance(5_000);
    timer.triggered(); // callerSpeechStopped
    clock.advance(620);
    timer.responseStarted(null);
    timer.audioArrived();
    expect(recorded).toEqual([[null, 620]]);
  });
});
