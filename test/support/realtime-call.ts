import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createSpeechSynth, type SpeechSynth } from '../../src/audio/index.ts';
import type { ManualClock } from '../../src/core/index.ts';
import { dialOpeningLine, type CallerReport } from '../../src/caller/index.ts';
import type { AppContextOverrides } from '../../src/server/index.ts';
import { summarySchema, timelineFileSchema, type Summary, type TimelineEvent } from '../../src/snapshot/index.ts';
import { RealtimeStandIn, type StandInDialect } from './realtime-server.ts';
import { startTestServer, type TestServer } from './server.ts';

/** The pack every realtime integration test runs. */
export const PACK = 'control-industry';
/** What the local caller says once the greeting has played (task S-E1's opening line). */
export const OPENING_LINE = "Hi, I'd like to book a repair visit for Wednesday, October seventh.";

/** A real mivas server whose harness dials a local realtime stand-in. */
export interface RealtimeRig {
  readonly standIn: RealtimeStandIn;
  readonly server: TestServer;
  readonly synth: SpeechSynth;
  close(): Promise<void>;
}

/** Harness name → the env that points it at the stand-in with a test key. */
function harnessEnv(harness: string, standIn: RealtimeStandIn): Record<string, string> {
  switch (harness) {
    case 'openai/realtime':
      return { OPENAI_API_KEY: 'sk-test', MIVAS_OPENAI_BASE_URL: standIn.baseUrl('/v1') };
    case 'azure/realtime':
      return { AZURE_OPENAI_API_KEY: 'az-test', MIVAS_AZURE_BASE_URL: standIn.baseUrl('/openai/v1'), MIVAS_AZURE_DEPLOYMENT: 'my-realtime' };
    case 'xai/grok-voice':
      return { XAI_API_KEY: 'xai-test', MIVAS_XAI_BASE_URL: standIn.baseUrl('/v1') };
    case 'qwen/omni-realtime':
      return { DASHSCOPE_API_KEY: 'ds-test', MIVAS_QWEN_BASE_URL: standIn.baseUrl('/api-ws/v1'), MIVAS_QWEN_WORKSPACE: 'ws-test' };
    default:
      throw new Error(`no stand-in settings for ${harness}`);
  }
}

/** Starts a stand-in and the real server with `harness` pointed at it (tone speech: no espeak needed). */
export async function startRealtimeRig(harness: string, env: Record<string, string> = {}, overrides: AppContextOverrides = {}, dialect: StandInDialect = 'ga'): Promise<RealtimeRig> {
  const standIn = await RealtimeStandIn.start({ dialect });
  const synth = await createSpeechSynth(16_000, { preferTones: true });
  const server = await startTestServer({ MIVAS_HARNESS: harness, MIVAS_PACK: PACK, ...harnessEnv(harness, standIn), ...env }, { synth, ...overrides });
  return {
    standIn,
    server,
    synth,
    async close() {
      await server.close();
      await standIn.close();
    },
  };
}

/** Dials the rig with the local CHIRP caller (paced, continuous hold audio, as Bluejay sends). */
export function dial(rig: RealtimeRig, callId: string): Promise<CallerReport> {
  return dialOpeningLine({ url: rig.server.wsUrl, callId, taskId: null, runId: null, auth: null, openingLine: OPENING_LINE, synth: rig.synth, paced: true, timeoutMs: 60_000 });
}

/** A written snapshot's summary and timeline, read through the snapshot schemas. */
export async function readSnapshot(server: TestServer, callId: string): Promise<{ summary: Summary; events: readonly TimelineEvent[] }> {
  await server.ctx.outbox.flush();
  const dir = join(server.dataDir, 'snapshots', PACK);
  const json = (part: string): unknown => JSON.parse(readFileSync(join(dir, `${callId}.${part}`), 'utf8'));
  return { summary: summarySchema.parse(json('summary.json')), events: timelineFileSchema.parse(json('timeline.json')).events };
}

/** Timeline events of one type, narrowed. */
export function eventsOf<T extends TimelineEvent['type']>(events: readonly TimelineEvent[], type: T): Extract<TimelineEvent, { type: T }>[] {
  return events.filter((e): e is Extract<TimelineEvent, { type: T }> => e.type === type);
}

/**
 * Moves an injected clock forward in small steps, letting sockets and timers run between them,
 * until `done` settles (the pacer and the play-out wait only move with the clock). Gives up after
 * `maxMs` of clock time and returns `done` either way.
 */
export async function advanceUntil<T>(clock: ManualClock, done: Promise<T>, stepMs = 20, maxMs = 30_000): Promise<T> {
  let settled = false;
  void done.then(
    () => (settled = true),
    () => (settled = true),
  );
  for (let elapsed = 0; !settled && elapsed < maxMs; elapsed += stepMs) {
    clock.advance(stepMs);
    await new Promise((resolve) => setImmediate(resolve));
  }
  return done;
}
