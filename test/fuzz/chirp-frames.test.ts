import { expectNoUnhandledRejections } from './no-unhandled-rejections.ts';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { RawChirpClient } from '../support/chirp-client.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { silentHarness } from './silent-harness.ts';

/** Fixed seed and bounded runs (issue 7, acceptance 3). */
const SEED = 7_2026;
const RUNS = 80;
const KNOWN = ['speech.started', 'speech.completed', 'mark', 'session.error'];

/** One frame and whether the server must record it as `frame.ignored` (wire.md §1.4). */
interface Frame {
  readonly data: Buffer | string;
  readonly ignored: boolean;
}

const binary = fc.uint8Array({ minLength: 0, maxLength: 4_096 }).map((bytes): Frame => ({ data: Buffer.from(bytes), ignored: false }));
const notJson = fc.string({ maxLength: 200 }).filter((s) => !parses(s)).map((s): Frame => ({ data: s, ignored: true }));
/** JSON that is not an envelope: no string `type`, or `data` that is not an object. */
const notEnvelope = fc
  .oneof(fc.jsonValue({ maxDepth: 2 }), fc.record({ type: fc.oneof(fc.integer(), fc.constant(''), fc.constant(null)) }), fc.record({ type: fc.constantFrom(...KNOWN), data: fc.oneof(fc.integer(), fc.string(), fc.array(fc.integer())) }))
  .filter((v) => !isEnvelope(v))
  .map((v): Frame => ({ data: JSON.stringify(v), ignored: true }));
const unknownType = fc
  .record({ type: fc.string({ minLength: 1, maxLength: 60 }).filter((t) => !KNOWN.includes(t)), id: fc.uuid(), ts_ms: fc.integer({ min: 0 }), data: fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 1 })) })
  .map((v): Frame => ({ data: JSON.stringify(v), ignored: true }));
const speech = fc
  .record({ type: fc.constantFrom('speech.started', 'speech.completed'), data: fc.record({ utterance_id: fc.string({ maxLength: 64 }) }, { requiredKeys: [] }) })
  .map((v): Frame => ({ data: JSON.stringify(v), ignored: false }));
const mark = fc.record({ type: fc.constant('mark'), data: fc.record({ name: fc.string({ maxLength: 200 }) }) }).map((v): Frame => ({ data: JSON.stringify(v), ignored: v.data.name === '' }));
/** The caller's session.error is logged and recorded as ignored (it never ends a call). */
const sessionError = fc.record({ type: fc.constant('session.error'), data: fc.record({ code: fc.jsonValue({ maxDepth: 1 }), message: fc.jsonValue({ maxDepth: 1 }) }) }).map((v): Frame => ({ data: JSON.stringify(v), ignored: true }));
const frame = fc.oneof(binary, binary, notJson, notEnvelope, unknownType, speech, mark, sessionError);

function parses(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

function isEnvelope(v: unknown): boolean {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return false;
  const o = v as Record<string, unknown>;
  const dataOk = o.data === undefined || (o.data !== null && typeof o.data === 'object' && !Array.isArray(o.data));
  return typeof o.type === 'string' && o.type.length > 0 && dataOk;
}

/** Resolves on the pong of a ping sent after the frames: the server has read everything before it. */
function roundTrip(client: RawChirpClient): Promise<void> {
  return new Promise((resolve) => {
    client.ws.once('pong', () => resolve());
    client.ws.ping();
  });
}

describe('fuzz: CHIRP frames against the real server', () => {
  let server: TestServer;
  expectNoUnhandledRejections();

  beforeAll(async () => {
    // Random binary frames arrive far faster than real time: the audio budget (MIVAS_CALLER_AUDIO_LEAD_S) is its own test.
    server = await startTestServer({ MIVAS_MAX_CALLS: '8', MIVAS_CALLER_AUDIO_LEAD_S: '3600' }, { harness: silentHarness() });
  });
  afterAll(async () => {
    await server?.close();
  });

  it('random binary and text frames never end the call; each bad text frame is one frame.ignored', async () => {
    const client = await RawChirpClient.connect(server.wsUrl, { 'X-Simulation-Result-Id': 'fuzz_frames' });
    const session = server.ctx.registry.get('fuzz_frames');
    if (!session) throw new Error('no live session');
    const ignored = (): number => session.timeline.events().filter((e) => e.type === 'frame.ignored').length;
    await fc.assert(
      fc.asyncProperty(fc.array(frame, { maxLength: 12 }), async (frames) => {
        const before = ignored();
        for (const f of frames) client.ws.send(f.data, { binary: typeof f.data !== 'string' });
        await roundTrip(client);
        expect(client.ws.readyState).toBe(WebSocket.OPEN);
        expect(ignored() - before).toBe(frames.filter((f) => f.ignored).length);
      }),
      { seed: SEED, numRuns: RUNS },
    );
    // Another call is still served while the fuzzed one is live.
    const other = await RawChirpClient.connect(server.wsUrl, { 'X-Simulation-Result-Id': 'fuzz_other' });
    await roundTrip(other);
    expect(server.ctx.registry.get('fuzz_other')).toBeDefined();
    other.ws.close(1000);
    client.ws.close(1000);
    await Promise.all([client.closed, other.closed]);
    await Promise.all([session.finished(), server.ctx.registry.get('fuzz_other')?.finished()]);
  });

  it('a frame over 1 MiB closes that call with 1009; the server keeps serving', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 64 * 1024 }), fc.boolean(), fc.nat(), async (excess, isBinary, n) => {
        const id = `fuzz_big_${n}_${excess}`;
        const client = await RawChirpClient.connect(server.wsUrl, { 'X-Simulation-Result-Id': id });
        const size = 1024 * 1024 + excess;
        client.ws.send(isBinary ? Buffer.alloc(size) : 'x'.repeat(size), { binary: isBinary });
        expect((await client.closed).code).toBe(1009);
        await server.ctx.registry.get(id)?.finished();
        const health = await server.app.inject({ method: 'GET', url: '/health' });
        expect(health.statusCode).toBe(200);
      }),
      { seed: SEED, numRuns: 6 },
    );
  });
});
