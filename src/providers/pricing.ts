import { z } from 'zod';
import type { Usage } from '../snapshot/index.ts';
import prices from './prices.json' with { type: 'json' };

/** The six price classes of wire.md §2.9, in USD per 1M tokens. */
const tokenPricesSchema = z
  .object({
    input_text: z.number().nonnegative(),
    input_audio: z.number().nonnegative(),
    cached_text: z.number().nonnegative(),
    cached_audio: z.number().nonnegative(),
    output_text: z.number().nonnegative(),
    output_audio: z.number().nonnegative(),
  })
  .strict();

/** Where every row's price comes from, and the day it was read. */
const provenance = { source: z.string().min(1), checked: z.iso.date() };

/**
 * A model is priced per token (OpenAI, Azure, Gemini, Nova, a cascade's LLM), per session minute
 * (xAI, GPT-Live), or known to be unpriced (no published price was found: `unpriced` says so, and its
 * calls have no cost).
 */
const modelPriceSchema = z.union([
  z.object({ per_million_tokens: tokenPricesSchema, ...provenance }).strict(),
  z.object({ per_minute: z.number().nonnegative(), ...provenance }).strict(),
  z.object({ unpriced: z.string().min(1), ...provenance }).strict(),
]);

/** The price table file: one version string and prices keyed by normalised model id. */
export const priceTableSchema = z.object({ version: z.string().min(1), note: z.string().optional(), models: z.record(z.string(), modelPriceSchema) }).strict();
export type PriceTable = z.infer<typeof priceTableSchema>;

/** The shipped price table (src/providers/prices.json): prices are data, never harness code. */
export const PRICE_TABLE: PriceTable = priceTableSchema.parse(prices);

/** A call's estimated cost and the table version it came from. */
export interface CostEstimate {
  /** Null when the model is unknown or absent from the table. */
  readonly costUsd: number | null;
  /** Null when no model was priced (keyless harnesses). */
  readonly priceTableVersion: string | null;
}

/** What a call asks for at hangup: the cost of its usage on its model over its duration. */
export type CostEstimator = (model: string | null, usage: Usage, durationMs: number) => CostEstimate;

/**
 * Lowercase, without a provider prefix (`openai/`, `x-ai/`) or a date suffix (`-2025-08-28`,
 * `-20250828`), so that dated snapshots and routed ids share one price row (wire.md §2.9).
 */
export function normaliseModelId(model: string): string {
  const bare = model.trim().toLowerCase().split('/').pop() ?? '';
  return bare.replace(/-\d{4}-\d{2}-\d{2}$/, '').replace(/-\d{8}$/, '');
}

/** USD for usage in the six classes; the Usage record already holds input text and audio net of cached tokens. */
function tokenCost(p: z.infer<typeof tokenPricesSchema>, u: Usage): number {
  const micro =
    u.input_text_tokens * p.input_text +
    u.input_audio_tokens * p.input_audio +
    u.cached_text_tokens * p.cached_text +
    u.cached_audio_tokens * p.cached_audio +
    u.output_text_tokens * p.output_text +
    u.output_audio_tokens * p.output_audio;
  return micro / 1_000_000;
}

/** Rounds to a millionth of a dollar so sums of floats stay stable in summaries. */
function roundUsd(usd: number): number {
  return Math.round(usd * 1_000_000) / 1_000_000;
}

/** Estimates a call's cost from a price table; pure. */
export function estimateCostWith(table: PriceTable, model: string | null, usage: Usage, durationMs: number): CostEstimate {
  if (model === null) return { costUsd: null, priceTableVersion: null };
  const price = table.models[normaliseModelId(model)];
  if (!price || 'unpriced' in price) return { costUsd: null, priceTableVersion: table.version };
  const usd = 'per_minute' in price ? (Math.max(0, durationMs) / 60_000) * price.per_minute : tokenCost(price.per_million_tokens, usage);
  return { costUsd: roundUsd(usd), priceTableVersion: table.version };
}

/**
 * Why a model's calls show no cost, as `unpriced: <why>`: its row says it is unpriced, or the table
 * has no row for it. Null when the table prices it, or when no model was used.
 */
export function unpricedNoteWith(table: PriceTable, model: string | null): string | null {
  if (model === null) return null;
  const price = table.models[normaliseModelId(model)];
  if (!price) return `unpriced: no row for ${model} in prices.json`;
  return 'unpriced' in price ? `unpriced: ${price.unpriced}` : null;
}

/** `unpricedNoteWith` on the shipped price table. */
export const unpricedNote = (model: string | null): string | null => unpricedNoteWith(PRICE_TABLE, model);

/** Estimates a call's cost from the shipped price table (the app's CostEstimator). */
export const estimateCost: CostEstimator = (model, usage, durationMs) => estimateCostWith(PRICE_TABLE, model, usage, durationMs);
