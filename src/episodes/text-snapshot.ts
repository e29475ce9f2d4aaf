import { wavHeader } from '../audio/index.ts';
import type { Pack } from '../packs/index.ts';
import { loadSnapshot, scoreConversation, type ConversationVerdict, type SnapshotSource } from '../scoring/index.ts';
import { computeSmoke, findFirstAgentAudioMs, snapshotKey, snapshotParts, type CallRecord, type EndReason, type SnapshotPart, type Summary, type TimelineEvent, type Usage } from '../snapshot/index.ts';
import type { DatabaseDump } from '../store/index.ts';

/**
 * A text episode has no audio. Its snapshot still has all five parts (the outbox and every reader
 * expect them), so the WAV is a valid stereo 16 kHz PCM16 file with no samples: a 44-byte header.
 * The scorer never reads audio; the results pages show an empty recording.
 */
export const SILENT_WAV: Buffer = wavHeader(0, 16_000, 2);

/** What a finished text episode knows when it freezes its evidence. */
export interface TextEpisodeRecord {
  readonly pack: Pack;
  readonly callId: string;
  readonly runId: string | null;
  readonly taskId: string;
  readonly harness: string;
  readonly model: string | null;
  readonly startedAtEpochMs: number;
  readonly endedAtEpochMs: number;
  readonly endMs: number;
  readonly endReason: EndReason;
  /** Why an internal_error ended it (a failing caller), recorded as the summary's end_detail. */
  readonly endDetail: string | null;
  readonly events: readonly TimelineEvent[];
  readonly usage: Usage;
  readonly toolsExpected: boolean;
}

/** The five parts of a text episode's snapshot, built by the same code as a live call's (`snapshotParts`). */
export function textSnapshotParts(record: TextEpisodeRecord, final: DatabaseDump, templateDump: DatabaseDump, db: Buffer): { parts: Map<SnapshotPart, Buffer>; summary: Summary } {
  const smoke = computeSmoke({
    events: record.events,
    endMs: record.endMs,
    firstAgentAudioMs: findFirstAgentAudioMs(record.events),
    toolsExpected: record.toolsExpected,
    traceId: null,
    telemetryOn: false,
    clippingEvents: 0,
  });
  const call: CallRecord = {
    pack: record.pack,
    callId: record.callId,
    runId: record.runId,
    taskId: record.taskId,
    harness: record.harness,
    model: record.model,
    startedAtEpochMs: record.startedAtEpochMs,
    endedAtEpochMs: record.endedAtEpochMs,
    durationMs: record.endMs,
    endReason: record.endReason,
    closeCode: 1000,
    endDetail: record.endDetail,
    events: record.events,
    smoke,
    usage: record.usage,
    costUsd: null,
    priceTableVersion: null,
    traceId: null,
    pacing: null,
  };
  return snapshotParts(call, final, templateDump, db, SILENT_WAV);
}

/** A snapshot source over parts held in memory: the scorer reads them exactly as it reads a directory. */
export function memorySource(pack: string, callId: string, parts: ReadonlyMap<SnapshotPart, Buffer>): SnapshotSource {
  const byKey = new Map([...parts].map(([part, body]) => [snapshotKey(pack, callId, part), body]));
  return {
    root: 'memory:',
    list: async () => [...byKey.keys()].sort(),
    read: async (key) => byKey.get(key),
    uriOf: (key) => `memory:${key}`,
  };
}

/**
 * Scores a conversation's snapshot parts with the deterministic scorer, reading them through the
 * snapshot schemas (`loadSnapshot`) as `mivas score` would read them from storage. `minCallMs` is
 * 0: a text episode has no audio that could drop early (`mivas score --fast` agrees).
 */
export async function scoreParts(pack: Pack, callId: string, parts: ReadonlyMap<SnapshotPart, Buffer>): Promise<ConversationVerdict> {
  const snapshot = await loadSnapshot(memorySource(pack.id, callId, parts), pack.id, callId, new Set(parts.keys()));
  return scoreConversation({ conversationId: callId, snapshot, entry: undefined, packHint: pack.id }, { packs: new Map([[pack.id, pack]]), minCallMs: 0, allowPackDrift: false });
}
