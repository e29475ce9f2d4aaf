import { describe, expect, it } from 'vitest';
import type { ExpectedCall } from '../../../src/packs/index.ts';
import { describeToolFailures, judgeTools, maximumMatching, type ToolGateResult } from '../../../src/scoring/index.ts';
import type { TimelineEvent } from '../../../src/snapshot/index.ts';
import { CLINIC_BLUEPRINT, CLINIC_POLICY, CLINIC_TOOLS, toolEvent } from '../../support/scoring-fixtures.ts';

function gate(expected: ExpectedCall[], events: TimelineEvent[], forbidden: string[] = []): ToolGateResult {
  return judgeTools({ expected, forbidden, policy: CLINIC_POLICY, blueprint: CLINIC_BLUEPRINT, tools: CLINIC_TOOLS }, events);
}

const verify: ExpectedCall = { name: 'verify_identity', parameters: { full_name: 'Dana Whitcombe', date_of_birth: '1984-03-02' } };
const verifyOk = (seq: number, args: Record<string, unknown> = { full_name: 'Dana Whitcombe', date_of_birth: '1984-03-02' }) =>
  toolEvent({ seq, name: 'verify_identity', agent: 'identity', canonical_arguments: args, output: { ok: true, data: { patient_id: 'pat_dana_whitcombe' } } });
const find = (seq: number, location: string) => toolEvent({ seq, name: 'find_openings', agent: 'scheduling', canonical_arguments: { location_id: location, visit_type: 'follow_up' } });

describe('tool gate (scoring.md §5)', () => {
  it('a perfect run matches every expected call', () => {
    const r = gate([verify, { name: 'find_openings', parameters: { location_id: 'loc_cobble_hill', visit_type: 'follow_up' } }], [verifyOk(1), find(2, 'loc_cobble_hill')]);
    expect(r.pass).toBe(true);
    expect(r.score).toBe(1);
    expect(r.matched).toEqual([{ expected: 1, seq: 1 }, { expected: 2, seq: 2 }]);
  });

  it('empty actual arguments do not satisfy constrained expectations', () => {
    const r = gate([verify], [verifyOk(1, {})]);
    expect(r.pass).toBe(false);
    expect(r.missing[0]?.candidates[0]?.failures.map((f) => f.reason)).toEqual(['absent', 'absent']);
  });

  it('a constrained key missing from the actual call fails, with reason absent', () => {
    const r = gate([verify], [verifyOk(1, { full_name: 'Dana Whitcombe' })]);
    expect(r.missing[0]?.candidates[0]?.failures).toEqual([expect.objectContaining({ argument: 'date_of_birth', reason: 'absent' })]);
  });

  it('$any_of passes for a listed value and fails for another', () => {
    const e: ExpectedCall = { name: 'find_openings', parameters: { location_id: { $any_of: ['loc_cobble_hill', 'loc_soho'] } } };
    expect(gate([e], [find(1, 'loc_cobble_hill')]).pass).toBe(true);
    const r = gate([e], [find(1, 'loc_park_ave')]);
    expect(r.missing[0]?.candidates[0]?.failures[0]?.reason).toBe('not_any_of');
  });

  it('$present fails on a blank prose argument', () => {
    const e: ExpectedCall = { name: 'transfer_to_human', parameters: { reason: { $present: true } } };
    const call = (reason: string) => toolEvent({ seq: 1, name: 'transfer_to_human', kind: 'session', agent: 'scheduling', canonical_arguments: { reason } });
    expect(gate([e], [call('Wants a person about billing')]).pass).toBe(true);
    expect(gate([e], [call('   ')]).missing[0]?.candidates[0]?.failures[0]?.reason).toBe('blank');
  });

  it('an omitted output defaults to ok:true, so an ok:false call does not match', () => {
    const r = gate([verify], [toolEvent({ ...verifyOk(1), output: { ok: false, error_code: 'NO_MATCH' } })]);
    expect(r.pass).toBe(false);
    expect(r.missing[0]?.candidates[0]?.failures[0]).toMatchObject({ argument: 'output.ok', expected: true, actual: false });
  });

  it('an expected refusal needs ok:false and the same error_code', () => {
    const e: ExpectedCall = { ...verify, output: { ok: false, error_code: 'NO_MATCH' } };
    expect(gate([e], [toolEvent({ ...verifyOk(1), output: { ok: false, error_code: 'NO_MATCH' } })]).pass).toBe(true);
    expect(gate([e], [toolEvent({ ...verifyOk(1), output: { ok: false, error_code: 'LOCKED' } })]).pass).toBe(false);
    expect(gate([e], [verifyOk(1)]).pass).toBe(false);
  });

  it('a declared data key must be present; undeclared keys are ignored', () => {
    const e: ExpectedCall = { name: 'quote_visit_change', parameters: { action: 'cancel' }, output: { ok: true, data: { fee_cents: 4000 } } };
    const call = (data: Record<string, unknown>) => toolEvent({ seq: 1, name: 'quote_visit_change', agent: 'scheduling', canonical_arguments: { action: 'cancel' }, output: { ok: true, data } });
    expect(gate([e], [call({ fee_cents: 4000, token: 'tok_1' })]).pass).toBe(true);
    expect(gate([e], [call({ token: 'tok_1' })]).missing[0]?.candidates[0]?.failures[0]).toMatchObject({ argument: 'output.data.fee_cents', reason: 'absent' });
  });

  it('an envelope without ok is a mismatch', () => {
    expect(gate([verify], [toolEvent({ ...verifyOk(1), output: { data: {} } })]).pass).toBe(false);
  });

  it('a failed attempt followed by a correct retry passes', () => {
    const failed = toolEvent({ seq: 1, name: 'verify_identity', agent: 'identity', canonical_arguments: { full_name: 'Dana Whitcomb', date_of_birth: '1984-03-02' }, output: { ok: false, error_code: 'NO_MATCH' } });
    const r = gate([verify], [failed, verifyOk(2)]);
    expect(r.pass).toBe(true);
    expect(r.extra.map((e) => e.seq)).toEqual([1]);
  });

  it('a duplicate expectation needs two distinct calls', () => {
    const e: ExpectedCall = { name: 'find_openings', parameters: { visit_type: 'follow_up' } };
    expect(gate([e, e], [find(1, 'loc_cobble_hill')]).pass).toBe(false);
    expect(gate([e, e], [find(1, 'loc_cobble_hill'), find(2, 'loc_park_ave')]).pass).toBe(true);
  });

  it('a case that fails greedy matching passes under the maximum matching', () => {
    const e1: ExpectedCall = { name: 'find_openings', parameters: { visit_type: 'follow_up' } };
    const e2: ExpectedCall = { name: 'find_openings', parameters: { location_id: 'loc_cobble_hill', visit_type: 'follow_up' } };
    const r = gate([e1, e2], [find(1, 'loc_cobble_hill'), find(2, 'loc_park_ave')]);
    expect(r.pass).toBe(true);
    expect(r.matched).toEqual([{ expected: 1, seq: 2 }, { expected: 2, seq: 1 }]);
    expect(maximumMatching([[0, 1], [0]], 2)).toEqual([1, 0]);
  });

  it('the matching and report are identical across runs (stable)', () => {
    const e: ExpectedCall = { name: 'find_openings', parameters: { visit_type: 'follow_up' } };
    const events = [find(3, 'loc_park_ave'), find(1, 'loc_cobble_hill'), find(2, 'loc_cobble_hill')];
    const a = gate([e, e], events);
    const b = gate([e, e], [...events].reverse());
    expect(JSON.stringify(a)).toBe(JSON.stringify(b));
    expect(a.matched).toEqual([{ expected: 1, seq: 1 }, { expected: 2, seq: 2 }]);
  });

  it('extra read calls are allowed and listed', () => {
    const r = gate([verify], [verifyOk(1), find(2, 'loc_park_ave'), find(3, 'loc_cobble_hill')]);
    expect(r.pass).toBe(true);
    expect(r.extra.map((e) => e.name)).toEqual(['find_openings', 'find_openings']);
  });

  it('a forbidden tool fails, even with ok:false', () => {
    const text = toolEvent({ seq: 2, name: 'send_visit_text', agent: 'scheduling', canonical_arguments: { phone: '+12125550100' }, output: { ok: false, error_code: 'NO_PHONE' } });
    const r = gate([verify], [verifyOk(1), text], ['send_visit_text']);
    expect(r.pass).toBe(false);
    expect(r.forbidden).toEqual([{ seq: 2, name: 'send_visit_text', agent: 'scheduling', executed: true }]);
  });

  it('an executed out-of-scope call fails scoping', () => {
    const book = toolEvent({ seq: 2, name: 'book_visit', agent: 'identity', canonical_arguments: { opening_id: 'opn_1' } });
    const r = gate([verify, { name: 'book_visit', parameters: { opening_id: 'opn_1' } }], [verifyOk(1), book]);
    expect(r.pass).toBe(false);
    expect(r.scope_violations).toEqual([{ seq: 2, name: 'book_visit', agent: 'identity', owners: ['scheduling'] }]);
    expect(describeToolFailures(r)).toContain('scope: book_visit executed by identity; owners: scheduling');
  });

  it('a refused out-of-scope attempt is a diagnostic only', () => {
    const refused = toolEvent({ seq: 2, name: 'book_visit', agent: 'identity', canonical_arguments: null, executed: false, refusal: 'TOOL_NOT_AVAILABLE', output: { ok: false, error_code: 'TOOL_NOT_AVAILABLE' } });
    const r = gate([verify], [verifyOk(1), refused]);
    expect(r.pass).toBe(true);
    expect(r.scope_refusals).toEqual([{ seq: 2, name: 'book_visit', agent: 'identity' }]);
  });

  it('the missing-call report lists the nearest candidates with per-argument reasons', () => {
    const e: ExpectedCall = { name: 'book_visit', parameters: { opening_id: 'opn_cobble_hill_1013_1400' } };
    const book = (seq: number, id: string) => toolEvent({ seq, name: 'book_visit', agent: 'scheduling', canonical_arguments: { opening_id: id } });
    const r = gate([e], [book(1, 'opn_park_ave_1013_1400'), book(2, 'opn_a'), book(3, 'opn_b'), book(4, 'opn_c')]);
    expect(r.missing[0]?.candidates).toHaveLength(3);
    expect(r.missing[0]?.candidates[0]).toMatchObject({ seq: 1, failures: [{ argument: 'opening_id', reason: 'mismatch', expected: 'opn_cobble_hill_1013_1400', actual: 'opn_park_ave_1013_1400', rule: 'text' }] });
    expect(describeToolFailures(r)[0]).toBe('tools: #1 book_visit: opening_id expected "opn_cobble_hill_1013_1400", got "opn_park_ave_1013_1400" (text)');
    expect(gate([{ name: 'send_visit_text' }], []).missing[0]).toMatchObject({ never_called: true, candidates: [] });
  });

  it('a compatible candidate held by another expectation is reported as used', () => {
    const e: ExpectedCall = { name: 'find_openings', parameters: { visit_type: 'follow_up' } };
    const r = gate([e, e], [find(1, 'loc_cobble_hill')]);
    expect(r.missing[0]?.candidates[0]?.used_by).toBe(1);
  });

  it('arguments use the state column normaliser, then the type default', () => {
    const e: ExpectedCall = { name: 'book_visit', parameters: { starts_at: '2026-10-13T14:00' } };
    const book = toolEvent({ seq: 1, name: 'book_visit', agent: 'scheduling', canonical_arguments: { starts_at: '2026-10-13T14:00:00' } });
    expect(gate([e], [book]).pass).toBe(true);
    const plan: ExpectedCall = { name: 'check_plan_accepted', parameters: { tier: 2, telehealth: true } };
    const planCall = toolEvent({ seq: 1, name: 'check_plan_accepted', agent: 'coverage', canonical_arguments: { tier: '2', telehealth: 1 } });
    expect(gate([plan], [planCall]).pass).toBe(true);
  });
});
