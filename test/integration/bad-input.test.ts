import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSpeechSynth, parseWav, type SpeechSynth } from '../../src/audio/index.ts';
import type { CallSession } from '../../src/call/index.ts';
import { LocalModelSession, type HarnessFactory, type ResponsePart } from '../../src/providers/index.ts';
import { finalStateSchema, summarySchema, timelineFileSchema, type Summary, type TimelineEvent } from '../../src/snapshot/index.ts';
import { envelopeProblems, RawChirpClient, tryUpgrade } from '../support/chirp-client.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

const PACK = 'control-industry';

/** A distinctive caller signal: every sample non-zero, both bytes varying, so a slipped byte shows. */
function callerSignal(samples: number): Buffer {
  const pcm = Buffer.alloc(samples * 2);
  for (let k = 0; k < samples; k++) pcm.writeInt16LE(300 + ((k * 37) % 8000) * (k % 2 ? 1 : -1), k * 2);
  return pcm;
}

/** Sends a ping and resolves on the pong: every frame sent before it has been read by the server. */
function roundTrip(client: RawChirpClient): Promise<void> {
  return new Promise((resolve) => {
    client.ws.once('pong', () => resolve());
    client.ws.ping();
  });
}

function readSnapshot(server: TestServer, callId: string): { summary: Summary; events: readonly TimelineEvent[]; final: Record<string, unknown[]>; wav: Buffer } {
  const dir = join(server.dataDir, 'snapshots', PACK);
  const json = (part: string): unknown => JSON.parse(readFileSync(join(dir, `${callId}.${part}`), 'utf8'));
  return {
    summary: summarySchema.parse(json('summary.json')),
    events: timelineFileSchema.parse(json('timeline.json')).events,
    final: finalStateSchema.parse(json('final.json')),
    wav: readFileSync(join(dir, `${callId}.wav`)),
  };
}

/** Connects, waits for the greeting to finish, and returns the live server-side session. */
async function connectAfterGreeting(server: TestServer, headers: Record<string, string>): Promise<{ client: RawChirpClient; session: CallSession }> {
  const client = await RawChirpClient.connect(server.wsUrl, headers);
  await client.waitForType('speech.completed');
  const session = server.ctx.registry.get(headers['X-Simulation-Result-Id'] ?? '');
  if (!session) throw new Error('no live session');
  return { client, session };
}

describe('bad CHIRP input (acceptance 5)', () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer({ MIVAS_FAST: '1' });
  });
  afterAll(async () => {
    await server?.close();
  });

  describe.each([333, 320, 640])('caller frames of %i bytes', (frameBytes) => {
    const callId = `frames_${frameBytes}`;
    const signal = callerSignal((333 * 96) / 2);
    let client: RawChirpClient;

    beforeAll(async () => {
      ({ client } = await connectAfterGreeting(server, { 'X-Simulation-Result-Id': callId, 'X-Mivas-Task-Id': 'S-E1' }));
      client.say(signal, frameBytes);
      expect((await client.closed).code).toBe(1000);
      await server.ctx.outbox.flush();
    });

    it('are accepted: the call completes its task', () => {
      const { summary, final } = readSnapshot(server, callId);
      expect(summary.end_reason).toBe('agent_end_call');
      expect(summary.void_reason).toBeNull();
      expect(final.appointments).toHaveLength(1);
    });

    it('reach the recording sample-exact (odd bytes carried, none lost)', () => {
      const wav = parseWav(readSnapshot(server, callId).wav);
      const left = Buffer.alloc(wav.data.length / 2);
      for (let f = 0; f < wav.data.length / 4; f++) left.writeInt16LE(wav.data.readInt16LE(f * 4), f * 2);
      let first = 0;
      while (first < left.length && left.readInt16LE(first) === 0) first += 2;
      expect(left.subarray(first, first + signal.length).equals(signal)).toBe(true);
      expect(left.subarray(first + signal.length).every((b) => b === 0)).toBe(true);
    });

    it('get back agent audio that keeps the CHIRP rules (checklist 5, 6, 8, 9)', () => {
      const now = Date.now();
      for (const t of client.texts()) expect(envelopeProblems(t, now), t.raw).toEqual([]);
      // Walk the stream: frames only inside a speech.started/completed bracket, 640 B but the last, marks after completion.
      let open: string | null = null;
      let frames: number[] = [];
      const completed: string[] = [];
      const marks: string[] = [];
      for (const r of client.received) {
        if (r.kind === 'binary') {
          expect(open).not.toBeNull();
          frames.push(r.data.length);
          continue;
        }
        const { type, data } = r.text.json;
        const id = String(data?.utterance_id ?? data?.name ?? '');
        if (type === 'speech.started') {
          expect(open).toBeNull();
          expect(id).toMatch(/^u_[0-9a-f]{12}$/);
          open = id;
          frames = [];
        } else if (type === 'speech.completed') {
          expect(id).toBe(open);
          expect(frames.length).toBeGreaterThan(0);
          expect(frames.slice(0, -1).every((n) => n === 640)).toBe(true);
          const last = frames.at(-1) ?? 0;
          expect(last % 2 === 0 && last > 0 && last <= 640).toBe(true);
          completed.push(id);
          open = null;
        } else if (type === 'mark') {
          expect(completed.at(-1)).toBe(id);
          marks.push(id);
        }
      }
      expect(open).toBeNull();
      expect(completed.length).toBeGreaterThanOrEqual(3);
      expect(marks).toEqual(completed);
    });
  });

  it('a non-JSON text frame and unknown or malformed events leave the call open and are recorded as frame.ignored', async () => {
    const callId = 'odd_text_frames';
    const { client, session } = await connectAfterGreeting(server, { 'X-Simulation-Result-Id': callId, 'X-Mivas-Task-Id': 'S-E1' });
    client.sendText('this is not json');
    client.sendText('{"type":');
    client.sendEvent('dtmf.pressed', { digit: '5' });
    client.sendText(JSON.stringify({ type: 42, data: {} }));
    client.sendEvent('mark', {});
    await roundTrip(client);
    expect(server.ctx.registry.get(callId)).toBe(session);
    const ignored = session.timeline.events().flatMap((e) => (e.type === 'frame.ignored' ? [e.reason] : []));
    expect(ignored).toEqual(['not_json', 'not_json', 'unknown_type:dtmf.pressed', 'bad_envelope', 'mark_without_name']);
    // The call goes on: the caller speaks and the task completes.
    client.say(callerSignal(8000), 640);
    expect((await client.closed).code).toBe(1000);
    await server.ctx.outbox.flush();
    const { summary, events, final } = readSnapshot(server, callId);
    expect(summary.end_reason).toBe('agent_end_call');
    expect(events.filter((e) => e.type === 'frame.ignored')).toHaveLength(5);
    expect(final.appointments).toHaveLength(1);
  });

  it.each([
    ['binary', (c: RawChirpClient) => c.sendBinary(Buffer.alloc(1024 * 1024 + 2))],
    ['text', (c: RawChirpClient) => c.sendText(JSON.stringify({ type: 'speech.started', data: { pad: 'x'.repeat(1024 * 1024) } }))],
  ] as const)('an oversized %s frame (> 1 MiB) closes the socket with 1009 and the snapshot is still written', async (kind, send) => {
    const callId = `oversized_${kind}`;
    const { client, session } = await connectAfterGreeting(server, { 'X-Simulation-Result-Id': callId, 'X-Mivas-Task-Id': 'S-E1' });
    send(client);
    expect((await client.closed).code).toBe(1009);
    const outcome = await session.finished();
    expect(outcome.endReason).toBe('caller_hangup');
    await server.ctx.outbox.flush();
    const { summary, events } = readSnapshot(server, callId);
    expect(summary.end_reason).toBe('caller_hangup');
    expect(events.some((e) => e.type === 'speech.completed' && e.side === 'agent')).toBe(true);
    expect(events.at(-1)?.type).toBe('call.ended');
    expect(server.ctx.registry.get(callId)).toBeUndefined();
  });

  it('a caller hanging up mid-call still gets a snapshot (checklist 18)', async () => {
    const callId = 'caller_hangs_up';
    const { client, session } = await connectAfterGreeting(server, { 'X-Simulation-Result-Id': callId, 'X-Mivas-Task-Id': 'S-E1' });
    client.close(1000);
    expect((await session.finished()).endReason).toBe('caller_hangup');
    await server.ctx.outbox.flush();
    expect(readSnapshot(server, callId).summary).toMatchObject({ end_reason: 'caller_hangup', close_code: 1000 });
  });

  it.each(['../x', 'semi;colon', 'x'.repeat(65)])('a malformed call id %j is refused with 400', async (id) => {
    const answer = await tryUpgrade(server.wsUrl, { 'X-Simulation-Result-Id': id, 'X-Mivas-Task-Id': 'S-E1' });
    expect(answer.status).toBe(400);
    expect(answer.upgraded).toBe(false);
  });
});

describe('a peer that ignores pings (checklist 17, interval scaled down)', () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer({ MIVAS_FAST: '1', MIVAS_PING_INTERVAL_S: '0.5' });
  });
  afterAll(async () => {
    await server?.close();
  });

  it('is dropped as a caller hangup, with a snapshot; a peer that answers stays', async () => {
    const dead = await RawChirpClient.connect(server.wsUrl, { 'X-Simulation-Result-Id': 'ping_dead', 'X-Mivas-Task-Id': 'S-E1' }, { autoPong: false });
    const alive = await RawChirpClient.connect(server.wsUrl, { 'X-Simulation-Result-Id': 'ping_alive', 'X-Mivas-Task-Id': 'S-E1' });
    let pings = 0;
    const twoPings = new Promise<void>((resolve) =>
      alive.ws.on('ping', () => {
        if (++pings === 2) resolve(); // the second ping means it passed the check that drops a silent peer
      }),
    );
    await dead.waitForType('speech.completed');
    const deadSession = server.ctx.registry.get('ping_dead');
    expect(deadSession).toBeDefined();
    expect((await dead.closed).code).toBe(1006);
    expect(await deadSession?.finished()).toMatchObject({ endReason: 'caller_hangup', closeCode: 1006 });

    await twoPings;
    expect(alive.ws.readyState).toBe(alive.ws.OPEN);
    expect(server.ctx.registry.get('ping_alive')).toBeDefined();
    alive.say(callerSignal(4000), 640);
    expect((await alive.closed).code).toBe(1000);

    await server.ctx.outbox.flush();
    expect(readSnapshot(server, 'ping_dead').summary).toMatchObject({ end_reason: 'caller_hangup', close_code: 1006 });
    expect(readSnapshot(server, 'ping_alive').summary.end_reason).toBe('agent_end_call');
  });
});

/**
 * A keyless stand-in model for the HTTP tests: hands off to the scheduler and greets at once, then
 * waits for the caller's utterance before ending the call, so a live call sits at the scheduler.
 */
class DeskSession extends LocalModelSession {
  readonly provider = 'desk';
  private greeted = false;
  private ending = false;
  private saidGoodbye = false;

  protected nextResponse(): ResponsePart[] | null {
    if (!this.greeted) {
      this.greeted = true;
      return [{ call: { name: 'transfer_to_scheduler', args: {} } }, { say: 'Scheduling desk, how can I help?' }];
    }
    if (this.ending && !this.saidGoodbye) {
      this.saidGoodbye = true;
      return [{ say: 'Goodbye.' }];
    }
    return null;
  }

  protected onCallerTurn(): void {
    if (this.ending) return;
    this.ending = true;
    this.startResponse([{ call: { name: 'end_call', args: { reason: 'caller_done' } } }]);
  }

  protected onToolOutput(): void {
    /* nothing is carried */
  }
}

function deskHarness(synth: SpeechSynth): HarnessFactory {
  return { name: 'desk', refuse: () => null, create: () => new DeskSession(synth) };
}

describe('bad tool requests over HTTP (acceptance 5)', () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer({ MIVAS_FAST: '1' }, { harness: deskHarness(await createSpeechSynth(16_000, { preferTones: true })) });
  });
  afterAll(async () => {
    await server?.close();
  });

  const post = (path: string, body: string, headers: Record<string, string> = {}): Promise<Response> =>
    fetch(`${server.httpUrl}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });

  it('on a live call: invalid arguments are an ok:false envelope, bad requests get 4xx, and the call goes on', async () => {
    const callId = 'http_live';
    const { client, session } = await connectAfterGreeting(server, { 'X-Simulation-Result-Id': callId });
    expect(session.runtimeOrNull()?.activeAgent()).toBe('scheduler');

    const invalid = [
      await post(`/calls/${callId}/tools/book_appointment`, JSON.stringify({ date: 'someday' })),
      await post('/tools/book_appointment', JSON.stringify({ date: 20261007 }), { 'X-Mivas-Call-Id': callId }),
      await post(`/calls/${callId}/tools/check_date`, JSON.stringify({})),
    ];
    for (const res of invalid) {
      expect(res.status).toBe(200);
      expect(await res.json()).toMatchObject({ ok: false, error_code: 'INVALID_ARGUMENTS' });
    }

    const unknown = await post(`/calls/${callId}/tools/launch_rocket`, '{}');
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toMatchObject({ error: { code: 'UNKNOWN_TOOL' } });

    for (const body of ['[1,2]', '"text"', 'null', '42', '{"date":', '']) {
      const res = await post(`/calls/${callId}/tools/check_date`, body);
      expect(res.status, body).toBe(422);
    }
    const big = await post(`/calls/${callId}/tools/check_date`, JSON.stringify({ date: '2026-10-07', pad: 'x'.repeat(1024 * 1024) }));
    expect(big.status).toBe(413);

    expect((await post('/tools/check_date', '{"date":"2026-10-07"}')).status).toBe(400);
    expect((await post('/tools/check_date', '{"date":"2026-10-07"}', { 'X-Mivas-Call-Id': '../x' })).status).toBe(400);
    expect((await post(`/calls/${encodeURIComponent('a b')}/tools/check_date`, '{"date":"2026-10-07"}')).status).toBe(400);

    // None of that ended the call: the socket is open and a valid request still books on it.
    await roundTrip(client);
    expect(server.ctx.registry.get(callId)).toBe(session);
    const booked = await post(`/calls/${callId}/tools/book_appointment`, JSON.stringify({ date: '2026-10-07' }));
    expect(await booked.json()).toMatchObject({ ok: true, data: { appointment_id: 'appt_20261007', idempotent: false } });
    const state = (await (await fetch(`${server.httpUrl}/calls/${callId}/state`)).json()) as { appointments: { id: string }[] };
    expect(state.appointments.map((r) => r.id)).toEqual(['appt_20261007']);

    client.say(callerSignal(4000), 640);
    expect((await client.closed).code).toBe(1000);
    await server.ctx.outbox.flush();
    const { summary, events, final } = readSnapshot(server, callId);
    expect(summary.end_reason).toBe('agent_end_call');
    expect(final.appointments).toHaveLength(1);
    const httpTools = events.flatMap((e) => (e.type === 'tool' && e.tool_call_id === null ? [[e.name, e.agent, e.refusal, e.executed]] : []));
    expect(httpTools).toEqual([
      ['book_appointment', 'scheduler', 'INVALID_ARGUMENTS', false],
      ['book_appointment', 'scheduler', 'INVALID_ARGUMENTS', false],
      ['check_date', 'scheduler', 'INVALID_ARGUMENTS', false],
      ['book_appointment', 'scheduler', null, true],
    ]);
  });

  it('32 racing first requests for a new call id all see the complete seed', async () => {
    const callId = 'race_check';
    const responses = await Promise.all(Array.from({ length: 32 }, () => post(`/calls/${callId}/tools/check_date`, JSON.stringify({ date: '2026-10-11' }))));
    expect(responses.map((r) => r.status)).toEqual(Array(32).fill(200));
    const bodies = await Promise.all(responses.map((r) => r.text()));
    expect(new Set(bodies).size).toBe(1);
    expect(JSON.parse(bodies[0] ?? '{}')).toEqual({
      ok: true,
      data: { date: '2026-10-11', spoken_date: expect.any(String), status: 'closed', next_open_date: '2026-10-12', next_open_spoken: expect.any(String) },
    });
    const state = await (await fetch(`${server.httpUrl}/calls/${callId}/state`)).json();
    expect(state).toEqual(server.ctx.templateDump);
  });

  it('32 racing first writes for a new call id all land in one database', async () => {
    const callId = 'race_book';
    const dates: string[] = [];
    for (let d = new Date(Date.UTC(2026, 9, 5)); dates.length < 32; d = new Date(d.getTime() + 86_400_000)) {
      if (d.getUTCDay() !== 0) dates.push(d.toISOString().slice(0, 10));
    }
    const responses = await Promise.all(dates.map((date) => post('/tools/book_appointment', JSON.stringify({ date }), { 'X-Mivas-Call-Id': callId })));
    const bodies = (await Promise.all(responses.map((r) => r.json()))) as { ok: boolean; data?: { idempotent: boolean } }[];
    expect(bodies.map((b) => [b.ok, b.data?.idempotent])).toEqual(dates.map(() => [true, false]));
    const state = (await (await fetch(`${server.httpUrl}/calls/${callId}/state`)).json()) as { appointments: { date: string }[] };
    expect(state.appointments.map((r) => r.date).sort()).toEqual(dates);
    // The open handle keeps its rollback journal beside the file (exclusive locking); no temp copy is left.
    const files = readdirSync(join(server.dataDir, 'calls')).filter((f) => f.startsWith(callId) && f !== `${callId}.db-journal`);
    expect(files).toEqual([`${callId}.db`]);
  });

  it('state of an unknown call is 404 and creates nothing', async () => {
    const res = await fetch(`${server.httpUrl}/calls/never_seen/state`);
    expect(res.status).toBe(404);
    expect(existsSync(join(server.dataDir, 'calls', 'never_seen.db'))).toBe(false);
  });
});
