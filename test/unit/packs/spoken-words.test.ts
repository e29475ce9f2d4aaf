import { describe, expect, it } from 'vitest';
import { dateInWords, moneyInWords, numberInWords, ordinalInWords, timeInWords } from '../../../src/packs/index.ts';

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
});
