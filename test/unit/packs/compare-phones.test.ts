import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { effectivePolicy, loadPack } from '../../../src/packs/index.ts';
import { judgeState } from '../../../src/scoring/index.ts';

const PACKS = resolve('packs');
const PHONE = /^\+\d{8,15}$/;

/** `table.column` of every value that is a phone number in some task's locked expected state. */
function phoneColumns(pack: string): string[] {
  const dir = join(PACKS, pack, 'tasks');
  const found = new Set<string>();
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.json'))) {
    const task = JSON.parse(readFileSync(join(dir, file), 'utf8')) as { exp_db_state?: Record<string, Record<string, unknown>[]> };
    for (const [table, rows] of Object.entries(task.exp_db_state ?? {})) for (const row of rows) for (const [column, value] of Object.entries(row)) if (typeof value === 'string' && PHONE.test(value)) found.add(`${table}.${column}`);
  }
  return [...found].sort();
}

describe('compare.json reads every phone column as a phone (issue 30)', () => {
  it.each(readdirSync(PACKS))('%s: every column that holds a phone number declares phone_e164', (pack) => {
    const compare = JSON.parse(readFileSync(join(PACKS, pack, 'compare.json'), 'utf8')) as { tables: Record<string, { normalise?: Record<string, string> }> };
    const missing = phoneColumns(pack).filter((tc) => {
      const [table = '', column = ''] = tc.split('.');
      return compare.tables[table]?.normalise?.[column] !== 'phone_e164';
    });
    expect(missing).toEqual([]);
  });

  it('legal grades a form sent to the same number written another way as the same row', async () => {
    const pack = await loadPack(PACKS, 'legal', resolve('migrations'));
    const policy = effectivePolicy(pack.compare, undefined);
    const row = { id: 'frm_x_text', intake_id: 'int_x', channel: 'text', form_set: 'injury_packet' };
    const empty = Object.fromEntries(Object.entries(policy.tables).filter(([, p]) => p.scored).map(([t]) => [t, [] as Record<string, unknown>[]]));
    const judged = (sentTo: string): unknown => {
      const out = judgeState({ ...empty, form_sends: [{ ...row, sent_to: '+13045550152' }] }, { ...empty, form_sends: [{ ...row, sent_to: sentTo }] }, policy);
      return out.kind === 'judged' ? out.result.diff.map((d) => d.field) : out.kind;
    };
    expect(judged('(304) 555-0152')).toEqual([]);
    expect(judged('304-555-0199')).toEqual(['sent_to']);
  });
});
