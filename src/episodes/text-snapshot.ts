import { wavHeader } from '../audio/index.ts';
import type { Pack } from '../packs/index.ts';
import { scoreConversation, type ConversationVerdict, type LoadedSnapshot } from '../scoring/index.ts';
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
  /** The timeline's own text of `events` (`Timeline.json()`). */
  readonly timelineJson: string;
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
    timelineJson: record.timelineJson,
    smoke,
    usage: record.usage,
    costUsd: null,
    priceTableVersion: null,
    traceId: null,
    pacing: null,
  };
  return snapshotParts(call, final, templateDump, db, SILENT_WAV);
}

/** What a frozen text episode holds in memory: the objects its snapshot parts were written from. */
export interface FrozenEpisode {
  readonly summary: Summary;
  readonly events: readonly TimelineEvent[];
  readonly final: DatabaseDump;
}

/**
 * Scores a text episode with the deterministic scorer from the objects its parts were written
 * from, as `mivas score` scores the parts read back (`loadSnapshot`), without parsing them again:
 * every timeline event passed the snapshot schema when it was added, the summary and the final
 * rows are what `summary.json` and `final.json` hold. Synchronous, so the step that ends an
 * episode never waits on the event loop for its reward. `minCallMs` is 0: a text episode has no
 * audio that could drop early (`mivas score --fast` agrees). The replay prints
 * (test/integration/episode-replay-prints.test.ts) hold its verdicts equal to the parsed parts'.
 */
export function scoreFrozen(pack: Pack, callId: string, frozen: FrozenEpisode): ConversationVerdict {
  const snapshot: LoadedSnapshot = {
    pack: pack.id,
    callId,
    summary: frozen.summary,
    events: [...frozen.events].sort((a, b) => a.seq - b.seq),
    final: frozen.final,
    finalFrom: 'json',
    problems: [],
    snapshotUri: `${pack.id}/${callId}`,
    audioUri: snapshotKey(pack.id, callId, 'wav'),
    caller: null,
  };
  return scoreConversation({ conversationId: callId, snapshot, entry: undefined, packHint: pack.id }, { packs: new Map([[pack.id, pack]]), minCallMs: 0, allowPackDrift: false });
}
