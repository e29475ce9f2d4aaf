import { describe, expect, it } from 'vitest';
import { normalizePhone } from '../../../src/packs/index.ts';
import { normalise } from '../../../src/scoring/index.ts';

describe('one phone reading for tools and the scorer (issue 18, defect 11)', () => {
  it.each([
    ['(212) 555-0100', '+12125550100'],
    ['1 212 555 0100', '+12125550100'],
    ['+44 20 7946 0958', '+442079460958'],
    ['44 20 7946 0958', null],
    ['212-555-010', null],
    ['call me at 212 555 0100', null],
  ])('%s', (text, e164) => {
    const tool = normalizePhone(text);
    const scored = normalise('phone_e164', text);
    expect(tool).toBe(e164 ?? text);
    expect(scored.unparsed ? null : scored.value).toBe(e164);
  });
});
