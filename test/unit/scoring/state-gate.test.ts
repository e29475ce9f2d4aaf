import { describe, expect, it } from 'vitest';
import { effectivePolicy, type Task } from '../../../src/packs/index.ts';
import { judgeState, type StateGateResult, type StateTables } from '../../../src/scoring/index.ts';
import { CLINIC_POLICY, policy } from '../../support/scoring-fixtures.ts';

function judged(expected: StateTables, actual: StateTables, p = CLINIC_POLICY): StateGateResult {
  const out = judgeState(expected, actual, p);
  if (out.kind !== 'judged') throw new Error(`tables missing: ${out.tables.join(',')}`);
  return out.result;
}

const dana = (startsAt: string, fields: Record<string, unknown> = {}): Record<string, unknown> => ({
  id: 'apt_x', patient_id: 'pat_dana_whitcombe', starts_at: startsAt, location_id: 'loc_cobble_hill', visit_type: 'follow_up', status: 'booked', notes: null, ...fields,
});
const EXPECTED = {
  appointments: [dana('2026-10-07T09:00', { id: 'apt_dana_1007', status: 'cancelled' }), dana('2026-10-13T14:00', { id: 'apt_new' })],
};

describe('state gate (scoring.md §4)', () => {
  it('row order, created_at and ignored prose differences pass (run A)', () => {
    const actual = {
      appointments: [
        dana('2026-10-13T14:00:00', { id: 'apt_9f2', notes: 'Patient prefers mornings', created_at: '2026-10-06T10:04:00' }),
        dana('2026-10-07T09:00', { id: 'apt_dana_1007', status: 'Cancelled', created_at: '2026-09-01T00:00' }),
      ],
    };
    expect(judged(EXPECTED, actual).pass).toBe(true);
  });

  it('a changed field is reported as "changed" with field and rule, not as missing plus extra (run B)', () => {
    const actual = { appointments: [EXPECTED.appointments[0], dana('2026-10-13T14:00', { location_id: 'loc_park_ave' })] as Record<string, unknown>[] };
    const r = judged(EXPECTED, actual);
    expect(r.pass).toBe(false);
    expect(r.diff).toEqual([
      expect.objectContaining({ table: 'appointments', kind: 'changed', field: 'location_id', expected: 'loc_cobble_hill', actual: 'loc_park_ave', rule: 'exact, text', key: { patient_id: 'pat_dana_whitcombe', starts_at: '2026-10-13T14:00' } }),
    ]);
    expect([r.missing, r.extra, r.changed]).toEqual([0, 0, 1]);
  });

  it('missing, extra and changed are reported together in one table (run C)', () => {
    const actual = { appointments: [dana('2026-10-07T09:00', { status: 'booked' }), dana('2026-10-13T14:30')] };
    const r = judged(EXPECTED, actual);
    expect(r.diff.map((d) => [d.kind, d.field])).toEqual([
      ['changed', 'status'],
      ['missing', null],
      ['extra', null],
    ]);
    expect(r.diff[0]?.rule).toBe('exact, text');
  });

  it('an exact extra row fails', () => {
    const actual = { appointments: [...EXPECTED.appointments, dana('2026-10-20T10:00')] };
    const r = judged(EXPECTED, actual);
    expect(r.pass).toBe(false);
    expect(r.diff).toEqual([expect.objectContaining({ kind: 'extra', allowed: false })]);
  });

  const subset = (extra?: boolean) =>
    policy({ defaults: { ignore: [] }, tables: { waitlist: { scored: true, key: ['patient_id'], mode: 'subset', ...(extra ? { extra_when_empty: true } : {}) } } });

  it('a subset extra row passes when expected is non-empty and fails when expected is empty', () => {
    const row = { patient_id: 'p2' };
    const nonEmpty = judged({ waitlist: [{ patient_id: 'p1' }] }, { waitlist: [{ patient_id: 'p1' }, row] }, subset());
    expect(nonEmpty.pass).toBe(true);
    expect(nonEmpty.diff).toEqual([expect.objectContaining({ kind: 'extra', allowed: true })]);
    expect(judged({ waitlist: [] }, { waitlist: [row] }, subset()).pass).toBe(false);
  });

  it('extra_when_empty: true allows extras when expected is empty', () => {
    expect(judged({ waitlist: [] }, { waitlist: [{ patient_id: 'p2' }] }, subset(true)).pass).toBe(true);
  });

  it('a duplicate key is resolved by the minimum-difference assignment', () => {
    const p = policy({ defaults: { ignore: [] }, tables: { charges: { scored: true, key: ['patient_id', 'kind'], mode: 'exact' } } });
    const expected = { charges: [{ patient_id: 'p', kind: 'fee', amount: 4000, memo: 'a' }, { patient_id: 'p', kind: 'fee', amount: 1000, memo: 'b' }] };
    const actual = { charges: [{ patient_id: 'p', kind: 'fee', amount: 1000, memo: 'b' }, { patient_id: 'p', kind: 'fee', amount: 4000, memo: 'x' }] };
    const r = judged(expected, actual, p);
    expect(r.diff).toEqual([expect.objectContaining({ kind: 'changed', field: 'memo', expected: 'a', actual: 'x' })]);
  });

  it('defaults.strings applies to text columns only, and a per-column exact overrides it', () => {
    const p = policy({ defaults: { ignore: [], strings: 'text' }, tables: { t: { scored: true, key: ['id'], normalise: { code: 'exact' } } } });
    expect(judged({ t: [{ id: 1, name: 'Dana', code: 'AB' }] }, { t: [{ id: 1, name: 'DANA ', code: 'AB' }] }, p).pass).toBe(true);
    expect(judged({ t: [{ id: 1, name: 'Dana', code: 'AB' }] }, { t: [{ id: 1, name: 'Dana', code: 'ab' }] }, p).pass).toBe(false);
    expect(judged({ t: [{ id: 1, qty: 1 }] }, { t: [{ id: 1, qty: '1' }] }, p).pass).toBe(false);
  });

  it('a datetime with a zone is unparsed in the diff', () => {
    const actual = { appointments: [EXPECTED.appointments[0], dana('2026-10-13T14:00Z')] as Record<string, unknown>[] };
    const r = judged(EXPECTED, actual);
    expect(r.pass).toBe(false);
    expect(r.diff.some((d) => d.kind === 'extra' && d.unparsed)).toBe(true);
  });

  it('a task compare override is merged per table', () => {
    const task = { compare: { tables: { appointments: { scored: true, mode: 'subset' as const } } } } as Pick<Task, 'compare'>;
    const merged = effectivePolicy(CLINIC_POLICY, task.compare);
    expect(merged.tables.appointments).toMatchObject({ mode: 'subset', key: ['patient_id', 'starts_at'], normalise: { starts_at: 'datetime_minute' } });
    const actual = { appointments: [...EXPECTED.appointments, dana('2026-10-20T10:00')] };
    expect(judged(EXPECTED, actual, merged).pass).toBe(true);
  });

  it('tables marked scored: false and reference tables without an entry are ignored', () => {
    const r = judged(EXPECTED, { ...EXPECTED, holds: [{ token: 'x' }], locations: [{ id: 'loc_new' }] });
    expect(r.pass).toBe(true);
    expect(r.tables.map((t) => t.table)).toEqual(['appointments']);
  });

  it('a scored table absent from the dump is reported, never read as empty', () => {
    expect(judgeState(EXPECTED, { holds: [] }, CLINIC_POLICY)).toEqual({ kind: 'missing_tables', tables: ['appointments'] });
  });

  it('a keyless table is a multiset reported as missing and extra', () => {
    const p = policy({ defaults: { ignore: [] }, tables: { log: { scored: true } } });
    const r = judged({ log: [{ m: 'a' }, { m: 'a' }] }, { log: [{ m: 'a' }, { m: 'b' }] }, p);
    expect(r.diff.map((d) => d.kind)).toEqual(['missing', 'extra']);
  });
});
