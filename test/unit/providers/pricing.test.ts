import { describe, expect, it } from 'vitest';
import { estimateCost, estimateCostWith, normaliseModelId, PRICE_TABLE, priceTableSchema } from '../../../src/providers/index.ts';
import { emptyUsage, type Usage } from '../../../src/snapshot/index.ts';

const USAGE: Usage = {
  ...emptyUsage(),
  input_text_tokens: 1_000_000,
  input_audio_tokens: 2_000_000,
  cached_text_tokens: 3_000_000,
  cached_audio_tokens: 4_000_000,
  output_text_tokens: 5_000_000,
  output_audio_tokens: 6_000_000,
};

describe('the price table and estimateCost (wire.md §2.9)', () => {
  it('ships one versioned data file that parses', () => {
    expect(priceTableSchema.parse(PRICE_TABLE).version).toMatch(/\S/);
    expect(Object.keys(PRICE_TABLE.models)).toEqual(expect.arrayContaining(['gpt-realtime-2.1', 'gpt-realtime-2.1-mini', 'grok-voice-latest']));
  });

  it.each([
    ['gpt-realtime-2.1', 'gpt-realtime-2.1'],
    ['GPT-Realtime-2.1', 'gpt-realtime-2.1'],
    ['openai/gpt-realtime-2.1-mini', 'gpt-realtime-2.1-mini'],
    ['gpt-realtime-2.1-2026-08-28', 'gpt-realtime-2.1'],
    ['gpt-realtime-2.1-mini-20261215', 'gpt-realtime-2.1-mini'],
    ['x-ai/grok-voice-latest', 'grok-voice-latest'],
  ])('normalises %s to %s', (raw, normal) => {
    expect(normaliseModelId(raw)).toBe(normal);
  });

  it('prices each of the six classes at its own rate per 1M tokens', () => {
    // 4 + 2×32 + 3×0.4 + 4×0.4 + 5×24 + 6×64
    expect(estimateCost('openai/gpt-realtime-2.1-2026-08-28', USAGE, 0)).toEqual({ costUsd: 4 + 64 + 1.2 + 1.6 + 120 + 384, priceTableVersion: PRICE_TABLE.version });
  });

  it('prices per-minute models by duration, whatever the tokens', () => {
    expect(estimateCost('grok-voice-latest', USAGE, 90_000).costUsd).toBeCloseTo(0.12, 9);
    expect(estimateCost('grok-voice-latest', emptyUsage(), 30_000).costUsd).toBeCloseTo(0.04, 9);
  });

  it('reports an unknown model as unpriced and a keyless harness as not priced at all', () => {
    expect(estimateCost('my-azure-deployment', USAGE, 1_000)).toEqual({ costUsd: null, priceTableVersion: PRICE_TABLE.version });
    expect(estimateCost(null, USAGE, 1_000)).toEqual({ costUsd: null, priceTableVersion: null });
  });

  it('is pure over the table it is given', () => {
    const table = priceTableSchema.parse({ version: 't1', models: { m: { per_million_tokens: { input_text: 1, input_audio: 0, cached_text: 0, cached_audio: 0, output_text: 0, output_audio: 0 } } } });
    expect(estimateCostWith(table, 'M', { ...emptyUsage(), input_text_tokens: 500_000 }, 0)).toEqual({ costUsd: 0.5, priceTableVersion: 't1' });
  });
});
