import { blueprintSchema, type Blueprint } from '../packs/index.ts';
import type { ConversationVerdict } from '../scoring/index.ts';
import { snapshotKey, summarySchema, timelineFileSchema, type Summary, type TimelineEvent } from '../snapshot/index.ts';
import { SAFE_ID } from './ui-model.ts';
import { waveformPeaks, type WaveformPeaks } from './waveform.ts';

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
}

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

/**
 * Loads the evidence of one conversation through the snapshot schemas. `wav` receives the
 * recording's bytes when present, so the static export can copy them while it computes peaks.
 */
export async function loadConversationEvidence(read: SnapshotReader, v: ConversationVerdict, blueprint: Blueprint | null, wav?: (bytes: Buffer | Uint8Array) => Promise<void> | void): Promise<ConversationEvidence> {
  // Keys are built only from ids in the snapshot key alphabet, never from anything path-like.
  if (!PACK_ID.test(v.pack) || !SAFE_ID.test(v.conversation_id)) return { events: null, summary: null, peaks: null, audioHref: null, blueprint };
  const timeline = timelineFileSchema.safeParse(parseJson(await read(snapshotKey(v.pack, v.conversation_id, 'timeline.json'))));
  const summary = summarySchema.safeParse(parseJson(await read(snapshotKey(v.pack, v.conversation_id, 'summary.json'))));
  const audio = v.evidence.audio_uri ? await read(snapshotKey(v.pack, v.conversation_id, 'wav')) : null;
  if (audio && wav) await wav(audio);
  return {
    events: timeline.success ? [...timeline.data.events].sort((a, b) => a.seq - b.seq) : null,
    summary: summary.success ? summary.data : null,
    peaks: audio ? waveformPeaks(audio) : null,
    audioHref: audio ? audioHref(v.conversation_id) : null,
    blueprint,
  };
}
