import { describe, expect, it } from 'vitest';
import { createPackClock } from '../../../src/packs/pack-clock.ts';

describe('pack clock: spoken dates', () => {
  const clock = createPackClock({ now: '2026-10-08T09:00', timezone: 'America/Chicago' });

  it('says a date of the clock\'s year without its year', () => {
    expect(clock.spokenDate('2026-10-10')).toBe('Saturday, October 10');
    expect(clock.spokenDateTime('2026-10-09T13:00')).toBe('Friday, October 9 at 1 p.m.');
  });

  it('says a date of any other year with its year, so it is never heard as this year\'s', () => {
    expect(clock.spokenDate('2029-09-30')).toBe('Sunday, September 30, 2029');
    expect(clock.spokenDate('2027-11-28')).toBe('Sunday, November 28, 2027');
    expect(clock.spokenDate('2025-06-10')).toBe('Tuesday, June 10, 2025');
  });
});
