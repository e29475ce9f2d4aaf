import { addSpeech, OFFLINE_FIRST_ACTION_MS, openOfflineTimeline, type OfflineOptions } from '../conversation/index.ts';
import type { Pack } from '../packs/index.ts';
import { buildSummary, emptyUsage, type CallRecord, type EndReason, type FinalState, type Smoke, type Summary, type TimelineEvent, type TimelineEventInput } from '../snapshot/index.ts';
import type { LoadedSnapshot } from './sources.ts';

/**
 * Snapshots of offline conversations, as the scorer reads them: summaries, and hand-written
 * timelines for scorer tests that need evidence no live conversation makes (tampered agents,
 * provider errors, truncation). Replayed conversations come from the engine's
 * `replayOffline`; nothing here runs a tool.
 */

/** One step of a hand-written timeline (media offsets advance by 1 s per step). */
export type SyntheticStep =
  | { readonly kind: 'speech'; readonly side: 'caller' | 'agent'; readonly text?: string }
  | { readonly kind: 'tool'; readonly event: Omit<Extract<TimelineEventInput, { type: 'tool' }>, 'type'> }
  | { readonly kind: 'handoff'; readonly from: string; readonly to: string }
  | { readonly kind: 'provider_error'; readonly fatal: boolean };

/** How a hand-written call starts and ends: an offline conversation's options, with the pack by id. */
export type SyntheticCallOptions = Omit<OfflineOptions, 'pack' | 'databases'> & { readonly pack: string };

function addStep(timeline: ReturnType<typeof openOfflineTimeline>, step: SyntheticStep, atMs: number, index: number): void {
  switch (step.kind) {
    case 'speech':
      return addSpeech(timeline, step.side, atMs, `u${index}`, step.text ?? `${step.side} line ${index}`);
    case 'tool':
      timeline.add({ type: 'tool', ...step.event }, atMs);
      return;
    case 'handoff':
      timeline.add({ type: 'handoff', from: step.from, to: step.to }, atMs);
      return;
    case 'provider_error':
      timeline.add({ type: 'provider.error', code: 'server_error', message: 'synthetic', fatal: step.fatal }, atMs);
      return;
  }
}

/** Builds a timeline: call.started, optional greeting and caller line, the steps, then call.ended. */
export function syntheticTimeline(steps: readonly SyntheticStep[], options: SyntheticCallOptions): TimelineEvent[] {
  const timeline = openOfflineTimeline(options, () => 0);
  let atMs = OFFLINE_FIRST_ACTION_MS;
  steps.forEach((step, i) => {
    addStep(timeline, step, atMs, i);
    atMs += 1000;
  });
  if (!options.omitEnd) timeline.add({ type: 'call.ended', end_reason: options.endReason ?? 'agent_end_call', close_code: options.closeCode ?? 1000 }, options.endAtMs ?? Math.max(60_000, atMs));
  return [...timeline.events()];
}

/** The smoke rubric of a synthetic call: every check passed. */
const SYNTHETIC_SMOKE: Smoke = { both_sides_spoke: true, tools_recorded: true, trace_id_present: null, dead_air_max_s: 2, dead_air_ok: true, outbound_dropouts: 0, clipping_events: 0, clean_audio: true, first_agent_audio_ms: 500, first_audio_ok: true, pass: true };

/**
 * A summary consistent with a synthetic timeline, written by the one summary builder
 * (`buildSummary`) over a one-minute call with no usage, no cost and no rows written; fields can
 * be overridden.
 */
export function syntheticSummary(pack: Pick<Pack, 'id' | 'packVersion' | 'templateHash'>, options: SyntheticCallOptions & { readonly startedAt?: string; readonly model?: string | null }, overrides: Partial<Summary> = {}): Summary {
  const record: CallRecord = {
    pack,
    callId: options.callId,
    runId: options.runId ?? null,
    taskId: options.taskId,
    harness: options.harness ?? 'scripted',
    model: options.model ?? null,
    startedAtEpochMs: Date.parse(options.startedAt ?? '2026-10-05T13:00:00.000Z'),
    endedAtEpochMs: Date.parse('2026-10-05T13:01:00.000Z'),
    durationMs: 60_000,
    endReason: options.endReason ?? 'agent_end_call',
    closeCode: options.closeCode ?? 1000,
    events: [],
    smoke: SYNTHETIC_SMOKE,
    usage: emptyUsage(),
    costUsd: null,
    priceTableVersion: null,
    traceId: null,
    pacing: null,
  };
  return { ...buildSummary(record, 0), ...overrides };
}

/** A loaded snapshot from in-memory parts, as the scorer would read it from storage. */
export function syntheticSnapshot(pack: string, callId: string, summary: Summary | null, events: TimelineEvent[] | null, final: FinalState | null): LoadedSnapshot {
  const problems = [...(summary ? [] : ['missing:summary.json']), ...(events ? [] : ['missing:timeline.json']), ...(final ? [] : ['missing:final.json', 'missing:db'])];
  return { pack, callId, summary, events, final, finalFrom: final ? 'json' : null, problems, snapshotUri: `${pack}/${callId}`, audioUri: null };
}

