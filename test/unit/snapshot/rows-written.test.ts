import { describe, expect, it } from 'vitest';
import { countRowsWritten } from '../../../src/snapshot/index.ts';
import { canonicalJson } from '../../../src/core/index.ts';
import type { DatabaseDump } from '../../../src/store/index.ts';

/** The count by its definition: canonical rows in one dump and not the other, both ways. */
function byDefinition(template: DatabaseDump, final: DatabaseDump): number {
  let changed = 0;
  for (const table of new Set([...Object.keys(template), ...Object.keys(final)])) {
    const before = new Set((template[table] ?? []).map(canonicalJson));
    const after = new Set((final[table] ?? []).map(canonicalJson));
    changed += [...after].filter((r) => !before.has(r)).length + [...before].filter((r) => !after.has(r)).length;
  }
  return changed;
}

const template: DatabaseDump = {
  patients: [
    { id: 'p1', name: 'Ana', dob: '1980-01-01' },
    { id: 'p2', name: 'Ben', dob: '1975-05-05' },
    { id: 'p3', name: 'Cy', dob: '1990-09-09' },
  ],
  appointments: [{ id: 'a1', patient_id: 'p1', status: 'booked' }],
  notes: [],
};

describe('countRowsWritten', () => {
  it('counts rows inserted, changed and deleted against the template, and nothing for an untouched copy', () => {
    const copy: DatabaseDump = JSON.parse(JSON.stringify(template)) as DatabaseDump;
    expect(countRowsWritten(template, copy)).toBe(0);
    const final: DatabaseDump = {
      // p1 inserted before (every row after it shifts place), p2 changed, p3 unchanged but with its columns in another order.
      patients: [{ id: 'p0', name: 'Zed', dob: '2000-02-02' }, template.patients?.[0] as Record<string, unknown>, { id: 'p2', name: 'Ben', dob: '1975-06-06' }, { dob: '1990-09-09', name: 'Cy', id: 'p3' }],
      appointments: [],
      notes: [{ id: 'n1', text: 'called back' }],
      extra: [{ id: 'x' }],
    };
    expect(countRowsWritten(template, final)).toBe(byDefinition(template, final));
    expect(countRowsWritten(template, final)).toBe(1 + 2 + 1 + 1 + 1);
  });

  it('agrees with the definition for rows that match the template in place and rows that do not', () => {
    const final: DatabaseDump = {
      patients: [template.patients?.[0] as Record<string, unknown>, { ...template.patients?.[1], name: 'Benjamin' }, { ...template.patients?.[2] }],
      appointments: [{ id: 'a1', patient_id: 'p1', status: 'cancelled' }, { id: 'a2', patient_id: 'p2', status: 'booked' }],
      notes: [],
    };
    expect(countRowsWritten(template, final)).toBe(byDefinition(template, final));
    expect(countRowsWritten(template, final)).toBe(2 + 3);
  });
});
