import { describe, expect, it } from 'vitest';
import { createPackClock } from '../../../src/packs/pack-clock.ts';

describe('pack clock: spoken dates, in words as the desks must say them', () => {
  const clock = createPackClock({ now: '2026-10-08T09:00', timezone: 'America/Chicago' });

  it('says a date of the clock\'s year without its year, and a time in words', () => {
    expect(clock.spokenDate('2026-10-10')).toBe('Saturday, October tenth');
    expect(clock.spokenDateTime('2026-10-09T13:00')).toBe('Friday, October ninth at one p.m.');
    expect(clock.spokenDateTime('2026-10-21T09:05')).toBe('Wednesday, October twenty-first at nine oh five a.m.');
  });

  it('says a date of any other year with its year, so it is never heard as this year\'s', () => {
    expect(clock.spokenDate('2029-09-30')).toBe('Sunday, September thirtieth, twenty twenty-nine');
    expect(clock.spokenDate('2027-11-28')).toBe('Sunday, November twenty-eighth, twenty twenty-seven');
    expect(clock.spokenDate('2025-06-10')).toBe('Tuesday, June tenth, twenty twenty-five');
  });

  it('never puts a digit in a spoken date or time', () => {
    for (let day = 0; day < 400; day += 7) {
      const date = clock.addDays('2026-01-01', day);
      expect(clock.spokenDateTime(`${date}T${String(7 + (day % 11)).padStart(2, '0')}:${day % 2 ? '30' : '00'}`)).not.toMatch(/\d/);
    }
  });
});
