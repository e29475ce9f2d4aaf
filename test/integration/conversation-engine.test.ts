import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSpeechSynth } from '../../src/audio/index.ts';
import { RawChirpClient, tryUpgrade } from '../support/chirp-client.ts';
import { callerSignal, connectAfterGreeting, deskHarness, readSnapshot } from '../support/desk-harness.ts';
import { pollUntil, spawnServe } from '../support/serve-process.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

const TOKEN = 'engine-tools-token';
const TOOLS = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' };

function postTool(httpUrl: string, callId: string, name: string, args: Record<string, unknown> = {}): Promise<Response> {
  return fetch(`${httpUrl}/calls/${callId}/tools/${name}`, { method: 'POST', headers: TOOLS, body: JSON.stringify(args) });
}

describe('one conversation engine: call ids, HTTP tool routes, snapshots on every end (issue 13)', () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer({ MIVAS_FAST: '1', MIVAS_TOOLS_TOKEN: TOKEN }, { harness: deskHarness(await createSpeechSynth(16_000, { preferTones: true })) });
  });
  afterAll(async () => {
    await server?.close();
  });

  it('keeps the tool routes off without a token and refuses a wrong one', async () => {
    const off = await startTestServer({ MIVAS_FAST: '1' });
    try {
      const res = await postTool(off.httpUrl, 'any_id', 'check_date', { date: '2026-10-07' });
      expect([res.status, ((await res.json()) as { error: { code: string } }).error.code]).toEqual([404, 'HTTP_TOOLS_OFF']);
    } finally {
      await off.close();
    }
    const wrong = await fetch(`${server.httpUrl}/calls/x1/tools/check_date`, { method: 'POST', headers: { ...TOOLS, authorization: 'Bearer nope' }, body: '{}' });
    expect([wrong.status, ((await wrong.json()) as { error: { code: string } }).error.code]).toEqual([401, 'TOOLS_UNAUTHORIZED']);
  });

  it('an HTTP booking before a dial cannot reach the call: the id is refused with 409', async () => {
    const callId = 'engine_prebooked';
    await postTool(server.httpUrl, callId, 'transfer_to_scheduler');
    expect(await (await postTool(server.httpUrl, callId, 'book_appointment', { date: '2026-10-09' })).json()).toMatchObject({ ok: true });
    const answer = await tryUpgrade(server.wsUrl, { 'X-Simulation-Result-Id': callId });
    expect(answer.status).toBe(409);
    expect(answer.body).toMatch(/CALL_ID_USED/);
  });

  it('an HTTP end_call into a live call applies its effect: the call ends, recorded with origin http', async () => {
    const callId = 'engine_http_end';
    const { client } = await connectAfterGreeting(server, { 'X-Simulation-Result-Id': callId });
    const res = await postTool(server.httpUrl, callId, 'end_call', { reason: 'caller_done' });
    expect(await res.json()).toEqual({ ok: true });
    expect((await client.closed).code).toBe(1000);
    await server.ctx.outbox.flush();
    const { summary, events } = readSnapshot(server, callId);
    expect(summary.end_reason).toBe('agent_end_call');
    expect(events.filter((e) => e.type === 'tool' && e.name === 'end_call').map((e) => (e.type === 'tool' ? e.origin : null))).toEqual(['http']);
  });

  it('an HTTP tool call after hangup is refused with CALL_ENDED and writes nothing', async () => {
    const callId = 'engine_after_hangup';
    const { client } = await connectAfterGreeting(server, { 'X-Simulation-Result-Id': callId });
    client.say(callerSignal(4000), 640);
    expect((await client.closed).code).toBe(1000);
    await pollUntil(() => !server.ctx.registry.get(callId));
    const res = await postTool(server.httpUrl, callId, 'book_appointment', { date: '2026-10-09' });
    expect([res.status, ((await res.json()) as { error: { code: string } }).error.code]).toEqual([409, 'CALL_ENDED']);
    expect(server.ctx.databases.exists(callId)).toBe(false);
    expect(server.ctx.harnessSessions.has(callId)).toBe(false);
  });

  it('reaps idle scratch conversations and their databases, counted in /health and /metrics', async () => {
    const callId = 'engine_scratch_reaped';
    await postTool(server.httpUrl, callId, 'transfer_to_scheduler');
    const health = (await (await fetch(`${server.httpUrl}/health`)).json()) as { harness_sessions: number };
    expect(health.harness_sessions).toBeGreaterThanOrEqual(1);
    expect(server.ctx.databases.exists(callId)).toBe(true);
    // The timer reaps at MIVAS_TOOLS_IDLE_S (unit-tested on a manual clock); here a reap of everything idle is asked for.
    expect(server.ctx.harnessSessions.reapIdle(0)).toBeGreaterThanOrEqual(1);
    expect(server.ctx.databases.exists(callId)).toBe(false);
    const metrics = await (await fetch(`${server.httpUrl}/metrics`)).text();
    expect(metrics).toMatch(/^mivas_harness_sessions 0$/m);
    expect(metrics).toMatch(/^mivas_harness_sessions_reaped [1-9]\d*$/m);
    // Each request is counted as it is answered: scratch conversations, live calls, refusals.
    expect(metrics).toMatch(/^mivas_http_tool_calls_total\{tool="transfer_to_scheduler",result="scratch"\} [1-9]\d*$/m);
    expect(metrics).toMatch(/^mivas_http_tool_calls_total\{tool="book_appointment",result="ended"\} 1$/m);
    expect(metrics).toMatch(/^mivas_build_info\{version="[^"]+",pack="control-industry",harness="desk",node="v\d+[^"]*"\} 1$/m);
  });

  it('a setup failure still yields a snapshot set with internal_error and the reason', async () => {
    const callId = 'engine_setup_fails';
    // A directory where the template copy must go makes the database copy fail inside setup.
    mkdirSync(join(server.dataDir, 'calls', `${callId}.db.tmp`), { recursive: true });
    const client = await RawChirpClient.connect(server.wsUrl, { 'X-Simulation-Result-Id': callId });
    expect((await client.closed).code).toBe(1011);
    await server.ctx.outbox.flush();
    const { summary, final } = readSnapshot(server, callId);
    expect(summary.end_reason).toBe('internal_error');
    expect(summary.end_detail).toMatch(/^setup failed/);
    expect(final).toEqual(server.ctx.templateDump);
  });

  it('a database that cannot be dumped at hangup still yields a set with internal_error and the reason', async () => {
    const callId = 'engine_dump_fails';
    const { client } = await connectAfterGreeting(server, { 'X-Simulation-Result-Id': callId });
    // Closing the handle under the conversation makes its dump fail at hangup.
    server.ctx.databases.release(callId);
    client.say(callerSignal(4000), 640);
    await client.closed;
    await server.ctx.outbox.flush();
    const { summary } = readSnapshot(server, callId);
    expect(summary.end_reason).toBe('internal_error');
    expect(summary.end_detail).toMatch(/database dump failed/);
  });

  it('a timeline event the schema refuses ends the call with internal_error and a set', async () => {
    const callId = 'engine_bad_event';
    const { client, session } = await connectAfterGreeting(server, { 'X-Simulation-Result-Id': callId });
    session.timeline.add({ type: 'nudge', attempt: -1 });
    expect((await client.closed).code).toBe(1011);
    await server.ctx.outbox.flush();
    const { summary, events } = readSnapshot(server, callId);
    expect(summary.end_reason).toBe('internal_error');
    expect(summary.end_detail).toMatch(/timeline event nudge broke the snapshot schema/);
    expect(events.some((e) => e.type === 'nudge' && e.attempt < 1)).toBe(false);
  });
});

describe('a call id redialed after kill -9 (issue 13)', () => {
  it('starts from a fresh database: the rows of the killed call never reach the new one', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'mivas-kill9-'));
    const env = { MIVAS_DATA_DIR: dataDir, MIVAS_FAST: '1', MIVAS_TOOLS_TOKEN: TOKEN, MIVAS_PACK: 'control-industry', MIVAS_HARNESS: 'scripted' };
    const callId = 'engine_redial';
    try {
      const first = await spawnServe(env);
      const client = await RawChirpClient.connect(first.wsUrl, { 'X-Simulation-Result-Id': callId, 'X-Mivas-Task-Id': 'S-E1' });
      await client.waitForType('speech.completed');
      await postTool(first.httpUrl, callId, 'transfer_to_scheduler');
      expect(await (await postTool(first.httpUrl, callId, 'book_appointment', { date: '2026-10-09' })).json()).toMatchObject({ ok: true });
      first.child.kill('SIGKILL');
      await first.exited;

      const second = await spawnServe(env);
      try {
        expect(second.output()).toMatch(/moved call databases left by an earlier process aside/);
        const again = await RawChirpClient.connect(second.wsUrl, { 'X-Simulation-Result-Id': callId, 'X-Mivas-Task-Id': 'S-E1' });
        await again.waitForType('speech.completed');
        again.say(callerSignal(8000), 640);
        expect((await again.closed).code).toBe(1000);
        await pollUntil(async () => ((await (await fetch(`${second.httpUrl}/health`)).json()) as { snapshot_backlog: number }).snapshot_backlog === 0);
        const { summary, final } = readSnapshot({ dataDir } as TestServer, callId);
        expect(summary.end_reason).toBe('agent_end_call');
        expect((final.appointments as { date: string }[]).map((r) => r.date)).toEqual(['2026-10-07']);
      } finally {
        second.child.kill('SIGTERM');
        await second.exited;
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 60_000);
});
