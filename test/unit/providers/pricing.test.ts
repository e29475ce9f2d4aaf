import { describe, expect, it } from 'vitest';
import { createSpeechSynth } from '../../../src/audio/index.ts';
import { loadConfig } from '../../../src/config.ts';
import { ManualClock } from '../../../src/core/index.ts';
import { createHarnessFactory, estimateCost, estimateCostWith, HARNESS_NAMES, normaliseModelId, PRICE_TABLE, priceTableSchema, type CallInfo, unpricedNoteWith } from '../../../src/providers/index.ts';
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
    const table = priceTableSchema.parse({ version: 't1', models: { m: { per_million_tokens: { input_text: 1, input_audio: 0, cached_text: 0, cached_audio: 0, output_text: 0, output_audio: 0 }, source: 'a test', checked: '2026-12-01' } } });
    expect(estimateCostWith(table, 'M', { ...emptyUsage(), input_text_tokens: 500_000 }, 0)).toEqual({ costUsd: 0.5, priceTableVersion: 't1' });
  });

  it('refuses a row without its source and date, and prices a row known to be unpriced as null', () => {
    const tokens = { input_text: 1, input_audio: 0, cached_text: 0, cached_audio: 0, output_text: 0, output_audio: 0 };
    expect(priceTableSchema.safeParse({ version: 't1', models: { m: { per_million_tokens: tokens } } }).success).toBe(false);
    expect(priceTableSchema.safeParse({ version: 't1', models: { m: { per_minute: 1, source: 's', checked: 'yesterday' } } }).success).toBe(false);
    const table = priceTableSchema.parse({ version: 't1', models: { m: { unpriced: 'no published price', source: 's', checked: '2026-12-01' } } });
    expect(estimateCostWith(table, 'm', USAGE, 60_000)).toEqual({ costUsd: null, priceTableVersion: 't1' });
  });

  it('says why a model is unpriced: its row\'s reason, or no row at all; nothing for a priced model or none', () => {
    const table = priceTableSchema.parse({ version: 't1', models: { m: { unpriced: 'no published price', source: 's', checked: '2026-12-01' }, p: { per_minute: 1, source: 's', checked: '2026-12-01' } } });
    expect(unpricedNoteWith(table, 'M-2026-01-01')).toBe('unpriced: no published price');
    expect(unpricedNoteWith(table, 'custom-deployment')).toBe('unpriced: no row for custom-deployment in prices.json');
    expect(unpricedNoteWith(table, 'p')).toBeNull();
    expect(unpricedNoteWith(table, null)).toBeNull();
  });
});

/** What each registered harness's calls are priced by with the default settings (a cascade by its chat model, which has no default). */
const DEFAULT_ENV = {
  MIVAS_LOG_LEVEL: 'silent',
  OPENAI_API_KEY: 'k',
  AZURE_OPENAI_API_KEY: 'k',
  MIVAS_AZURE_BASE_URL: 'wss://r.openai.azure.com/openai/v1',
  XAI_API_KEY: 'k',
  DASHSCOPE_API_KEY: 'k',
  GEMINI_API_KEY: 'k',
  PHONIC_API_KEY: 'k',
  MIVAS_CASCADE_STT_BASE_URL: 'http://127.0.0.1:1/v1',
  MIVAS_CASCADE_LLM_BASE_URL: 'http://127.0.0.1:1/v1',
  MIVAS_CASCADE_LLM_MODEL: 'gpt-4.1-mini',
  MIVAS_CASCADE_TTS_BASE_URL: 'http://127.0.0.1:1/v1',
};

describe('a price row for every registered harness', () => {
  it('has a row (a price, or the documented reason there is none) for the model every provider harness bills by default', async () => {
    const loaded = loadConfig(DEFAULT_ENV);
    if (!loaded.ok) throw new Error(loaded.problems.join('\n'));
    const providers = loaded.config.providers;
    const synth = await createSpeechSynth(16_000, { preferTones: true });
    const call = { callId: 'c', pack: null, taskId: null } as unknown as CallInfo;
    const billed = new Map<string, readonly string[]>();
    // The keyless harnesses (scripted, noop) run no model and bill nothing: estimateCost(null) is null.
    // A relay's model is the team's own agent, billed by its platform (docs/platforms.md): no row either.
    for (const name of HARNESS_NAMES.filter((n) => n !== 'scripted' && n !== 'noop' && !n.startsWith('relay/'))) {
      const session = createHarnessFactory(name, { synth, clock: new ManualClock(), noopWaitMs: 1_000, providers }).create(call);
      const components = name === 'cascaded' ? [providers.cascaded.stt.model, providers.cascaded.tts.model].filter((m): m is string => m !== undefined) : [];
      billed.set(name, [...(session.model === null ? [] : [session.model]), ...components]);
      await session.close();
    }
    expect([...billed].filter(([, models]) => models.length === 0)).toEqual([]);
    const missing = [...billed].flatMap(([name, models]) => models.filter((m) => !PRICE_TABLE.models[normaliseModelId(m)]).map((m) => `${name}: ${m}`));
    expect(missing).toEqual([]);
    for (const name of ['google/gemini-live', 'aws/nova-sonic', 'cascaded']) {
      const row = PRICE_TABLE.models[normaliseModelId(billed.get(name)?.[0] ?? '')];
      expect(row && 'per_million_tokens' in row, name).toBe(true);
    }
  });
});
