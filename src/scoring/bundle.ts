/**
 * Result bundles (docs/ui.md, "Publishing a result"): one run's scores with the sha256 of every
 * snapshot file they came from, the suite, reward rules and tools that produced them, and a
 * checksum of every file, so anyone can re-score the snapshots and check each figure. The pieces
 * here are pure; reading and writing files is the CLI's.
 */
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { canonicalJson } from '../core/index.ts';
import { scoresJson } from './exports.ts';
import type { ScoreOptions, ScoreReport } from './score-run.ts';
import type { JudgeScores } from './types.ts';

/** The bundle format's name and version, written first in `bundle.json`. */
export const BUNDLE_FORMAT = 'mivas-bundle/1';

/** The manifest's own file name; every other file of the bundle is listed in its `files`. */
export const BUNDLE_MANIFEST = 'bundle.json';

/** The folder inside a bundle that holds the snapshots when `--with-snapshots` put them there. */
export const BUNDLE_SNAPSHOTS_DIR = 'snapshots';

const hex = z.string().regex(/^[0-9a-f]{64}$/);

const suiteSchema = z.object({ id: z.string(), pack_version: z.string(), template_hash: z.string(), task_set_hash: z.string(), policy_hash: z.string() }).strict();

export const bundleManifestSchema = z
  .object({
    format: z.literal(BUNDLE_FORMAT),
    run_id: z.string(),
    mivas_version: z.string(),
    /** The scorer's rules (gates, reward, estimators): `SCORER_VERSION`. */
    scorer_version: z.string(),
    /** Each pack scored: suite (`pack_version`, `task_set_hash`) and its reward policy (`policy_hash`). */
    suites: z.array(suiteSchema),
    harnesses: z.array(z.string()),
    models: z.array(z.string()),
    caller: z.object({ kind: z.string(), seed: z.string().nullable(), model: z.string().nullable() }).strict(),
    conversations: z.number().int().min(0),
    snapshots_included: z.boolean(),
    /** Every snapshot file the scores came from: `<pack>/<call_id>.<part>` → sha256 and size. */
    snapshots: z.array(z.object({ key: z.string(), sha256: hex, bytes: z.number().int().min(0) }).strict()),
    /** Every other file of the bundle (relative path → sha256). */
    files: z.record(z.string(), hex),
  })
  .strict();

export type BundleManifest = z.infer<typeof bundleManifestSchema>;

/** sha256 hex of a file's bytes. */
export function sha256Hex(bytes: Buffer | string): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** The keys of a conversation's snapshot files among `keys` (`<pack>/<call_id>.<part>`). */
export function conversationKeys(keys: readonly string[], snapshotUri: string): string[] {
  return keys.filter((k) => k.startsWith(`${snapshotUri}.`)).sort();
}

/** The parts of `scores.json` a re-score needs: the options it was scored with. */
const scoredMetaSchema = z.object({
  meta: z.object({
    k: z.number(),
    bootstrap: z.object({ seed: z.number(), resamples: z.number() }),
    flags: z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()])),
    stamp: z.string().optional(),
  }),
  conversations: z.array(
    z.object({
      conversation_id: z.string(),
      run_id: z.string().nullable(),
      evidence: z.object({ snapshot_uri: z.string().nullable() }),
      diagnostics: z.object({ judge: z.object({ model: z.string(), prompt_version: z.string(), scores: z.record(z.string(), z.number()) }).strict().nullable() }).optional(),
    }),
  ),
});

/** What a bundle needs from a stored `scores.json`: the options it was scored with and where each conversation came from. */
export interface StoredScores {
  readonly options: ScoreOptions;
  readonly conversations: readonly { readonly conversation_id: string; readonly run_id: string | null; readonly snapshot_uri: string | null }[];
  /** The judge scores `mivas score --judge` laid on (an annotation: carried over, not re-asked). */
  readonly judged: ReadonlyMap<string, JudgeScores>;
}

/** Reads a parsed `scores.json` (the options exactly as recorded, so a re-score uses the same ones); null when it is not one. */
export function readStoredScores(scores: unknown): StoredScores | null {
  const parsed = scoredMetaSchema.safeParse(scores);
  if (!parsed.success) return null;
  const { meta, conversations } = parsed.data;
  const flag = (name: string): string | number | boolean | null => meta.flags[name] ?? null;
  const pack = flag('pack');
  return {
    options: {
      k: meta.k,
      seed: meta.bootstrap.seed,
      resamples: meta.bootstrap.resamples,
      minCallMs: Number(flag('min_call_s') ?? 20) * 1000,
      allowPackDrift: flag('allow_pack_drift') === true,
      pack: typeof pack === 'string' ? pack : null,
      stamp: meta.stamp ?? null,
      flags: meta.flags,
    },
    conversations: conversations.map((c) => ({ conversation_id: c.conversation_id, run_id: c.run_id, snapshot_uri: c.evidence.snapshot_uri })),
    judged: new Map(conversations.flatMap((c) => (c.diagnostics?.judge ? [[c.conversation_id, c.diagnostics.judge] as const] : []))),
  };
}

/** One conversation's verdict as stored, by id (canonical JSON, so key order never matters). */
function verdictsById(conversations: readonly unknown[]): Map<string, string> {
  return new Map(conversations.map((c) => [String((c as { conversation_id?: unknown }).conversation_id), canonicalJson(c)]));
}

/**
 * What differs between the stored `scores.json` and a re-score: the conversations whose verdict
 * changed, appeared or vanished, and whether anything else (aggregates, meta) differs.
 */
export function scoreDifferences(stored: { readonly text: string; readonly conversations: readonly unknown[] }, fresh: ScoreReport): { conversations: string[]; other: boolean } {
  const before = verdictsById(stored.conversations);
  const after = verdictsById(fresh.conversations);
  const ids = [...new Set([...before.keys(), ...after.keys()])].sort();
  const conversations = ids.filter((id) => before.get(id) !== after.get(id));
  const other = conversations.length === 0 && stored.text !== scoresJson(fresh);
  return { conversations, other };
}
