/**
 * Scoring as snapshots are read: each conversation is scored when its set arrives, its verdict is
 * written to the spill file and only its row is kept, so a run's memory is a small row per
 * conversation, never its snapshots or verdicts. The rows then go to `reportOf` exactly as
 * `scoreRun` would have scored the same snapshots held at once.
 */
import type { MappingEntry } from './mapping.ts';
import type { LoadedSnapshot } from './sources.ts';
import { scoreConversation, type ScoringContext } from './verdict.ts';
import type { SpilledVerdict, VerdictSpill } from './verdict-spill.ts';

/** One conversation scored as it was read: what is kept once its snapshot is let go (rows; the verdicts are in the spill). */
export interface StreamedVerdict {
  readonly callId: string;
  readonly run: string;
  /** Scored with its mapping entry (if the mapping has one). */
  readonly verdict: SpilledVerdict;
  /** Scored without the mapping (several runs are scored without it); the same verdict when the mapping has no entry for it. */
  readonly bare: SpilledVerdict;
}

/** Scores one snapshot now; `bare` is scored apart only when asked and the mapping names this conversation. */
export function scoreStreamed(snapshot: LoadedSnapshot, run: string, ctx: ScoringContext, mapping: ReadonlyMap<string, MappingEntry>, packHint: string | null, withBare: boolean, spill: VerdictSpill): StreamedVerdict {
  const entry = mapping.get(snapshot.callId);
  const input = { conversationId: snapshot.callId, snapshot, entry, packHint };
  const verdict = spill.add(scoreConversation(input, ctx));
  const bare = entry && withBare ? spill.add(scoreConversation({ ...input, entry: undefined }, ctx)) : verdict;
  return { callId: snapshot.callId, run, verdict, bare };
}

/**
 * The verdicts of a run as `scoreRun` makes them: one per conversation id (the last set read under
 * an id, as its lookup by id keeps), plus the mapping's conversations that left no snapshot.
 * `ctx.packs` must be the run's packs (a mapping entry without a pack is placed by them).
 */
export function streamedVerdicts(streamed: readonly StreamedVerdict[], mapping: ReadonlyMap<string, MappingEntry>, ctx: ScoringContext, packHint: string | null, spill: VerdictSpill): SpilledVerdict[] {
  const byId = new Map(streamed.map((s) => [s.callId, mapping.size ? s.verdict : s.bare]));
  for (const entry of mapping.values()) {
    if (byId.has(entry.conversation_id) || (packHint && entry.pack && entry.pack !== packHint)) continue;
    byId.set(entry.conversation_id, spill.add(scoreConversation({ conversationId: entry.conversation_id, snapshot: null, entry, packHint }, ctx)));
  }
  return [...byId.values()];
}
