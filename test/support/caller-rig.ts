import { join } from 'node:path';
import { seededIds, type IdSource } from '../../src/core/index.ts';
import { DEFAULT_LIMITS, planCalls, runCalls, type CallerSettings, type ConversationReport, type PlannedCall } from '../../src/caller/index.ts';
import { callerFileSchema, callerPartKey, type CallerFile } from '../../src/snapshot/index.ts';
import { directorySource, loadSnapshots, scoreRun, type ScoreReport } from '../../src/scoring/index.ts';
import type { ChatChoice, OpenAICompatibleStandIn, StandInChatRequest } from './openai-compatible.ts';
import type { TestServer } from './server.ts';
import { modemSynth } from './text-modem.ts';

/** One rule of a scripted caller model: when the agent's latest words match, answer with the choice. */
export interface BrainRule {
  readonly when: RegExp;
  readonly choice: ChatChoice;
}

/** The agent's latest words in a chat request (the last user message). */
export function lastAgentWords(request: StandInChatRequest): string {
  return [...request.messages].reverse().find((m) => m.role === 'user')?.content ?? '';
}

/** A stand-in caller model: the first rule matching the agent's latest words, else stay silent. */
export function ruleBrain(rules: readonly BrainRule[]): (request: StandInChatRequest) => ChatChoice {
  return (request) => rules.find((r) => r.when.test(lastAgentWords(request)))?.choice ?? { tool: 'stay_silent' };
}

/** Caller settings that point every endpoint at the stand-in: llm mind, stand-in ears, modem mouth (or the stand-in's speech endpoint). */
export function standInCaller(standIn: OpenAICompatibleStandIn, overrides: Partial<CallerSettings> = {}, mouth: 'modem' | 'endpoint' = 'modem'): CallerSettings {
  const endpoint = { baseUrl: standIn.baseUrl, apiKey: 'sk-caller-test' };
  return {
    kind: 'llm',
    chat: { endpoint, model: 'caller-model-standin' },
    ears: { endpoint, model: 'whisper-standin' },
    mouth: mouth === 'modem' ? { kind: 'synth', synth: modemSynth(16_000), voice: 'modem' } : { kind: 'endpoint', endpoint, model: 'tts-standin', voices: ['alloy', 'coral', 'sage'], rateHz: 24_000 },
    seedBase: 0,
    maxTurns: 20,
    limits: { ...DEFAULT_LIMITS, hangupGraceMs: 300, agentSilenceMs: 20_000 },
    cache: null,
    prices: { inputPerMTok: 0.15, cachedInputPerMTok: 0.075, outputPerMTok: 0.6, transcriptionPerMin: 0.003, speechPerMChars: 15 },
    ...overrides,
  };
}

/** What a run against a test server left: the caller reports, the caller files by call id, and the scores. */
export interface CallerRun {
  readonly calls: PlannedCall[];
  readonly reports: ConversationReport[];
  readonly callerFiles: Map<string, CallerFile>;
  readonly score: ScoreReport;
}

/** Dials tasks × trials against a running test server with the given caller, stores the caller files beside the snapshots, and scores them. */
export async function runWithCaller(server: TestServer, caller: CallerSettings, taskIds: readonly string[], options: { trials?: number; ids?: IdSource; runId?: string } = {}): Promise<CallerRun> {
  const ids = options.ids ?? seededIds(`run:${taskIds.join(',')}`);
  const runId = options.runId ?? `run_${ids.hex(12)}`;
  const calls = planCalls({ taskIds, trials: options.trials ?? 1, ids });
  const callerFiles = new Map<string, CallerFile>();
  const pack = server.ctx.pack;
  const reports = (await runCalls(
    {
      url: server.wsUrl,
      runId,
      pack,
      taskIds,
      trials: options.trials ?? 1,
      concurrency: 1,
      paced: false,
      auth: null,
      synth: modemSynth(),
      ids,
      callTimeoutMs: 60_000,
      caller,
      saveCallerFile: async (file) => {
        const parsed = callerFileSchema.parse(file);
        callerFiles.set(file.call_id, parsed);
        await server.ctx.sink.put(callerPartKey(pack.id, file.call_id), Buffer.from(`${JSON.stringify(parsed, null, 1)}\n`));
      },
    },
    calls,
    () => undefined,
  )) as ConversationReport[];
  await server.ctx.outbox.flush();
  const snapshots = await loadSnapshots(directorySource(join(server.dataDir, 'snapshots')), pack.id);
  const score = scoreRun(snapshots, new Map([[pack.id, pack]]), new Map(), { k: 1, seed: 1, resamples: 10, minCallMs: 0, allowPackDrift: false, pack: pack.id, stamp: null, flags: {} });
  return { calls, reports, callerFiles, score };
}
