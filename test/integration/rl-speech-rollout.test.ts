import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSpeechSynth } from '../../src/audio/index.ts';
import type { CallerMind, CallerTurn } from '../../src/caller/index.ts';
import { openingLineOf } from '../../src/caller/index.ts';
import { builtInCallers, rolloutPolicyUrl, type CallerMinds } from '../../src/episodes/index.ts';
import { summarySchema } from '../../src/snapshot/index.ts';
import { RealtimeStandIn, tone, type StandInConnection } from '../support/realtime-server.ts';
import { request } from '../support/rl-clients.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

/** A stand-in for the llm caller: opens with the task's pinned line (what the digital human does first). */
class LlmCallerStandIn implements CallerMind {
  readonly kind = 'llm' as const;
  opened = 0;
  private readonly line: string;

  constructor(line: string) {
    this.line = line;
  }
  async open(): Promise<CallerTurn> {
    this.opened++;
    return { text: this.line, hangUp: null };
  }
  async reply(): Promise<CallerTurn> {
    return { text: "Thanks, that's everything.", hangUp: 'closing_line' };
  }
}

/** The trainer's speech model for task S-E1: greet, hand off, book Wednesday, say goodbye and end the call. */
async function playPolicy(conn: StandInConnection): Promise<void> {
  await conn.next('response.create');
  conn.respond([{ audio: tone(800, 24_000), transcript: 'Thanks for calling Maple Lane Repairs.' }]);
  await conn.waitForCallerSpeech();
  conn.send({ type: 'input_audio_buffer.speech_started', item_id: 'in_1', audio_start_ms: 1_000 });
  conn.send({ type: 'input_audio_buffer.speech_stopped', item_id: 'in_1', audio_end_ms: 3_000 });
  const hop = conn.respond([{ call: { name: 'transfer_to_scheduler', args: {} } }]);
  await conn.toolOutput(hop.callIds[0] ?? '');
  await conn.next('response.create');
  const book = conn.respond([{ call: { name: 'book_appointment', args: { date: '2026-10-07' } } }]);
  await conn.toolOutput(book.callIds[0] ?? '');
  await conn.next('response.create');
  const end = conn.respond([{ audio: tone(600, 24_000, 550), transcript: 'You are booked. Goodbye.' }, { call: { name: 'end_call', args: { reason: 'caller_done' } } }]);
  await conn.toolOutput(end.callIds[0] ?? '');
}

let standIn: RealtimeStandIn;
let server: TestServer;
const minds: LlmCallerStandIn[] = [];

beforeAll(async () => {
  standIn = await RealtimeStandIn.start();
  const callers: CallerMinds = (r) => {
    if (r.kind !== 'llm') return builtInCallers(r);
    const mind = new LlmCallerStandIn(openingLineOf(r.task.intent));
    minds.push(mind);
    return mind;
  };
  server = await startTestServer({ MIVAS_PACK: 'control-industry', MIVAS_RL: '1' }, { synth: await createSpeechSynth(16_000, { preferTones: true }), rlCallers: callers });
}, 60_000);

afterAll(async () => {
  await server.close();
  await standIn.close();
});

describe('speech rollouts: POST /rl/rollouts', () => {
  it('runs the task as a call against the trainer\'s realtime endpoint with the llm caller, and returns the reward and the snapshot', async () => {
    const rollout = request(`${server.httpUrl}/rl/rollouts`, { task_id: 'S-E1', policy: { url: standIn.baseUrl('/v1'), protocol: 'openai/realtime', model: 'policy-1', api_key: 'sk-trainer' }, caller: { kind: 'llm' } });
    const conn = await standIn.nextConnection();
    await playPolicy(conn);
    const reply = await rollout;
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    const id = String(reply.body.rollout_id);
    expect(id).toMatch(/^ro_[0-9a-f]{24}$/);
    expect(conn.url).toBe(`/ng-rollout/${id}/v1/realtime?model=policy-1`);
    expect(reply.body).toMatchObject({
      status: 'done',
      pack: 'control-industry',
      task_id: 'S-E1',
      protocol: 'openai/realtime',
      caller: 'llm',
      policy_url: `${standIn.baseUrl(`/ng-rollout/${id}/v1`)}`,
      result: { reward: 1, status: 'PASS', valid: true, reward_components: { state: 1, tools: 1, handoff: 1, route: 1 }, end_reason: 'agent_end_call', snapshot: { key: `control-industry/${id}` } },
    });
    expect(minds.at(-1)?.opened).toBe(1);
    const summary = summarySchema.parse(JSON.parse(String(await server.ctx.sink.get(`control-industry/${id}.summary.json`))));
    expect(summary).toMatchObject({ harness: 'openai/realtime', model: 'policy-1', task_id: 'S-E1', end_reason: 'agent_end_call' });
    const recording = await server.ctx.sink.get(`control-industry/${id}.wav`);
    expect(recording?.length ?? 0).toBeGreaterThan(44 + 16_000);
    expect(String((reply.body.result as { recording: string }).recording)).toContain(`${id}.wav`);
    const polled = await request(`${server.httpUrl}/rl/rollouts/${id}`);
    expect(polled.body).toMatchObject({ rollout_id: id, status: 'done', result: { reward: 1 } });
    expect(server.ctx.callHarnesses.size).toBe(0);
  }, 60_000);

  it('refuses a request it cannot run, and an unknown rollout', async () => {
    const badUrl = await request(`${server.httpUrl}/rl/rollouts`, { task_id: 'S-E1', policy: { url: 'http://x/v1' } });
    expect(badUrl.status).toBe(422);
    expect(badUrl.body).toMatchObject({ error: { code: 'EPISODE_INVALID' } });
    const badCaller = await request(`${server.httpUrl}/rl/rollouts`, { task_id: 'S-E1', policy: { url: 'ws://127.0.0.1:1/v1' }, caller: { kind: 'external' } });
    expect(badCaller.body).toMatchObject({ error: { code: 'EPISODE_INVALID', message: expect.stringContaining('"external" caller') } });
    const otherPack = await request(`${server.httpUrl}/rl/rollouts`, { pack: 'legal', policy: { url: 'ws://127.0.0.1:1/v1' } });
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
