import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toneSpeech } from '../../src/audio/index.ts';
import { basicAuth, envelopeProblems, RawChirpClient, tryUpgrade } from '../support/chirp-client.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

const USER = 'bluejay';
const PASS = 's3cret-pass';
const AUTH = { Authorization: basicAuth(USER, PASS) };
const CALLER_LINE = toneSpeech('Hi, are you open on Friday?', 16_000);

/** Files in the per-call database directory (the probe must add none). */
function callDbFiles(server: TestServer): string[] {
  const dir = join(server.dataDir, 'calls');
  return existsSync(dir) ? readdirSync(dir) : [];
}

function snapshotDir(server: TestServer): string {
  return join(server.dataDir, 'snapshots', 'control-industry');
}

async function health(server: TestServer): Promise<{ live_calls: number; capacity: number; snapshot_backlog: number }> {
  const res = await fetch(`${server.httpUrl}/health`);
  return (await res.json()) as { live_calls: number; capacity: number; snapshot_backlog: number };
}

/** Runs a scripted S-E3 call to its end over a raw socket: wait for the greeting, speak once. */
async function completeCall(client: RawChirpClient): Promise<{ code: number }> {
  await client.waitForType('speech.completed');
  client.say(CALLER_LINE, 640);
  return client.closed;
}

describe('CHIRP upgrade (acceptance 3, wire checklist 1–4)', () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer({ CHIRP_USER: USER, CHIRP_PASS: PASS, MIVAS_FAST: '1', MIVAS_MAX_CALLS: '1' });
  });
  afterAll(async () => {
    await server?.close();
  });

  describe('credentials', () => {
    const cases: [string, Record<string, string>][] = [
      ['no Authorization header', {}],
      ['a wrong password', { Authorization: basicAuth(USER, 'wrong') }],
      ['a wrong user', { Authorization: basicAuth('someone', PASS) }],
      ['the password as a prefix', { Authorization: basicAuth(USER, PASS.slice(0, -1)) }],
      ['a Bearer token', { Authorization: `Bearer ${PASS}` }],
      ['no colon', { Authorization: `Basic ${Buffer.from(`${USER}${PASS}`).toString('base64')}` }],
    ];
    it.each(cases)('%s gets 401 with a Basic challenge and never 101', async (_name, headers) => {
      for (const path of ['/', '/probe', '/some/path']) {
        const answer = await tryUpgrade(`${server.wsUrl.replace(/\/$/, '')}${path}`, { ...headers, 'X-Simulation-Result-Id': 'auth_case', 'X-Mivas-Task-Id': 'S-E1' });
        expect(answer.upgraded).toBe(false);
        expect(answer.status).toBe(401);
        expect(answer.headers['www-authenticate']).toBe('Basic realm="mivas"');
      }
      expect(callDbFiles(server)).toEqual([]);
    });

    it('checks credentials before the call id (a bad id without credentials is 401, not 400)', async () => {
      const answer = await tryUpgrade(server.wsUrl, { 'X-Simulation-Result-Id': '../x' });
      expect(answer.status).toBe(401);
    });

    it('gives HTTP routes the same 401', async () => {
      const res = await fetch(`${server.httpUrl}/ui`);
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toBe('Basic realm="mivas"');
    });
  });

  describe('probe', () => {
    async function probe(path: string, headers: Record<string, string> = {}) {
      const client = await RawChirpClient.connect(`${server.wsUrl.replace(/\/$/, '')}${path}`, { ...AUTH, ...headers });
      const close = await client.closed;
      return { client, close };
    }

    it.each([
      ['/probe', {}],
      ['/', { 'X-Mivas-Probe': '1' }],
    ] as [string, Record<string, string>][])('on %s: 101, exactly one probe.ok envelope, close 1000, no database', async (path, headers) => {
      const before = callDbFiles(server);
      const { client, close } = await probe(path, headers);
      expect(close.code).toBe(1000);
      expect(client.binaries()).toEqual([]);
      const texts = client.texts();
      expect(texts).toHaveLength(1);
      const frame = texts[0];
      if (!frame) throw new Error('no frame');
      expect(envelopeProblems(frame)).toEqual([]);
      expect(frame.decoded.ok).toBe(true);
      // The raw data, not the decoded frame: no key beyond these may be on the wire.
      const { type, data } = JSON.parse(frame.raw) as { type: unknown; data: unknown };
      expect(type).toBe('probe.ok');
      expect(data).toEqual({ pack: 'control-industry', harness: 'scripted', version: server.ctx.version, capacity: { live: 0, max: 1 } });
      expect(callDbFiles(server)).toEqual(before);
      expect((await health(server)).live_calls).toBe(0);
    });

    it('is answered at capacity and takes no slot; a call past capacity gets 503 with Retry-After; a live id gets 409', async () => {
      const held = await RawChirpClient.connect(server.wsUrl, { ...AUTH, 'X-Simulation-Result-Id': 'held_call', 'X-Mivas-Task-Id': 'S-E3' });
      try {
        await checksAtCapacity(held);
      } finally {
        // A failed check must not leave the one slot taken for the tests after it.
        if (held.ws.readyState === held.ws.OPEN) held.close();
        await Promise.all(server.ctx.registry.sessions().map((s) => s.finished()));
      }
    });

    async function checksAtCapacity(held: RawChirpClient): Promise<void> {
      await held.waitForType('speech.started');
      expect((await health(server)).live_calls).toBe(1);

      const { client, close } = await probe('/probe');
      expect(close.code).toBe(1000);
      expect(client.ofType('probe.ok')).toHaveLength(1);
      expect(client.ofType('probe.ok')[0]?.frame.capacity).toEqual({ live: 1, max: 1 });
      expect((await health(server)).live_calls).toBe(1);

      const full = await tryUpgrade(server.wsUrl, { ...AUTH, 'X-Simulation-Result-Id': 'one_too_many', 'X-Mivas-Task-Id': 'S-E3' });
      expect(full.upgraded).toBe(false);
      expect(full.status).toBe(503);
      expect(Number(full.headers['retry-after'])).toBeGreaterThan(0);

      const duplicate = await tryUpgrade(server.wsUrl, { ...AUTH, 'X-Simulation-Result-Id': 'held_call', 'X-Mivas-Task-Id': 'S-E3' });
      expect(duplicate.upgraded).toBe(false);
      expect(duplicate.status).toBe(409);

      const ended = await completeCall(held);
      expect(ended.code).toBe(1000);
      await server.ctx.outbox.flush();
      expect((await health(server)).live_calls).toBe(0);
      // The slot is free again: the same id is now refused for its snapshot, a new id is accepted.
      const reused = await tryUpgrade(server.wsUrl, { ...AUTH, 'X-Simulation-Result-Id': 'held_call', 'X-Mivas-Task-Id': 'S-E3' });
      expect(reused.status).toBe(409);
      expect(reused.upgraded).toBe(false);
      const next = await RawChirpClient.connect(server.wsUrl, { ...AUTH, 'X-Simulation-Result-Id': 'after_held', 'X-Mivas-Task-Id': 'S-E3' });
      expect((await completeCall(next)).code).toBe(1000);
    }
  });

  describe('call ids', () => {
    it.each(['../x', 'a b', 'x'.repeat(65), 'call/1', 'id.db', 'é'])('refuses the malformed id %j with 400 before any 101', async (id) => {
      const answer = await tryUpgrade(server.wsUrl, { ...AUTH, 'X-Simulation-Result-Id': id, 'X-Mivas-Task-Id': 'S-E1' });
      expect(answer.upgraded).toBe(false);
      expect(answer.status).toBe(400);
      expect(callDbFiles(server)).toEqual([]);
      expect((await health(server)).live_calls).toBe(0);
    });

    it('accepts the longest legal id', async () => {
      const id = `A-z_${'9'.repeat(60)}`;
      const client = await RawChirpClient.connect(server.wsUrl, { ...AUTH, 'X-Simulation-Result-Id': id, 'X-Mivas-Task-Id': 'S-E3' });
      expect((await completeCall(client)).code).toBe(1000);
      await server.ctx.outbox.flush();
      expect(existsSync(join(snapshotDir(server), `${id}.summary.json`))).toBe(true);
    });

    it('mints call_<12 hex> when the id header is missing, and names the snapshot with it', async () => {
      const before = new Set(existsSync(snapshotDir(server)) ? readdirSync(snapshotDir(server)) : []);
      const client = await RawChirpClient.connect(server.wsUrl, { ...AUTH, 'X-Mivas-Task-Id': 'S-E3' });
      expect((await completeCall(client)).code).toBe(1000);
      await server.ctx.outbox.flush();
      const added = readdirSync(snapshotDir(server)).filter((f) => !before.has(f) && f.endsWith('.summary.json'));
      expect(added).toHaveLength(1);
      const callId = added[0]?.replace(/\.summary\.json$/, '') ?? '';
      expect(callId).toMatch(/^call_[0-9a-f]{12}$/);
      const summary = JSON.parse(readFileSync(join(snapshotDir(server), `${callId}.summary.json`), 'utf8')) as { call_id: string; task_id: string };
      expect(summary.call_id).toBe(callId);
      expect(summary.task_id).toBe('S-E3');
    });

    it('trims a padded id', async () => {
      const client = await RawChirpClient.connect(server.wsUrl, { ...AUTH, 'x-simulation-result-id': '  padded_id  ', 'X-Mivas-Task-Id': 'S-E3' });
      expect((await completeCall(client)).code).toBe(1000);
      await server.ctx.outbox.flush();
      const summary = JSON.parse(readFileSync(join(snapshotDir(server), 'padded_id.summary.json'), 'utf8')) as { call_id: string };
      expect(summary.call_id).toBe('padded_id');
    });

    it('refuses an id whose snapshot exists with 409', async () => {
      const first = await RawChirpClient.connect(server.wsUrl, { ...AUTH, 'X-Simulation-Result-Id': 'used_once', 'X-Mivas-Task-Id': 'S-E3' });
      expect((await completeCall(first)).code).toBe(1000);
      // Refused while the snapshot is still spooled and after it reached the sink.
      const spooled = await tryUpgrade(server.wsUrl, { ...AUTH, 'X-Simulation-Result-Id': 'used_once', 'X-Mivas-Task-Id': 'S-E3' });
      expect(spooled.status).toBe(409);
      await server.ctx.outbox.flush();
      expect(server.ctx.outbox.isSpooled('control-industry', 'used_once')).toBe(false);
      const uploaded = await tryUpgrade(server.wsUrl, { ...AUTH, 'X-Simulation-Result-Id': 'used_once', 'X-Mivas-Task-Id': 'S-E3' });
      expect(uploaded.status).toBe(409);
      expect(uploaded.upgraded).toBe(false);
      expect((await health(server)).live_calls).toBe(0);
    });
  });

  describe('other refusals', () => {
    it('answers a plain GET on a CHIRP path with 426', async () => {
      for (const path of ['/', '/anything/else']) {
        const res = await fetch(`${server.httpUrl}${path}`, { headers: AUTH });
        expect(res.status).toBe(426);
        expect(res.headers.get('upgrade')).toBe('websocket');
      }
    });

    it.each([
      ['no task id', {}],
      ['an unknown task id', { 'X-Mivas-Task-Id': 'S-E9' }],
      ['a malformed task id', { 'X-Mivas-Task-Id': '../S-E1' }],
    ] as [string, Record<string, string>][])('refuses a scripted call with %s with 400 and gives the slot back', async (_name, headers) => {
      const answer = await tryUpgrade(server.wsUrl, { ...AUTH, 'X-Simulation-Result-Id': 'needs_task', ...headers });
      expect(answer.upgraded).toBe(false);
      expect(answer.status).toBe(400);
      expect((await health(server)).live_calls).toBe(0);
      expect(callDbFiles(server)).toEqual([]);
    });
  });
});
