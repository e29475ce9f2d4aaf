import { describe, expect, it } from 'vitest';
import { judgeHandoff, rewardOf } from '../../../src/scoring/index.ts';
import type { TimelineEvent } from '../../../src/snapshot/index.ts';
import { handoffEvent, toolEvent } from '../../support/scoring-fixtures.ts';

const E = ['transfer_to_identity', 'transfer_to_scheduling'];
const hops = (...targets: string[]): TimelineEvent[] => {
  let from = 'reception';
  return targets.map((to, i) => {
    const e = handoffEvent(i + 1, from, to, 1000);
    from = to;
    return e;
  });
};

describe('handoff gate and reward (scoring.md §6, §7)', () => {
  it('an empty path with no hops → optimal, reward 1', () => {
    const r = judgeHandoff([], 'reception', []);
    expect([r.verdict, r.pass, rewardOf(r.pass, 0, r.actual_path.length)]).toEqual(['optimal', true, 1]);
  });

  it('an empty path with one hop → none_required, pass, reward 0.5', () => {
    const r = judgeHandoff([], 'reception', hops('identity'));
    expect([r.verdict, r.pass, rewardOf(r.pass, 0, 1)]).toEqual(['none_required', true, 0.5]);
  });

  it('the exact path → optimal, reward 1', () => {
    const r = judgeHandoff(E, 'reception', hops('identity', 'scheduling'));
    expect([r.verdict, rewardOf(r.pass, 2, 2)]).toEqual(['optimal', 1]);
    expect(r.agent_sequence).toEqual(['reception', 'identity', 'scheduling']);
  });

  it('a detour → pass, reward (1+|E|)/(1+|A|)', () => {
    const r = judgeHandoff(E, 'reception', hops('identity', 'coverage', 'scheduling'));
    expect([r.verdict, r.pass]).toEqual(['detour', true]);
    expect(rewardOf(r.pass, E.length, r.actual_path.length)).toBe(0.75);
  });

  it('a missing hop → incomplete, FAIL, reward 0', () => {
    const r = judgeHandoff(E, 'reception', hops('scheduling'));
    expect([r.verdict, r.pass, r.first_unmatched, rewardOf(r.pass, 2, 1)]).toEqual(['incomplete', false, 'transfer_to_identity', 0]);
  });

  it('reversed hops → out_of_order, FAIL', () => {
    const r = judgeHandoff(E, 'reception', hops('scheduling', 'identity'));
    expect([r.verdict, r.pass]).toEqual(['out_of_order', false]);
  });

  it('refused transfers and human transfers are not hops', () => {
    const refused = toolEvent({ seq: 1, name: 'transfer_to_scheduling', kind: 'handoff', agent: 'reception', executed: false, refusal: 'HANDOFF_NOT_ALLOWED', canonical_arguments: null, output: { ok: false } });
    const human = toolEvent({ seq: 2, name: 'transfer_to_human', kind: 'session', agent: 'reception' });
    const r = judgeHandoff([], 'reception', [refused, human]);
    expect([r.verdict, r.actual_path]).toEqual(['optimal', []]);
    expect(r.transfer_refusals).toEqual([{ seq: 1, name: 'transfer_to_scheduling', agent: 'reception' }]);
  });

  it('order comes from seq even when offsets tie', () => {
    const events = [handoffEvent(7, 'identity', 'scheduling', 5000), handoffEvent(3, 'reception', 'identity', 5000)];
    expect(judgeHandoff(E, 'reception', events).verdict).toBe('optimal');
    const swapped = [handoffEvent(3, 'identity', 'scheduling', 5000), handoffEvent(7, 'reception', 'identity', 5000)];
    expect(judgeHandoff(E, 'reception', swapped).verdict).toBe('out_of_order');
  });
});
