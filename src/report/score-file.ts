import { z } from 'zod';
import { parseJson } from '../core/index.ts';
import type { ScoreReport } from '../scoring/index.ts';

/**
 * The outline of scores.json that the pages rely on. The file is our own scorer's export
 * (scoring.md §9), so the outline guards against a wrong or truncated file rather than
 * re-validating every verdict field.
 */
const scoresOutline = z.object({
  meta: z.object({ scorer_version: z.string(), k: z.number().int().positive(), bootstrap: z.object({ seed: z.number(), resamples: z.number(), prng: z.string() }), packs: z.array(z.unknown()) }),
  conversations: z.array(z.object({ conversation_id: z.string(), pack: z.string(), status: z.enum(['PASS', 'FAIL', 'VOID', 'UNMAPPED', 'PENDING']), evidence: z.object({}).loose(), quality: z.object({}).loose(), cost: z.object({}).loose() }).loose()),
  tasks: z.array(z.object({ task_id: z.string(), pack: z.string() }).loose()),
  aggregates: z.object({ headline: z.object({}).loose(), status: z.object({}).loose(), headline_status: z.object({}).loose() }),
  breakdowns: z.object({ pack: z.array(z.unknown()), category: z.array(z.unknown()), difficulty: z.array(z.unknown()), audio_condition: z.array(z.unknown()) }),
  leaderboard: z.array(z.object({ rows: z.array(z.unknown()) }).loose()),
});

/** The result of reading scores.json: the report, or why it cannot be used. */
export type ScoreFileResult = { readonly ok: true; readonly report: ScoreReport } | { readonly ok: false; readonly problem: string };

/** Parses a scores.json written by `mivas score`. */
export function parseScoreFile(text: string): ScoreFileResult {
  const json = parseJson(text);
  if (!json.ok) return { ok: false, problem: 'scores.json is not JSON' };
  const parsed = scoresOutline.safeParse(json.value);
  if (!parsed.success) return { ok: false, problem: `scores.json does not look like a mivas score export: ${parsed.error.issues.slice(0, 3).map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}` };
  // The outline held; the rest of the shape is the scorer's own ScoreReport (same code wrote it).
  return { ok: true, report: json.value as ScoreReport };
}
