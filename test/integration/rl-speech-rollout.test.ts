import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callerSeed } from '../../src/caller/index.ts';
import { rolloutPolicyUrl } from '../../src/episodes/index.ts';
import { directorySource, loadSnapshots, scoreRun } from '../../src/scoring/index.ts';
import { callerFileSchema, summarySchema, timelineFileSchema } from '../../src/snapshot/index.ts';
import { lastAgentWords, ruleBrain } from '../support/caller-rig.ts';
import { OpenAICompatibleStandIn, type StandInChatRequest } from '../support/openai-compatible.ts';
import { decodeAudio, RealtimeStandIn, type StandInConnection } from '../support/realtime-server.ts';
import { request } from '../support/rl-clients.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { decodeModemAll, encodeModem } from '../support/text-modem.ts';

/**
 * Issue 25: a speech rollout is a whole spoken conversation. The trainer's speech policy (here the
 * realtime stand-in, driven by the test) talks to mivas's digital human (the llm caller on a chat
 * stand-in, hearing through the transcription stand-in and speaking through the speech stand-in,
 * all from MIVAS_CALLER_*) over the server's own CHIRP path, and the rollout's reward is the
 * scorer's verdict on the call's own snapshot.
 */
const TASK = 'C1-E1';
const SEED = 7;

/** The caller's complete lines so far, read back from the caller audio the harness appended (modem speech). */
function callerLines(conn: StandInConnection): string[] {
  return decodeModemAll(Buffer.concat(conn.received('input_audio_buffer.append').map(decodeAudio)), 24_000);
}

/** Waits for the caller's `count`-th line and reports it to the model as the provider's input transcription. */
async function callerLine(conn: StandInConnection, count: number): Promise<string> {
  await conn.waitFor(() => callerLines(conn).length >= count, `caller line ${count}`);
  const line = callerLines(conn)[count - 1] ?? '';
  conn.send({ type: 'conversation.item.input_audio_transcription.completed', item_id: `in_${count}`, content_index: 0, transcript: line });
  return line;
}

/** The policy says a line: modem audio the caller's ears can read, with its transcript. */
function say(conn: StandInConnection, text: string): void {
  conn.respond([{ audio: encodeModem(text, 24_000), transcript: text }]);
}

/** One tool call of the policy, answered by mivas, then the follow-up response.create. */
async function call(conn: StandInConnection, name: string, args: Record<string, unknown> = {}): Promise<void> {
  const sent = conn.respond([{ call: { name, args } }]);
  await conn.toolOutput(sent.callIds[0] ?? '');
  await conn.next('response.create');
}

/** The trainer's policy on C1-E1: greet, take the name, hand off to coverage, check the plan, offer a visit, close. */
async function playPolicy(conn: StandInConnection): Promise<string[]> {
  await conn.next('response.create');
  say(conn, 'Thank you for calling Straus Dermatology. How can I help you today?');
  const heard = [await callerLine(conn, 1)];
  say(conn, 'I can help with that. May I have your full name, please?');
  heard.push(await callerLine(conn, 2));
  await call(conn, 'transfer_to_coverage');
  await call(conn, 'check_plan_accepted', { carrier: 'Aetna', location_id: 'loc_park_ave' });
  say(conn, 'Good news: our Park Avenue office accepts Aetna. Would you like to schedule a visit?');
  heard.push(await callerLine(conn, 3));
  say(conn, 'No problem at all. Is there anything else I can help you with?');
  heard.push(await callerLine(conn, 4));
  return heard;
}

let policy: RealtimeStandIn;
let callerModel: OpenAICompatibleStandIn;
let server: TestServer;
const cacheDir = mkdtempSync(join(tmpdir(), 'mivas-rollout-cache-'));

beforeAll(async () => {
  policy = await RealtimeStandIn.start();
  const brain = ruleBrain([
    { when: /full name/i, choice: { tool: 'say_pin', args: { pin: 1 } } },
    { when: /schedule a visit/i, choice: { tool: 'say_pin', args: { pin: 2 } } },
    { when: /anything else/i, choice: { tool: 'say_pin', args: { pin: 4 } } },
  ]);
  callerModel = await OpenAICompatibleStandIn.start({ chat: (req: StandInChatRequest) => brain(req) });
  server = await startTestServer({
    MIVAS_PACK: 'healthcare',
    MIVAS_RL: '1',
    MIVAS_FAST: '1',
    MIVAS_CALLER_BASE_URL: callerModel.baseUrl,
    MIVAS_CALLER_API_KEY: 'sk-caller-test',
    MIVAS_CALLER_MODEL: 'caller-model-standin',
    MIVAS_CALLER_STT_MODEL: 'whisper-standin',
    MIVAS_CALLER_TTS: 'endpoint',
    MIVAS_CALLER_TTS_MODEL: 'tts-standin',
    MIVAS_CALLER_HANGUP_GRACE_S: '0.3',
    MIVAS_CALLER_CACHE: cacheDir,
  });
}, 60_000);

afterAll(async () => {
  await server?.close();
  await callerModel?.close();
  await policy?.close();
  rmSync(cacheDir, { recursive: true, force: true });
});

describe('speech rollouts: POST /rl/rollouts', () => {
  it('runs a whole spoken conversation with the llm caller and rewards the call by its own snapshot (issue 25)', async () => {
    const rollout = request(`${server.httpUrl}/rl/rollouts`, { task_id: TASK, seed: SEED, run_id: 'run_rollout', policy: { url: policy.baseUrl('/v1'), protocol: 'openai/realtime', model: 'policy-1', api_key: 'sk-trainer' }, caller: { kind: 'llm' } });
    const conn = await policy.nextConnection();
    const heard = await playPolicy(conn);
    const reply = await rollout;
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    const id = String(reply.body.rollout_id);
    expect(id).toMatch(/^ro_[0-9a-f]{24}$/);
    // The rollout id ties the trainer's side (its URL path) to the reward.
    expect(conn.url).toBe(`/ng-rollout/${id}/v1/realtime?model=policy-1`);
    expect(reply.body).toMatchObject({ status: 'done', pack: 'healthcare', task_id: TASK, caller: 'llm', result: { status: 'PASS', valid: true, end_reason: 'caller_hangup', snapshot: { key: `healthcare/${id}` } } });

    // The caller heard the policy and answered it aloud three times after its opening line: the task's pins, verbatim.
    expect(heard).toEqual(["Hi, I'm a new patient. Do you take Aetna at your Park Avenue office?", "It's Megan Foley.", 'Not today, thanks. I just wanted to check the plan.', "Thanks, that's everything."]);
    const callerFile = callerFileSchema.parse(JSON.parse(String(await server.ctx.sink.get(`healthcare/${id}.caller.json`))));
    const callerTurns = callerFile.turns.filter((t) => t.side === 'caller');
    expect(callerTurns.map((t) => t.source)).toEqual(['opening', 'pin', 'pin', 'closing']);
    expect(callerTurns.length - 1).toBeGreaterThanOrEqual(3);
    expect(callerFile).toMatchObject({ kind: 'llm', run_id: 'run_rollout', task_id: TASK, trial: null, seed: callerSeed(0, TASK, SEED), end_reason: 'closing_line', hung_up: true });
    // What the caller heard is what the policy said (its ears on the transcription stand-in).
    expect(callerFile.turns.filter((t) => t.side === 'agent').map((t) => t.text)).toContain('I can help with that. May I have your full name, please?');
    const timeline = timelineFileSchema.parse(JSON.parse(String(await server.ctx.sink.get(`healthcare/${id}.timeline.json`))));
    const callerSpeech = timeline.events.filter((e) => e.type === 'speech.started' && e.side === 'caller');
    expect(callerSpeech).toHaveLength(callerTurns.length);

    // Seeded: every chat request carries the rollout's caller seed; cached: each went into MIVAS_CALLER_CACHE.
    const chats = callerModel.of('/v1/chat/completions').map((r) => r.body as StandInChatRequest);
    expect(chats.map((c) => lastAgentWords(c))).toEqual([expect.stringContaining('full name'), expect.stringContaining('schedule a visit'), expect.stringContaining('anything else')]);
    expect(new Set(chats.map((c) => c.seed))).toEqual(new Set([callerSeed(0, TASK, SEED)]));
    expect(readdirSync(cacheDir).length).toBeGreaterThan(0);

    // The reward is the scorer's verdict on this call's own snapshot, as `mivas score` reads it.
    const snapshots = await loadSnapshots(directorySource(server.ctx.sink.root), 'healthcare');
    const scored = scoreRun(snapshots, new Map([['healthcare', server.ctx.pack]]), new Map(), { k: 1, seed: 1, resamples: 10, minCallMs: 0, allowPackDrift: false, pack: 'healthcare', stamp: null, flags: {} });
    const verdict = scored.conversations.find((c) => c.conversation_id === id);
    expect(verdict?.status).toBe('PASS');
    expect((reply.body.result as { reward: number }).reward).toBe(verdict?.reward);
    expect((reply.body.result as { reward: number }).reward).toBe(1);
    const summary = summarySchema.parse(JSON.parse(String(await server.ctx.sink.get(`healthcare/${id}.summary.json`))));
    expect(summary).toMatchObject({ harness: 'openai/realtime', model: 'policy-1', task_id: TASK });
    expect(server.ctx.callHarnesses.size).toBe(0);
  }, 120_000);

  it('runs the scripted caller too: its opening line once the greeting has played, then silence until the policy ends the call', async () => {
    const rollout = request(`${server.httpUrl}/rl/rollouts`, { task_id: TASK, policy: { url: policy.baseUrl('/v1'), protocol: 'openai/realtime' } });
    const conn = await policy.nextConnection();
    await conn.next('response.create');
    say(conn, 'Thank you for calling Straus Dermatology. How can I help you today?');
    expect(await callerLine(conn, 1)).toBe("Hi, I'm a new patient. Do you take Aetna at your Park Avenue office?");
    await call(conn, 'transfer_to_coverage');
    const check = conn.respond([{ call: { name: 'check_plan_accepted', args: { carrier: 'Aetna', location_id: 'loc_park_ave' } } }]);
    await conn.toolOutput(check.callIds[0] ?? '');
    await conn.next('response.create');
    const end = conn.respond([{ audio: encodeModem('Yes, Park Avenue takes Aetna. Goodbye.', 24_000) }, { call: { name: 'end_call', args: { reason: 'caller_done' } } }]);
    await conn.toolOutput(end.callIds[0] ?? '');
    const reply = await rollout;
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    const id = String(reply.body.rollout_id);
    expect(reply.body).toMatchObject({ status: 'done', caller: 'scripted', result: { end_reason: 'agent_end_call' } });
    const callerFile = callerFileSchema.parse(JSON.parse(String(await server.ctx.sink.get(`healthcare/${id}.caller.json`))));
    expect(callerFile).toMatchObject({ kind: 'scripted', seed: null, ears: null, hung_up: false, end_reason: null });
    expect(callerFile.turns.filter((t) => t.side === 'caller').map((t) => t.source)).toEqual(['opening']);
    const snapshots = await loadSnapshots(directorySource(server.ctx.sink.root), 'healthcare');
    const scored = scoreRun(snapshots, new Map([['healthcare', server.ctx.pack]]), new Map(), { k: 1, seed: 1, resamples: 10, minCallMs: 0, allowPackDrift: false, pack: 'healthcare', stamp: null, flags: {} });
    expect((reply.body.result as { reward: number }).reward).toBe(scored.conversations.find((c) => c.conversation_id === id)?.reward);
  }, 120_000);

  it('refuses a request it cannot run, and an unknown rollout', async () => {
    const badUrl = await request(`${server.httpUrl}/rl/rollouts`, { task_id: TASK, policy: { url: 'http://x/v1' } });
    expect(badUrl.status).toBe(422);
    expect(badUrl.body).toMatchObject({ error: { code: 'EPISODE_INVALID' } });
    const badCaller = await request(`${server.httpUrl}/rl/rollouts`, { task_id: TASK, policy: { url: 'ws://127.0.0.1:1/v1' }, caller: { kind: 'external' } });
    expect(badCaller.body).toMatchObject({ error: { code: 'EPISODE_INVALID', message: expect.stringContaining('"external" caller') } });
    const otherPack = await request(`${server.httpUrl}/rl/rollouts`, { pack: 'control-industry', policy: { url: 'ws://127.0.0.1:1/v1' } });
    expect(otherPack.body).toMatchObject({ error: { code: 'EPISODE_INVALID' } });
    const unknown = await request(`${server.httpUrl}/rl/rollouts/ro_nobody`);
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({ error: { code: 'ROLLOUT_NOT_FOUND' } });
  });

  it('puts the rollout id in the policy URL path, or where the trainer asks', () => {
    expect(rolloutPolicyUrl('ws://trainer:9000/v1', 'ro_1')).toBe('ws://trainer:9000/ng-rollout/ro_1/v1');
    expect(rolloutPolicyUrl('wss://trainer/', 'ro_1')).toBe('wss://trainer/ng-rollout/ro_1');
    expect(rolloutPolicyUrl('ws://trainer:9000/v1/{rollout_id}?x=1', 'ro_2')).toBe('ws://trainer:9000/v1/ro_2?x=1');
  });
});
