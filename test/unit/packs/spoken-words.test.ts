import { describe, expect, it } from 'vitest';
import { dateInWords, moneyInWords, numberInWords, ordinalInWords, timeInWords, yearInWords } from '../../../src/packs/index.ts';

describe('spoken words for scripts read word for word', () => {
  it('writes numbers, money, dates and times with no digit or symbol', () => {
    expect(numberInWords(48)).toBe('forty-eight');
    expect(numberInWords(1249)).toBe('one thousand two hundred forty-nine');
    expect(ordinalInWords(21)).toBe('twenty-first');
    expect(moneyInWords(15000)).toBe('one hundred fifty dollars');
    expect(moneyInWords(2499)).toBe('twenty-four dollars and ninety-nine cents');
    expect(moneyInWords(101)).toBe('one dollar and one cent');
    expect(moneyInWords(99)).toBe('ninety-nine cents');
    expect(dateInWords('2026-10-07')).toBe('Wednesday, October seventh');
    expect(timeInWords('14:30')).toBe('two thirty p.m.');
    expect(timeInWords('09:05')).toBe('nine oh five a.m.');
    expect(timeInWords('12:00')).toBe('twelve p.m.');
    expect(() => numberInWords(1.5)).toThrow(RangeError);
    for (const said of [moneyInWords(123456), dateInWords('2026-12-31'), timeInWords('23:59')]) expect(said).not.toMatch(/[0-9$%]/);
  });

  it('says the year of a date outside the clock\'s year, in words', () => {
    expect(yearInWords(2027)).toBe('twenty twenty-seven');
    expect(yearInWords(2030)).toBe('twenty thirty');
    expect(yearInWords(2005)).toBe('two thousand five');
    expect(yearInWords(2000)).toBe('two thousand');
    expect(yearInWords(1979)).toBe('nineteen seventy-nine');
    expect(yearInWords(1905)).toBe('nineteen oh five');
    expect(yearInWords(1900)).toBe('nineteen hundred');
    expect(dateInWords('2026-11-28', '2026-10-08')).toBe('Saturday, November twenty-eighth');
    expect(dateInWords('2027-11-28', '2026-10-08')).toBe('Sunday, November twenty-eighth, twenty twenty-seven');
    expect(dateInWords('2027-11-28', '2026-10-08')).not.toMatch(/[0-9]/);
  });
});
