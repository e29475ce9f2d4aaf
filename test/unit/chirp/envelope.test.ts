import { describe, expect, it } from 'vitest';
import { encodeTextFrame, parseTextFrame } from '../../../src/chirp/envelope.ts';
import { randomIds, seededIds } from '../../../src/core/index.ts';

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('encodeTextFrame', () => {
  it('writes compact JSON with exactly type, id (UUID v4), integer ts_ms and data', () => {
    const text = encodeTextFrame('speech.started', { utterance_id: 'u_0123456789ab' }, randomIds(), 1_791_205_200_123.6);
    const json = JSON.parse(text) as Record<string, unknown>;
    expect(Object.keys(json)).toEqual(['type', 'id', 'ts_ms', 'data']);
    expect(json.type).toBe('speech.started');
    expect(json.id).toMatch(UUID_V4);
    expect(json.ts_ms).toBe(1_791_205_200_124);
    expect(json.data).toEqual({ utterance_id: 'u_0123456789ab' });
    expect(text).toBe(JSON.stringify(json));
  });

  it('gives every frame a fresh id', () => {
    const ids = seededIds('envelope');
    const a = JSON.parse(encodeTextFrame('mark', { name: 'u_1' }, ids, 0)) as { id: string };
    const b = JSON.parse(encodeTextFrame('mark', { name: 'u_1' }, ids, 0)) as { id: string };
    expect(a.id).toMatch(UUID_V4);
    expect(b.id).toMatch(UUID_V4);
    expect(a.id).not.toBe(b.id);
  });
});

describe('parseTextFrame', () => {
  const envelope = (type: unknown, data?: unknown): string => JSON.stringify({ type, id: '5a1d3c9e-0000-4000-8000-000000000000', ts_ms: 1, ...(data === undefined ? {} : { data }) });

  it.each([
    [envelope('speech.started', { utterance_id: 'c_1' }), { type: 'speech.started', utteranceId: 'c_1' }],
    [envelope('speech.completed', { utterance_id: 'c_1' }), { type: 'speech.completed', utteranceId: 'c_1' }],
    [envelope('speech.started'), { type: 'speech.started', utteranceId: null }],
    [envelope('speech.started', { utterance_id: 7 }), { type: 'speech.started', utteranceId: null }],
    [envelope('mark', { name: 'u_0123456789ab' }), { type: 'mark', name: 'u_0123456789ab' }],
    [envelope('session.error', { code: 'X', message: 'boom' }), { type: 'session.error', code: 'X', message: 'boom' }],
    [JSON.stringify({ type: 'mark', data: { name: 'bare' } }), { type: 'mark', name: 'bare' }],
  ])('reads %s', (text, event) => {
    expect(parseTextFrame(text)).toEqual({ ok: true, event });
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
    [envelope('mark', {}), 'mark_without_name'],
    [envelope('dtmf'), 'unknown_type:dtmf'],
    [envelope('x'.repeat(100)), `unknown_type:${'x'.repeat(40)}`],
  ])('ignores %j (%s) without throwing', (text, reason) => {
    expect(parseTextFrame(text)).toEqual({ ok: false, reason });
  });

  it('clips long fields from the peer', () => {
    const parsed = parseTextFrame(envelope('session.error', { code: 'C'.repeat(200), message: 'm'.repeat(1_000) }));
    expect(parsed.ok && parsed.event.type === 'session.error' && [parsed.event.code.length, parsed.event.message.length]).toEqual([64, 300]);
    const mark = parseTextFrame(envelope('mark', { name: 'n'.repeat(500) }));
    expect(mark.ok && mark.event.type === 'mark' && mark.event.name.length).toBe(128);
  });
});
