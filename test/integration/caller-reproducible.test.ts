import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seededIds } from '../../src/core/index.ts';
import { directoryCache, type CallerSettings } from '../../src/caller/index.ts';
import type { CallerFile } from '../../src/snapshot/index.ts';
import { lastAgentWords, runWithCaller, standInCaller, type CallerRun } from '../support/caller-rig.ts';
import { OpenAICompatibleStandIn, type ChatChoice, type StandInChatRequest } from '../support/openai-compatible.ts';
import { decodeAudio, RealtimeStandIn, type StandInConnection } from '../support/realtime-server.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { decodeModemAll, encodeModem } from '../support/text-modem.ts';

const PACK = 'healthcare';
const TASK = 'C1-E1';
const AGENT_LINES = ['Thank you for calling Straus Dermatology. How can I help you today?', 'Let me look into that for you.', 'Our Park Avenue office accepts Aetna.', 'Is there anything else I can help you with?'];
const WORDS = ['alright', 'okay', 'sure', 'got it', 'great', 'I see', 'mm-hm', 'right'];

/**
 * A caller model that is NOT deterministic on its own: its free lines depend on how many
 * requests it has served so far (and on the seed), as a sampled model's would. Only the cache
 * (or the replay) makes a repeated run identical.
 */
function driftingBrain(): (request: StandInChatRequest, index: number) => ChatChoice {
  return (request, index) => {
    if (/anything else/i.test(lastAgentWords(request))) return { tool: 'say_pin', args: { pin: 4 } };
    const word = WORDS[(index + (request.seed ?? 0)) % WORDS.length] ?? 'okay';
    return { tool: 'say_line', args: { text: `${word[0]?.toUpperCase()}${word.slice(1)}, thank you.` } };
  };
}

/** Plays the agent: each line as modem audio, then waits for the caller's answer (every line gets one here). */
async function playAgent(realtime: RealtimeStandIn): Promise<string[]> {
  const conn = await realtime.nextConnection();
  await conn.next('response.create');
  const heard = (c: StandInConnection): string[] => decodeModemAll(Buffer.concat(c.received('input_audio_buffer.append').map(decodeAudio)), 24_000);
  for (const [i, line] of AGENT_LINES.entries()) {
    conn.respond([{ audio: encodeModem(line, 24_000), transcript: line }]);
    await conn.waitFor(() => heard(conn).length > i, `caller answer ${i + 1}`);
  }
  return heard(conn);
}

function linesOf(file: CallerFile | undefined): string {
  return JSON.stringify(file?.turns.filter((t) => t.side === 'caller').map((t) => t.text));
}

/** Issue 16, acceptance 2: same seed + cache → byte-identical caller lines; the frozen replay re-speaks a recorded call. */
describe('reproducible callers: the cache and the frozen replay', () => {
  let realtime: RealtimeStandIn;
  let standIn: OpenAICompatibleStandIn;
  let server: TestServer;
  let cacheDir: string;
  let run: number;

  const dial = async (caller: CallerSettings, trials = 1): Promise<{ run: CallerRun; heard: string[][] }> => {
    run++;
    const running = runWithCaller(server, caller, [TASK], { trials, ids: seededIds(`repro-${run}`) });
    const heard: string[][] = [];
    for (let t = 0; t < trials; t++) heard.push(await playAgent(realtime));
    return { run: await running, heard };
  };

  beforeAll(async () => {
    run = 0;
    cacheDir = mkdtempSync(join(tmpdir(), 'mivas-caller-cache-'));
    realtime = await RealtimeStandIn.start();
    standIn = await OpenAICompatibleStandIn.start({ chat: driftingBrain() });
    server = await startTestServer({ MIVAS_PACK: PACK, MIVAS_HARNESS: 'openai/realtime', MIVAS_FAST: '1', OPENAI_API_KEY: 'sk-test', MIVAS_OPENAI_BASE_URL: realtime.baseUrl('/v1') });
  });
  afterAll(async () => {
    await server?.close();
    await standIn?.close();
    await realtime?.close();
    if (cacheDir) rmSync(cacheDir, { recursive: true, force: true });
  });

  it('two runs with the same seed and the cache produce byte-identical caller lines; without the cache they drift', async () => {
    const cache = directoryCache(cacheDir);
    const first = await dial(standInCaller(standIn, { cache }));
    const asked = standIn.requests.length;
    const second = await dial(standInCaller(standIn, { cache: directoryCache(cacheDir) }));
    const firstFile = [...first.run.callerFiles.values()][0];
    const secondFile = [...second.run.callerFiles.values()][0];
    expect(linesOf(secondFile)).toBe(linesOf(firstFile));
    expect(second.heard).toEqual(first.heard);
    // Nothing new was asked: every chat and transcription came from the cache.
    expect(standIn.requests.length).toBe(asked);
    expect(secondFile?.exchanges.every((e) => e.cached)).toBe(true);
    expect(secondFile?.usage).toMatchObject({ chat_requests: 3, chat_cached: 3, prompt_tokens: 0, transcription_seconds: 0 });
    expect(readdirSync(cacheDir).length).toBeGreaterThan(0);
    // The same conversation without the cache: this model drifts, so the lines differ.
    const third = await dial(standInCaller(standIn));
    expect(linesOf([...third.run.callerFiles.values()][0])).not.toBe(linesOf(firstFile));
  }, 120_000);

  it('a second trial has its own seed, so its own cache keys', async () => {
    const both = await dial(standInCaller(standIn, { cache: directoryCache(cacheDir) }), 2);
    const files = [...both.run.callerFiles.values()].sort((a, b) => (a.trial ?? 0) - (b.trial ?? 0));
    expect(files.map((f) => f.trial)).toEqual([1, 2]);
    expect(files[0]?.seed).not.toBe(files[1]?.seed);
    // Trial 1 is the cached call above; trial 2's seed is new, so the model was asked.
    expect(files[0]?.exchanges.filter((e) => e.kind === 'chat').every((e) => e.cached)).toBe(true);
    expect(files[1]?.exchanges.filter((e) => e.kind === 'chat').some((e) => !e.cached)).toBe(true);
  }, 120_000);

  it('a frozen cache with no entry ends the caller with cache_miss', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'mivas-caller-empty-'));
    try {
      run++;
      const running = runWithCaller(server, standInCaller(standIn, { cache: directoryCache(empty, { frozen: true }), seedBase: 99 }), [TASK], { ids: seededIds(`repro-${run}`) });
      const conn = await realtime.nextConnection();
      await conn.next('response.create');
      conn.respond([{ audio: encodeModem(AGENT_LINES[0] ?? '', 24_000), transcript: AGENT_LINES[0] }]);
      // The greeting's transcription is not cached either: the caller ends before its opening line.
      const done = await running;
      expect(done.reports[0]).toMatchObject({ endReason: 'cache_miss', hungUp: true });
      const file = [...done.callerFiles.values()][0];
      expect(file?.exchanges.at(-1)?.error).toMatch(/frozen/);
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  }, 60_000);

  it('the frozen replay re-speaks a recorded call with no model at all', async () => {
    const recorded = await dial(standInCaller(standIn));
    const recordedFile = [...recorded.run.callerFiles.values()][0];
    if (!recordedFile) throw new Error('nothing recorded');
    const asked = standIn.of('/v1/chat/completions').length;
    const replay = await dial(standInCaller(standIn, { kind: 'replay', chat: undefined, replayOf: () => ({ file: recordedFile, ref: `${PACK}/${recordedFile.call_id}` }) }));
    const replayFile = [...replay.run.callerFiles.values()][0];
    expect(replay.heard).toEqual(recorded.heard);
    expect(linesOf(replayFile)).toBe(linesOf(recordedFile));
    expect(replayFile).toMatchObject({ kind: 'replay', replay_of: `${PACK}/${recordedFile.call_id}`, end_reason: 'closing_line', hung_up: true });
    expect(standIn.of('/v1/chat/completions').length).toBe(asked);
  }, 120_000);
});
