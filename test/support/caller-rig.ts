import { join } from 'node:path';
import { seededIds, type IdSource } from '../../src/core/index.ts';
import { DEFAULT_LIMITS, planCalls, runCalls, type CallerSettings, type ConversationReport, type PlannedCall } from '../../src/caller/index.ts';
import { callerFileSchema, callerPartKey, type CallerFile } from '../../src/snapshot/index.ts';
import { directorySource, loadSnapshots, scoreRun, type ScoreReport } from '../../src/scoring/index.ts';
import type { ChatChoice, OpenAICompatibleStandIn, StandInChatRequest } from './openai-compatible.ts';
import { decodeAudio, type StandInConnection } from './realtime-server.ts';
import type { TestServer } from './server.ts';
import { decodeModemAll, encodeModem, modemSynth } from './text-modem.ts';

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

/**
 * Plays the agent model on a realtime stand-in connection: says lines as modem audio with their
 * transcripts, makes tool calls and hand-offs, and reads back the caller's lines from the audio
 * the harness appended.
 */
export class AgentPlayer {
  private turnItems = 0;

  readonly conn: StandInConnection;

  constructor(conn: StandInConnection) {
    this.conn = conn;
  }

  /** Waits for the greeting nudge, then greets. */
  async greet(text: string): Promise<void> {
    await this.conn.next('response.create');
    this.say(text);
  }

  say(text: string): void {
    this.conn.respond([{ audio: encodeModem(text, 24_000), transcript: text }]);
  }

  /** The caller's complete lines so far, decoded from its audio. */
  callerLines(): string[] {
    return decodeModemAll(Buffer.concat(this.conn.received('input_audio_buffer.append').map(decodeAudio)), 24_000);
  }

  /** Waits for the caller's `count`-th line, reports it to the model as the provider's transcript, and returns it. */
  async callerLine(count: number): Promise<string> {
    await this.conn.waitFor(() => this.callerLines().length >= count, `caller line ${count}`);
    const line = this.callerLines()[count - 1] ?? '';
    this.conn.send({ type: 'conversation.item.input_audio_transcription.completed', item_id: `in_${++this.turnItems}`, content_index: 0, transcript: line });
    return line;
  }

  /** One function call answered by the server, then the follow-up response.create. */
  async call(name: string, args: Record<string, unknown> = {}): Promise<string> {
    const sent = this.conn.respond([{ call: { name, args } }]);
    const output = await this.conn.toolOutput(sent.callIds[0] ?? '');
    await this.conn.next('response.create');
    return output;
  }
}
