import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { flipRate, groupMetrics, mulberry32, passAtK, passHatK, taskStats } from '../../../src/scoring/index.ts';
import { trials } from '../../support/scoring-verdicts.ts';

function subsets(n: number, k: number): number[][] {
  if (k === 0) return [[]];
  if (n < k) return [];
  return [...subsets(n - 1, k - 1).map((s) => [...s, n - 1]), ...subsets(n - 1, k)];
}

function bruteForce(outcomes: readonly boolean[], k: number): number {
  const all = subsets(outcomes.length, k);
  return all.filter((s) => s.every((i) => outcomes[i])).length / all.length;
}

describe('estimators (scoring.md §8)', () => {
  it('3 of 5 gives pass@1 0.6, pass^2 0.3, pass^3 0.1, pass^5 0 and pass@2 0.9', () => {
    expect(passHatK(5, 3, 1)).toBeCloseTo(0.6, 12);
    expect(passHatK(5, 3, 2)).toBeCloseTo(0.3, 12);
    expect(passHatK(5, 3, 3)).toBeCloseTo(0.1, 12);
    expect(passHatK(5, 3, 5)).toBe(0);
    expect(passAtK(5, 3, 2)).toBeCloseTo(0.9, 12);
    expect(passAtK(5, 3, 3)).toBe(1);
  });

  it('the void example: n=4, c=3 gives pass^2 0.5, pass^3 0.25, pass^4 0 and no pass^5', () => {
    expect([passHatK(4, 3, 2), passHatK(4, 3, 3), passHatK(4, 3, 4), passHatK(4, 3, 5)]).toEqual([0.5, 0.25, 0, null]);
  });

  it('pass^k agrees with brute-force enumeration over all k-subsets (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.array(fc.boolean(), { minLength: 0, maxLength: 8 }), { minLength: 1, maxLength: 6 }), fc.integer({ min: 1, max: 5 }), (tasks, k) => {
        // A void trial rides along with every task, so a task with no scored trial still exists (n = 0).
        const verdicts = tasks.flatMap((outcomes, t) => trials(`T${t}`, `V${outcomes.map((o) => (o ? 'P' : 'F')).join('')}`));
        const m = groupMetrics(taskStats(verdicts, 5), { k: 5, seed: 1, resamples: 0 });
        const eligible = tasks.filter((o) => o.length >= k);
        const expected = eligible.length ? eligible.reduce((s, o) => s + bruteForce(o, k), 0) / eligible.length : null;
        const got = m.pass_hat_k[String(k)] ?? null;
        if (expected === null) expect(got).toBeNull();
        else expect(got).toBeCloseTo(expected, 10);
        expect(m.left_out[String(k)]).toHaveLength(tasks.filter((o) => o.length < k).length);
        for (const o of tasks) {
          const c = o.filter(Boolean).length;
          if (o.length >= k) expect(passAtK(o.length, c, k)).toBeCloseTo(1 - bruteForce(o.map((x) => !x), k), 10);
        }
      }),
      { seed: 1729, numRuns: 200 },
    );
  });

  it('flip rate is the chance two distinct trials disagree', () => {
    expect(flipRate(5, 3)).toBeCloseTo(0.6, 12);
    expect(flipRate(5, 5)).toBe(0);
    expect(flipRate(1, 1)).toBeNull();
  });

  it('mulberry32 is pinned', () => {
    const r = mulberry32(1729);
    expect([r(), r(), r()].map((x) => x.toFixed(8))).toEqual(
      (() => {
        const again = mulberry32(1729);
        return [again(), again(), again()].map((x) => x.toFixed(8));
      })(),
    );
    expect(mulberry32(1)()).toBeCloseTo(0.6270739405881613, 12);
  });
});
