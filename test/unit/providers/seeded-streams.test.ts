import { describe, expect, it } from 'vitest';
import { geminiSchema, NOVA_HISTORY_MAX_BYTES, novaSeed, splitUtf8, StreamHistory } from '../../../src/providers/index.ts';

describe('StreamHistory', () => {
  it('seeds text turns with tool calls and results, and only the heard part of a cut agent item', () => {
    const h = new StreamHistory();
    h.agentText('a1', 'One two three four', 0);
    h.agentAudio('a1', 1_000);
    h.callerText('I need ');
    h.callerText('a visit.');
    expect(h.closeCallerTurn()).toBe('I need a visit.');
    h.toolCall('c1', 'check_date', '{"date":"2026-10-07"}', 'scheduler');
    h.toolResult('c1', '{"ok":true}');
    h.truncate('a1', 500);
    expect(h.seedTurns()).toEqual([
      { role: 'assistant', text: 'One two' },
      { role: 'user', text: 'I need a visit.' },
      { role: 'assistant', text: '(scheduler called check_date with {"date":"2026-10-07"}; it returned {"ok":true})' },
    ]);
  });
});

describe('Nova seed limits', () => {
  it('splits a text input at 1 KB on code point boundaries', () => {
    const pieces = splitUtf8('é'.repeat(700), 1024);
    expect(pieces.map((p) => Buffer.byteLength(p))).toEqual([1024, 376]);
    expect(pieces.join('')).toBe('é'.repeat(700));
  });

  it('keeps the newest turns within 40 KB and opens with a USER turn', () => {
    const turns = Array.from({ length: 100 }, (_, i) => ({ role: i % 2 ? ('user' as const) : ('assistant' as const), text: `${i}:${'x'.repeat(1_000)}` }));
    const seed = novaSeed(turns);
    expect(seed[0]?.role).toBe('user');
    expect(seed.at(-1)?.text.startsWith('99:')).toBe(true);
    expect(seed.reduce((n, t) => n + Buffer.byteLength(t.text), 0)).toBeLessThanOrEqual(NOVA_HISTORY_MAX_BYTES);
  });
});

describe('geminiSchema', () => {
  it('turns a JSON Schema into the Live API Schema subset', () => {
    expect(
      geminiSchema({
        type: 'object',
        additionalProperties: false,
        properties: { date: { type: 'string', description: 'YYYY-MM-DD' }, kind: { const: 'visit' }, n: { type: ['integer', 'null'] }, tags: { type: 'array', items: { type: 'string', enum: ['a', 'b'] } } },
        required: ['date'],
      }),
    ).toEqual({
      type: 'OBJECT',
      properties: { date: { type: 'STRING', description: 'YYYY-MM-DD' }, kind: { type: 'STRING', enum: ['visit'] }, n: { type: 'INTEGER', nullable: true }, tags: { type: 'ARRAY', items: { type: 'STRING', enum: ['a', 'b'] } } },
      required: ['date'],
    });
  });
});
