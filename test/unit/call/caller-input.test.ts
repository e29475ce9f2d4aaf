import { describe, expect, it } from 'vitest';
import { CallerInputBudget, TEXT_FRAME_BURST, TEXT_FRAMES_PER_S } from '../../../src/call/caller-input.ts';
import { ManualClock } from '../../../src/core/index.ts';

const FRAME = 640; // 20 ms of PCM16 at 16 kHz

describe('CallerInputBudget', () => {
  it('takes real-time audio for the whole call, and a burst up to the lead', () => {
    const clock = new ManualClock();
    const budget = new CallerInputBudget(clock, { audioLeadMs: 2_000, maxCallMs: 60_000, fast: false });
    for (let f = 0; f < 1_500; f++) {
      expect(budget.audio(FRAME)).toBeNull();
      clock.advance(20);
    }
    // A stall, then the held-back audio in one burst: 2 s ahead is still within the lead.
    for (let f = 0; f < 100; f++) expect(budget.audio(FRAME)).toBeNull();
    expect(budget.audioSeconds()).toBeCloseTo(32, 5);
  });

  it('calls audio beyond the lead ahead of real time a flood', () => {
    const clock = new ManualClock();
    const budget = new CallerInputBudget(clock, { audioLeadMs: 2_000, maxCallMs: 60_000, fast: false });
    clock.advance(1_000);
    let flood: string | null = null;
    let frames = 0;
    while (!flood && frames < 10_000) {
      flood = budget.audio(FRAME);
      frames++;
    }
    // 1 s elapsed + 2 s lead = 150 frames accepted; the 151st is the flood.
    expect(frames).toBe(151);
    expect(flood).toMatch(/ahead of real time/);
  });

  it('in fast mode bounds only the total, by the maximum call duration plus the lead', () => {
    const clock = new ManualClock();
    const budget = new CallerInputBudget(clock, { audioLeadMs: 1_000, maxCallMs: 10_000, fast: true });
    for (let f = 0; f < 550; f++) expect(budget.audio(FRAME)).toBeNull();
    expect(budget.audio(FRAME)).toMatch(/MIVAS_MAX_CALL_S/);
  });

  it('takes a burst of text frames and a steady rate after it, then calls the rest a flood', () => {
    const clock = new ManualClock();
    const budget = new CallerInputBudget(clock, { audioLeadMs: 1_000, maxCallMs: 60_000, fast: false });
    for (let i = 0; i < TEXT_FRAME_BURST; i++) expect(budget.text()).toBeNull();
    expect(budget.text()).toMatch(/text frames/);
    const steady = new CallerInputBudget(clock, { audioLeadMs: 1_000, maxCallMs: 60_000, fast: false });
    for (let s = 0; s < 60; s++) {
      for (let i = 0; i < TEXT_FRAMES_PER_S; i++) expect(steady.text()).toBeNull();
      clock.advance(1_000);
    }
  });
});
