import { existsSync, readdirSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSpeechSynth } from '../../src/audio/index.ts';
import { basicAuth, RawChirpClient, tryUpgrade } from '../support/chirp-client.ts';
import { callerSignal, connectAfterGreeting, deskHarness, readSnapshot } from '../support/desk-harness.ts';
import { useStaticS3Credentials } from '../support/s3.ts';
import { pollUntil, spawnServe } from '../support/serve-process.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { StallProxy } from '../support/stall-proxy.ts';

const TOKEN = 'reliability-token';
const TOOLS = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' };

/** `[[[ … ]]]` nested `depth` levels deep, as JSON text. */
const deepArray = (depth: number): string => `${'['.repeat(depth)}${']'.repeat(depth)}`;

/** A raw TCP client: sends text as given and reports what came back and whether the server closed. */
async function rawHttp(port: number): Promise<{ socket: Socket; received: () => string; closed: Promise<void> }> {
  const socket = connect(port, '127.0.0.1');
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  let text = '';
  socket.on('data', (c: Buffer) => {
    text += c.toString('latin1');
  });
  socket.on('error', () => undefined);
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  return { socket, received: () => text, closed };
}

/** Resolves with 'closed' when the promise settles within `ms`, else 'open' (a bound for the test, not a figure). */
async function within(promise: Promise<unknown>, ms: number): Promise<'closed' | 'open'> {
  let timer: NodeJS.Timeout | undefined;
  const outcome = await Promise.race([promise.then(() => 'closed' as const), new Promise<'open'>((resolve) => (timer = setTimeout(() => resolve('open'), ms)))]);
  clearTimeout(timer);
  return outcome;
}

/** A logger that keeps each line's message, and a wait for the nth of one. */
function capturedLog(): { log: pino.Logger; count: (msg: string) => number } {
  const messages: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const line of chunk.toString().split('\n')) if (line) messages.push((JSON.parse(line) as { msg?: string }).msg ?? '');
      done();
    },
  });
  return { log: pino({ level: 'info' }, stream), count: (msg) => messages.filter((m) => m === msg).length };
}

function upgradeRequest(path: string, callId: string, extra = ''): string {
  return `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\nX-Simulation-Result-Id: ${callId}\r\n${extra}\r\n`;
}

describe('faults the soak also covers, cheap enough for npm test (issue 14)', () => {
  let server: TestServer;
  let port: number;
  const logged = capturedLog();

  beforeAll(async () => {
    server = await startTestServer({ MIVAS_FAST: '1', MIVAS_TOOLS_TOKEN: TOKEN, MIVAS_HTTP_TIMEOUT_S: '0.5' }, { harness: deskHarness(await createSpeechSynth(16_000, { preferTones: true })), log: logged.log });
    port = Number(new URL(server.httpUrl).port);
  });
  afterAll(async () => {
    await server?.close();
  });

  it('a tool body nested 10,000 deep still leaves the full set: the value cut, truncated with its reason', async () => {
    const callId = 'rel_deep_json';
    const { client } = await connectAfterGreeting(server, { 'X-Simulation-Result-Id': callId });
    const res = await fetch(`${server.httpUrl}/calls/${callId}/tools/book_appointment`, { method: 'POST', headers: TOOLS, body: `{"date":${deepArray(10_000)}}` });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ ok: false, error_code: 'INVALID_ARGUMENTS' });
    client.say(callerSignal(4000), 640);
    await client.closed;
    await server.ctx.outbox.flush();
    const { summary, events } = readSnapshot(server, callId);
    // Not the minimal set of a failed assembly: the call's own end and every event are there.
    expect(summary.end_reason).toBe('agent_end_call');
    expect(summary.end_detail).toBeUndefined();
    expect(summary.truncated).toBe(true);
    expect(summary.truncation).toEqual({ events_dropped: 0, values_cut: 1, limits: ['depth'] });
    expect(summary.void_reason).toBe('snapshot_missing');
    expect(events.filter((e) => e.type === 'tool').map((e) => e.type === 'tool' && e.name)).toContain('book_appointment');
    expect(events.at(-1)?.type).toBe('call.ended');
  });

  it('a request body that never finishes arriving is cut off at MIVAS_HTTP_TIMEOUT_S', async () => {
    const http = await rawHttp(port);
    http.socket.write(`POST /tools/check_date HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${TOKEN}\r\nX-Mivas-Call-Id: rel_slow\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"da`);
    expect(await within(http.closed, 15_000)).toBe('closed');
    expect(http.received()).toMatch(/^HTTP\/1\.1 408/);
    expect(server.ctx.harnessSessions.has('rel_slow')).toBe(false);
    expect((await fetch(`${server.httpUrl}/health`)).status).toBe(200);
  });

  it('a client abandoning its upgrade leaves no call, no snapshot and no held slot; the id stays usable', async () => {
    const callId = 'rel_abandoned';
    for (const leave of ['end', 'destroy'] as const) {
      const http = await rawHttp(port);
      http.socket.write(upgradeRequest('/', callId));
      if (leave === 'end') http.socket.end();
      else http.socket.destroy();
      await http.closed;
    }
    // Both requests reached the gate and were turned away there (the server read them after the client left).
    await pollUntil(() => logged.count('the client closed during the upgrade: no call') === 2, 10_000);
    expect(server.ctx.registry.count()).toBe(0);
    await server.ctx.outbox.flush();
    expect(server.ctx.outbox.isSpooled(server.ctx.pack.id, callId)).toBe(false);
    expect(existsSync(join(server.dataDir, 'snapshots', 'control-industry', `${callId}.summary.json`))).toBe(false);
    expect(server.ctx.databases.exists(callId)).toBe(false);
    // Nothing of it was kept, so the id is dialed for real afterwards.
    const { client } = await connectAfterGreeting(server, { 'X-Simulation-Result-Id': callId });
    client.say(callerSignal(4000), 640);
    expect((await client.closed).code).toBe(1000);
  });
});

describe('HTTP routes never take a WebSocket upgrade (issue 14)', () => {
  let server: TestServer;
  const USER = 'rel-user';
  const PASS = 'rel-pass';

  beforeAll(async () => {
    server = await startTestServer({ CHIRP_USER: USER, CHIRP_PASS: PASS, MIVAS_HTTP_TIMEOUT_S: '0.5' });
  });
  afterAll(async () => {
    await server?.close();
  });

  it('answers an upgrade on /health, /metrics and /ui with 400 NOT_A_CHIRP_PATH, credentials or not, never 101', async () => {
    for (const path of ['health', 'metrics', 'ui/']) {
      for (const headers of [{}, { Authorization: basicAuth(USER, PASS) }] as Record<string, string>[]) {
        const answer = await tryUpgrade(`${server.wsUrl}${path}`, headers);
        expect([path, answer.upgraded, answer.status]).toEqual([path, false, 400]);
        expect(answer.body).toMatch(/NOT_A_CHIRP_PATH/);
      }
    }
    expect((await fetch(`${server.httpUrl}/health`)).status).toBe(200);
    expect((await tryUpgrade(server.wsUrl, { Authorization: basicAuth(USER, PASS), 'X-Simulation-Result-Id': 'rel_real', 'X-Mivas-Task-Id': 'S-E1' })).upgraded).toBe(true);
  });

  it('closes the connection of an unauthenticated request after its 401, body or no body', async () => {
    const port = Number(new URL(server.httpUrl).port);
    const http = await rawHttp(port);
    http.socket.write('GET /ui/ HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{');
    expect(await within(http.closed, 15_000)).toBe('closed');
    expect(http.received()).toMatch(/^HTTP\/1\.1 401/);
  });
});

describe('caller audio faster than real time (issue 14)', () => {
  let server: TestServer;
  beforeAll(async () => {
    // Paced (not fast): the budget is real time plus MIVAS_CALLER_AUDIO_LEAD_S.
    server = await startTestServer({ MIVAS_CALLER_AUDIO_LEAD_S: '2' }, { harness: deskHarness(await createSpeechSynth(16_000, { preferTones: true })) });
  });
  afterAll(async () => {
    await server?.close();
  });

  it('ends the call caller_flood with close 1008, keeps its snapshot and records no more than the budget', async () => {
    const callId = 'rel_flood';
    const client = await RawChirpClient.connect(server.wsUrl, { 'X-Simulation-Result-Id': callId });
    // 60 s of audio at once, in 20 ms frames.
    const frame = Buffer.alloc(640, 1);
    for (let i = 0; i < 3_000 && client.ws.readyState === client.ws.OPEN; i++) client.sendBinary(frame);
    const closed = await client.closed;
    expect([1008, 1006]).toContain(closed.code);
    await pollUntil(() => !server.ctx.registry.get(callId), 10_000);
    await server.ctx.outbox.flush();
    const { summary, wav } = readSnapshot(server, callId);
    expect(summary.end_reason).toBe('caller_flood');
    expect(summary.close_code).toBe(1008);
    expect(summary.void_reason).toBe('infra_error');
    expect(summary.end_detail).toMatch(/ahead of real time/);
    // The recording holds what the budget let in (about 2 s plus the time the call lasted), not 60 s.
    const recordedS = (wav.length - 44) / 4 / 16_000;
    expect(recordedS).toBeLessThan(30);
    expect(readdirSync(join(server.dataDir, 'recordings')).filter((f) => f.endsWith('.wav'))).toEqual([]);
  });
});

describe('an S3 store that accepts connections and never answers (issue 14)', () => {
  let server: TestServer;
  let store: StallProxy;

  beforeAll(async () => {
    useStaticS3Credentials();
    store = await StallProxy.start(null);
    server = await startTestServer(
      { MIVAS_FAST: '1', MIVAS_SNAPSHOT_BUCKET: 'stalled', MIVAS_S3_ENDPOINT: store.endpoint(), MIVAS_S3_FORCE_PATH_STYLE: '1', MIVAS_S3_TIMEOUT_S: '0.3', MIVAS_S3_ATTEMPTS: '2' },
      { harness: deskHarness(await createSpeechSynth(16_000, { preferTones: true })) },
    );
  });
  afterAll(async () => {
    await server?.close();
    await store?.close();
  });

  it('upgrades every call past the existence check, releases every slot and keeps every set spooled', async () => {
    const ids = ['rel_stall_1', 'rel_stall_2', 'rel_stall_3'];
    const clients = await Promise.all(ids.map(async (id) => (await connectAfterGreeting(server, { 'X-Simulation-Result-Id': id })).client));
    expect(store.stalledConnections()).toBeGreaterThanOrEqual(3);
    for (const c of clients) c.say(callerSignal(4000), 640);
    for (const c of clients) expect((await c.closed).code).toBe(1000);
    await pollUntil(() => server.ctx.registry.count() === 0, 10_000);
    // The uploads time out and are retried; each set waits in the spool, none lost.
    await pollUntil(() => server.ctx.outbox.backlog().count === 3, 10_000);
    for (const id of ids) expect(server.ctx.outbox.isSpooled(server.ctx.pack.id, id)).toBe(true);
    const health = (await (await fetch(`${server.httpUrl}/health`)).json()) as { live_calls: number; snapshot_backlog: number };
    expect([health.live_calls, health.snapshot_backlog]).toEqual([0, 3]);
  });
});

describe('repeated SIGTERM during the drain (issue 14)', () => {
  it('keeps draining: the live call finishes, its snapshot is written, and the process exits 0', async () => {
    const serve = await spawnServe({ MIVAS_HARNESS: 'scripted', MIVAS_PACK: 'control-industry', MIVAS_DRAIN_S: '120' });
    try {
      const client = await RawChirpClient.connect(serve.wsUrl, { 'X-Simulation-Result-Id': 'rel_term', 'X-Mivas-Task-Id': 'S-E1' });
      await client.waitForType('speech.started');
      for (let i = 0; i < 3; i++) {
        serve.child.kill('SIGTERM');
        await pollUntil(() => (serve.output().match(/already draining|draining: refusing/g) ?? []).length >= i + 1, 10_000);
      }
      // Three SIGTERMs in: the process is alive and the call still open.
      expect(serve.child.exitCode).toBeNull();
      expect(client.ws.readyState).toBe(client.ws.OPEN);
      client.close(1000);
      const exit = await serve.exited;
      expect(exit, serve.output().slice(-2000)).toEqual({ code: 0, signal: null });
      const { summary } = readSnapshot({ dataDir: serve.dataDir } as TestServer, 'rel_term');
      expect(summary.end_reason).toBe('caller_hangup');
    } finally {
      if (serve.child.exitCode === null) serve.child.kill('SIGKILL');
    }
  }, 60_000);
});
