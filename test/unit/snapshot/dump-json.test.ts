import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { rowsDigest } from '../../../src/core/index.ts';
import { dumpJson } from '../../../src/snapshot/index.ts';
import type { DatabaseDump } from '../../../src/store/index.ts';

describe('dumpJson', () => {
  it('writes the text JSON.stringify writes, for frozen and unfrozen tables, odd names and values included', () => {
    const frozen = Object.freeze([Object.freeze({ id: 'a', note: 'line\n"quoted"', n: 1.5, none: null })]);
    const dump: DatabaseDump = { rooms: frozen as unknown as Record<string, unknown>[], 'odd "name"': [{ id: 'x', big: 2 ** 53 }], empty: [] };
    expect(dumpJson(dump)).toBe(JSON.stringify(dump));
    expect(dumpJson({})).toBe('{}');
  });

  it('writes a table again after its rows changed, unless they are frozen', () => {
    const rows: Record<string, unknown>[] = [{ id: 'a' }];
    const dump: DatabaseDump = { t: rows };
    expect(dumpJson(dump)).toBe('{"t":[{"id":"a"}]}');
    rows.push({ id: 'b' });
    (rows[0] as Record<string, unknown>).id = 'z';
    expect(dumpJson(dump)).toBe(JSON.stringify(dump));
    // Frozen rows whose array is not frozen are not kept either.
    const looseArray: Record<string, unknown>[] = [Object.freeze({ id: 'c' })];
    expect(dumpJson({ t: looseArray })).toBe('{"t":[{"id":"c"}]}');
    looseArray.push(Object.freeze({ id: 'd' }));
    expect(dumpJson({ t: looseArray })).toBe('{"t":[{"id":"c"},{"id":"d"}]}');
  });

  it('digests the rows\' JSON text, again after unfrozen rows changed', () => {
    const sha = (text: string): string => createHash('sha256').update(text).digest('base64');
    const rows: Record<string, unknown>[] = [{ id: 'a', n: 1 }];
    expect(rowsDigest(rows)).toBe(sha('[{"id":"a","n":1}]'));
    rows.push({ id: 'b' });
    expect(rowsDigest(rows)).toBe(sha(JSON.stringify(rows)));
    const frozen = Object.freeze([Object.freeze({ id: 'c' })]);
    expect(rowsDigest(frozen)).toBe(sha('[{"id":"c"}]'));
    expect(rowsDigest(frozen)).toBe(rowsDigest(frozen));
  });
});
