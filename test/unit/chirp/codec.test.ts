import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  decodeCallerFrame,
  decodeEnvelope,
  decodeServerFrame,
  encodeCallerFrame,
  encodeEnvelope,
  encodeServerFrame,
  serverFrame,
  type CallerFrame,
  type ServerFrame,
} from '../../../src/chirp/index.ts';
import { randomIds, seededIds } from '../../../src/core/index.ts';

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const FIXED_ID = '5a1d3c9e-0000-4000-8000-000000000000';
const fixedIds = { uuid: () => FIXED_ID };

/** Every frame mivas sends, with the exact bytes it sent before the codec existed. */
const SERVER_FRAMES: readonly (readonly [ServerFrame, string])[] = [
  [{ type: 'speech.started', utteranceId: 'u_0123456789ab' }, '{"utterance_id":"u_0123456789ab"}'],
  [{ type: 'speech.completed', utteranceId: 'u_0123456789ab' }, '{"utterance_id":"u_0123456789ab"}'],
  [{ type: 'mark', name: 'u_0123456789ab' }, '{"name":"u_0123456789ab"}'],
  [{ type: 'session.error', code: 'INTERNAL_ERROR', message: 'provider_error' }, '{"code":"INTERNAL_ERROR","message":"provider_error"}'],
  [
    { type: 'probe.ok', pack: 'control-industry', harness: 'scripted', version: '0.1.0', capacity: { live: 2, max: 8 } },
    '{"pack":"control-industry","harness":"scripted","version":"0.1.0","capacity":{"live":2,"max":8}}',
  ],
];

/** Every frame a caller sends, with its wire data. */
const CALLER_FRAMES: readonly (readonly [CallerFrame, string])[] = [
  [{ type: 'speech.started', utteranceId: 'c_0123456789ab' }, '{"utterance_id":"c_0123456789ab"}'],
  [{ type: 'speech.completed', utteranceId: 'c_0123456789ab' }, '{"utterance_id":"c_0123456789ab"}'],
  [{ type: 'speech.started', utteranceId: null }, '{}'],
  [{ type: 'speech.completed', utteranceId: null }, '{}'],
  [{ type: 'mark', name: 'u_0123456789ab' }, '{"name":"u_0123456789ab"}'],
  [{ type: 'session.error', code: 'TIMEOUT', message: 'caller gave up' }, '{"code":"TIMEOUT","message":"caller gave up"}'],
];

const envelope = (type: unknown, data?: unknown): string => JSON.stringify({ type, id: FIXED_ID, ts_ms: 1, ...(data === undefined ? {} : { data }) });

describe('encoding', () => {
  it('writes compact JSON with exactly type, id (UUID v4), integer ts_ms and data', () => {
    const text = encodeServerFrame({ type: 'speech.started', utteranceId: 'u_0123456789ab' }, randomIds(), 1_791_205_200_123.6);
    const json = JSON.parse(text) as Record<string, unknown>;
    expect(Object.keys(json)).toEqual(['type', 'id', 'ts_ms', 'data']);
    expect(json.id).toMatch(UUID_V4);
    expect(json.ts_ms).toBe(1_791_205_200_124);
    expect(text).toBe(JSON.stringify(json));
  });

  it('gives every frame a fresh id', () => {
    const ids = seededIds('envelope');
    const a = JSON.parse(encodeServerFrame({ type: 'mark', name: 'u_1' }, ids, 0)) as { id: string };
    const b = JSON.parse(encodeCallerFrame({ type: 'mark', name: 'u_1' }, ids, 0)) as { id: string };
    expect([a.id, b.id].every((id) => UUID_V4.test(id))).toBe(true);
    expect(a.id).not.toBe(b.id);
  });

  it.each(SERVER_FRAMES)('server frame %j keeps its wire bytes', (frame, data) => {
    expect(encodeServerFrame(frame, fixedIds, 1_000.4)).toBe(`{"type":"${frame.type}","id":"${FIXED_ID}","ts_ms":1000,"data":${data}}`);
  });

  it.each(CALLER_FRAMES)('caller frame %j keeps its wire bytes', (frame, data) => {
    expect(encodeCallerFrame(frame, fixedIds, 1_000)).toBe(`{"type":"${frame.type}","id":"${FIXED_ID}","ts_ms":1000,"data":${data}}`);
  });

  it('builds a server frame from its type and fields', () => {
    expect(serverFrame('mark', { name: 'u_1' })).toEqual({ type: 'mark', name: 'u_1' });
    expect(serverFrame('session.error', { code: 'INTERNAL_ERROR', message: 'm' })).toEqual({ type: 'session.error', code: 'INTERNAL_ERROR', message: 'm' });
  });

  it('writes a raw envelope of any type for edge-case tests', () => {
    expect(encodeEnvelope('dtmf.pressed', { digit: '5' }, fixedIds, 7)).toBe(`{"type":"dtmf.pressed","id":"${FIXED_ID}","ts_ms":7,"data":{"digit":"5"}}`);
  });
});

describe('round trips', () => {
  it.each(SERVER_FRAMES)('server frame %j decodes as it was encoded', (frame) => {
    expect(decodeServerFrame(encodeServerFrame(frame, randomIds(), Date.now()))).toEqual({ ok: true, frame });
  });

  it.each(CALLER_FRAMES)('caller frame %j decodes as it was encoded', (frame) => {
    expect(decodeCallerFrame(encodeCallerFrame(frame, randomIds(), Date.now()))).toEqual({ ok: true, frame });
  });

  it('a mark the server sends is echoed by a caller and read back by the server unchanged', () => {
    const sent = decodeServerFrame(encodeServerFrame({ type: 'mark', name: 'u_0123456789ab' }, randomIds(), 0));
    if (!sent.ok || sent.frame.type !== 'mark') throw new Error('mark did not decode');
    expect(decodeCallerFrame(encodeCallerFrame({ type: 'mark', name: sent.frame.name }, randomIds(), 0))).toEqual({ ok: true, frame: { type: 'mark', name: 'u_0123456789ab' } });
  });
});

describe('decodeCallerFrame (the server reading Bluejay, lenient)', () => {
  it.each([
    [envelope('speech.started'), { type: 'speech.started', utteranceId: null }],
    [envelope('speech.started', { utterance_id: 7 }), { type: 'speech.started', utteranceId: null }],
    [envelope('speech.completed', { utterance_id: 'x'.repeat(129) }), { type: 'speech.completed', utteranceId: null }],
    [JSON.stringify({ type: 'mark', data: { name: 'bare' } }), { type: 'mark', name: 'bare' }],
    [envelope('session.error', { code: 5 }), { type: 'session.error', code: '5', message: '' }],
  ])('reads %s', (text, frame) => {
    expect(decodeCallerFrame(text)).toEqual({ ok: true, frame });
  });

  it.each([
    ['not json', 'not_json'],
    ['{"type":', 'not_json'],
    ['', 'not_json'],
    ['[]', 'bad_envelope'],
    ['null', 'bad_envelope'],
    ['"speech.started"', 'bad_envelope'],
    [JSON.stringify({ data: {} }), 'bad_envelope'],
    [JSON.stringify({ type: '' }), 'bad_envelope'],
    [JSON.stringify({ type: 3 }), 'bad_envelope'],
    [JSON.stringify({ type: 'mark', data: [] }), 'bad_envelope'],
    [JSON.stringify({ type: 'mark', ts_ms: 'soon' }), 'bad_envelope'],
    [envelope('mark', {}), 'mark_without_name'],
    [envelope('mark', { name: 42 }), 'mark_without_name'],
    [envelope('dtmf'), 'unknown_type:dtmf'],
    [envelope('probe.ok', { pack: 'p' }), 'unknown_type:probe.ok'],
    [envelope('x'.repeat(100)), `unknown_type:${'x'.repeat(40)}`],
  ])('ignores %j with reason %s', (text, reason) => {
    expect(decodeCallerFrame(text)).toEqual({ ok: false, reason });
  });

  it('clips long fields from the peer', () => {
    const parsed = decodeCallerFrame(envelope('session.error', { code: 'C'.repeat(200), message: 'm'.repeat(1_000) }));
    expect(parsed.ok && parsed.frame.type === 'session.error' && [parsed.frame.code.length, parsed.frame.message.length]).toEqual([64, 300]);
    const mark = decodeCallerFrame(envelope('mark', { name: 'n'.repeat(500) }));
    expect(mark.ok && mark.frame.type === 'mark' && mark.frame.name.length).toBe(128);
  });
});

describe('decodeServerFrame (a caller reading mivas, strict)', () => {
  const probe = { pack: 'p', harness: 'h', version: '1', capacity: { live: 0, max: 1 } };
  it.each([
    ['not json', 'not_json'],
    ['{}', 'bad_envelope'],
    [envelope('speech.started'), 'bad_data:speech.started'],
    [envelope('speech.completed', { utterance_id: '' }), 'bad_data:speech.completed'],
    [envelope('speech.started', { utterance_id: 7 }), 'bad_data:speech.started'],
    [envelope('mark', {}), 'mark_without_name'],
    [envelope('session.error', { code: 'INTERNAL_ERROR' }), 'bad_data:session.error'],
    [envelope('session.error', { code: 1, message: 'm' }), 'bad_data:session.error'],
    [envelope('probe.ok', { ...probe, capacity: { live: -1, max: 1 } }), 'bad_data:probe.ok'],
    [envelope('probe.ok', { ...probe, capacity: undefined }), 'bad_data:probe.ok'],
    [envelope('probe.ok', { ...probe, version: 1 }), 'bad_data:probe.ok'],
    [envelope('dtmf'), 'unknown_type:dtmf'],
  ])('rejects %j with reason %s', (text, reason) => {
    expect(decodeServerFrame(text)).toEqual({ ok: false, reason });
  });

  it('ignores data keys it does not know', () => {
    expect(decodeServerFrame(envelope('mark', { name: 'u_1', extra: true }))).toEqual({ ok: true, frame: { type: 'mark', name: 'u_1' } });
  });
});

describe('decoding never throws', () => {
  const text = fc.oneof(
    fc.string({ maxLength: 200 }),
    fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v) ?? ''),
    fc.record({ type: fc.constantFrom('speech.started', 'speech.completed', 'mark', 'session.error', 'probe.ok', 'x'), data: fc.jsonValue({ maxDepth: 2 }) }).map((v) => JSON.stringify(v)),
  );

  it('returns a frame or a reason for any text, in both directions', () => {
    fc.assert(
      fc.property(text, (t) => {
        for (const decoded of [decodeCallerFrame(t), decodeServerFrame(t)]) {
          expect(decoded.ok ? typeof decoded.frame.type : decoded.reason.length > 0).toBe(decoded.ok ? 'string' : true);
        }
        const env = decodeEnvelope(t);
        expect(env.ok || env.reason === 'not_json' || env.reason === 'bad_envelope').toBe(true);
      }),
      { seed: 2026, numRuns: 300 },
    );
  });
});
