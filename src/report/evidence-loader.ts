import { blueprintSchema, type Blueprint } from '../packs/index.ts';
import type { ConversationVerdict } from '../scoring/index.ts';
import { snapshotKey, summarySchema, timelineFileSchema, type Summary, type TimelineEvent } from '../snapshot/index.ts';
import { z } from 'zod';
import { mediaMap, type MediaMap } from './media-map.ts';
import { SAFE_ID } from './ui-model.ts';
import { voicedRuns, waveformPeaks, type WaveformPeaks } from './waveform.ts';

/**
 * The caller's own record (`<pack>/<call_id>.caller.json`, written by mivas's conversational
 * caller): read leniently for its kind, seed and the words it said, so both sides of the
 * transcript show even when the timeline has only the agent's.
 */
const callerRecordSchema = z
  .object({
    kind: z.string(),
    model: z.string().nullable().optional(),
    seed: z.number().nullable().optional(),
    turns: z.array(z.object({ side: z.enum(['agent', 'caller']), utterance_id: z.string().nullable().optional(), text: z.string(), source: z.string().nullable().optional() }).loose()).default([]),
  })
  .loose();

/** One caller line from the caller's record. */
export interface CallerTurn {
  readonly utteranceId: string | null;
  readonly text: string;
  readonly source: string | null;
}

/** What a conversation page shows beyond the verdict: re-read from the snapshot, never trusted raw. */
export interface ConversationEvidence {
  /** The timeline, in seq order; null when the snapshot has none. */
  readonly events: readonly TimelineEvent[] | null;
  readonly summary: Summary | null;
  readonly peaks: WaveformPeaks | null;
  /** The recording's href relative to the page; null when there is no WAV. */
  readonly audioHref: string | null;
  /** The pack's specialist graph, for drawing expected vs actual paths. */
  readonly blueprint: Blueprint | null;
  /** Where timeline moments sit in the recording (the identity unless a `--fast` run parted the clocks). */
  readonly media: MediaMap;
  /** The caller's kind, seed and lines, when the caller left a record. */
  readonly caller: { readonly kind: string; readonly seed: number | null; readonly model: string | null; readonly turns: readonly CallerTurn[] } | null;
}

/**
 * What the export does with a recording: returns the href the page links (a copy it wrote, a
 * compact copy, or the store's own file), null to leave it out, or nothing for `audio/<id>.wav`.
 */
export type AudioPlacer = (bytes: Buffer | Uint8Array) => Promise<string | null | void> | string | null | void;

const PACK_ID = /^[a-z][a-z0-9-]*$/;

/** Reads one key under the snapshot root (a directory, an S3 prefix or the server's sink). */
export type SnapshotReader = (key: string) => Promise<Buffer | Uint8Array | null | undefined>;

function parseJson(bytes: Buffer | Uint8Array | null | undefined): unknown {
  if (!bytes) return undefined;
  try {
    return JSON.parse(Buffer.from(bytes).toString('utf8'));
  } catch {
    return undefined;
  }
}

/** Parses a pack's blueprint.json bytes; null when absent or invalid. */
export function parseBlueprint(bytes: Buffer | Uint8Array | null | undefined): Blueprint | null {
  const parsed = blueprintSchema.safeParse(parseJson(bytes));
  return parsed.success ? parsed.data : null;
}

/** Where a conversation's recording is linked from its page (flat layout: `audio/<id>.wav`). */
export function audioHref(conversationId: string): string {
  return `audio/${conversationId}.wav`;
}

/** The key of a conversation's caller record (ids already checked against the key alphabet). */
export function callerRecordKey(pack: string, conversationId: string): string {
  return `${pack}/${conversationId}.caller.json`;
}

/** Parses a caller record's bytes; null when absent or unreadable. */
export function parseCallerRecord(bytes: Buffer | Uint8Array | null | undefined): ConversationEvidence['caller'] {
  const parsed = callerRecordSchema.safeParse(parseJson(bytes));
  if (!parsed.success) return null;
  const d = parsed.data;
  return { kind: d.kind, seed: d.seed ?? null, model: d.model ?? null, turns: d.turns.filter((t) => t.side === 'caller').map((t) => ({ utteranceId: t.utterance_id ?? null, text: t.text, source: t.source ?? null })) };
}

/**
 * Loads the evidence of one conversation through the snapshot schemas. `audio` receives the
 * recording's bytes when present and says what the page links (see `AudioPlacer`).
 */
export async function loadConversationEvidence(read: SnapshotReader, v: ConversationVerdict, blueprint: Blueprint | null, audio?: AudioPlacer): Promise<ConversationEvidence> {
  // Keys are built only from ids in the snapshot key alphabet, never from anything path-like.
  if (!PACK_ID.test(v.pack) || !SAFE_ID.test(v.conversation_id)) return { events: null, summary: null, peaks: null, audioHref: null, blueprint, media: mediaMap(null, null, null), caller: null };
  const timeline = timelineFileSchema.safeParse(parseJson(await read(snapshotKey(v.pack, v.conversation_id, 'timeline.json'))));
  const summary = summarySchema.safeParse(parseJson(await read(snapshotKey(v.pack, v.conversation_id, 'summary.json'))));
  const wav = v.evidence.audio_uri ? await read(snapshotKey(v.pack, v.conversation_id, 'wav')) : null;
  const caller = parseCallerRecord(await read(callerRecordKey(v.pack, v.conversation_id)).catch(() => null));
  const placed = wav && audio ? await audio(wav) : undefined;
  const events = timeline.success ? [...timeline.data.events].sort((a, b) => a.seq - b.seq) : null;
  const peaks = wav ? waveformPeaks(wav) : null;
  return {
    events,
    summary: summary.success ? summary.data : null,
    peaks,
    audioHref: wav ? (placed === undefined ? audioHref(v.conversation_id) : placed) : null,
    blueprint,
    media: mediaMap(events, peaks?.durationMs ?? null, wav ? voicedRuns(wav) : null),
    caller,
  };
}
