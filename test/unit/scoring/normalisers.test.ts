import { describe, expect, it } from 'vitest';
import { caseFold, normalise, sameValue } from '../../../src/scoring/normalisers.ts';

const eq = (name: Parameters<typeof normalise>[0], a: unknown, b: unknown): boolean => sameValue(normalise(name, a).value, normalise(name, b).value);

describe('normalisers (scoring.md §4.1)', () => {
  it('text folds case and whitespace, including ß → ss', () => {
    expect(caseFold('  Straße   Park\tAve ')).toBe('strasse park ave');
    expect(eq('text', 'STRASSE', 'straße')).toBe(true);
    expect(eq('text', 'Ｐａｒｋ', 'park')).toBe(true);
  });

  it('datetime_minute truncates seconds; a value with +05:00 or Z is unparsed and unequal', () => {
    expect(normalise('datetime_minute', '2026-10-13T14:00:59.5')).toEqual({ value: '2026-10-13T14:00', unparsed: false });
    expect(eq('datetime_minute', '2026-10-13T14:00:00', '2026-10-13T14:00')).toBe(true);
    for (const zoned of ['2026-10-13T14:00:00+05:00', '2026-10-13T14:00Z']) {
      expect(normalise('datetime_minute', zoned)).toEqual({ value: zoned, unparsed: true });
      expect(eq('datetime_minute', zoned, '2026-10-13T14:00')).toBe(false);
    }
    expect(normalise('datetime_minute', '2026-10-13T25:00').unparsed).toBe(true);
  });

  it('a date-only value under datetime_minute is kept raw and flagged unparsed', () => {
    expect(normalise('datetime_minute', '2026-10-13')).toEqual({ value: '2026-10-13', unparsed: true });
  });

  it('"1" vs 1 fails under exact and passes under number', () => {
    expect(eq('exact', '1', 1)).toBe(false);
    expect(eq('number', '1', 1)).toBe(true);
    expect(eq('number', '1.0', 1)).toBe(true);
  });

  it('true vs 1 fails under exact and passes under bool', () => {
    expect(eq('exact', true, 1)).toBe(false);
    expect(eq('bool', true, 1)).toBe(true);
    expect(eq('bool', 'false', 0)).toBe(true);
  });

  it('phone_e164 makes (212) 555-0100 equal +12125550100', () => {
    expect(eq('phone_e164', '(212) 555-0100', '+12125550100')).toBe(true);
    expect(normalise('phone_e164', 'call me').unparsed).toBe(true);
  });

  it('money_cents makes "$45.00" equal 4500', () => {
    expect(eq('money_cents', '$45.00', 4500)).toBe(true);
    expect(eq('money_cents', 4500, 4500)).toBe(true);
    expect(eq('money_cents', '45.5', 4550)).toBe(true);
  });

  it('set_text makes reordered lists equal and a missing element unequal', () => {
    expect(eq('set_text', ['Acne', 'rosacea '], ['ROSACEA', 'acne'])).toBe(true);
    expect(eq('set_text', '["acne","rosacea"]', ['rosacea', 'acne'])).toBe(true);
    expect(eq('set_text', ['acne', 'rosacea'], ['acne'])).toBe(false);
  });

  it('date keeps ISO dates and flags anything else', () => {
    expect(normalise('date', '2026-10-07')).toEqual({ value: '2026-10-07', unparsed: false });
    expect(normalise('date', '2026-02-30').unparsed).toBe(true);
  });

  it('key order never matters and 1 equals 1.0', () => {
    expect(sameValue({ a: 1, b: 2 }, { b: 2, a: 1.0 })).toBe(true);
  });
});
