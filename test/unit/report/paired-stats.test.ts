import { describe, expect, it } from 'vitest';
import { binomialCdf, comparePaired, exactMcNemar, mcnemarPower, mddFloor, minimumDetectableDifference, pairedBootstrap, taskPassed } from '../../../src/scoring/index.ts';

describe('exact McNemar', () => {
  it('is twice the binomial(b + c, 1/2) tail of the smaller discordant count', () => {
    // 10 vs 3: 2·(C(13,0)+C(13,1)+C(13,2)+C(13,3))/2^13 = 2·378/8192.
    expect(exactMcNemar(10, 3)).toBeCloseTo((2 * 378) / 8192, 12);
    expect(exactMcNemar(3, 10)).toBeCloseTo(exactMcNemar(10, 3), 12);
    // Six discordant tasks all one way is the fewest that reach 0.05; five are not enough.
    expect(exactMcNemar(6, 0)).toBeCloseTo(1 / 32, 12);
    expect(exactMcNemar(5, 0)).toBeCloseTo(1 / 16, 12);
    expect(exactMcNemar(0, 0)).toBe(1);
    expect(exactMcNemar(4, 4)).toBe(1);
  });

  it('a task passes a run only when every scored trial passed', () => {
    expect([taskPassed({ n: 3, c: 3 }), taskPassed({ n: 3, c: 2 }), taskPassed({ n: 0, c: 0 })]).toEqual([true, false, false]);
  });
});

describe('power and the minimum detectable difference', () => {
  it('power is the test size with no difference and grows with the difference', () => {
    const size = mcnemarPower(72, 0.3, 0);
    expect(size).toBeLessThanOrEqual(0.05);
    const powers = [0.05, 0.1, 0.2, 0.3].map((d) => mcnemarPower(72, 0.3, d));
    expect([...powers].sort((a, b) => a - b)).toEqual(powers);
    expect(powers[3]).toBeGreaterThan(0.99);
  });

  it('the MDD is where power crosses 80%, shrinks with more tasks and is near the normal approximation', () => {
    const at72 = minimumDetectableDifference(72, 0.3) as number;
    expect(mcnemarPower(72, 0.3, at72)).toBeGreaterThanOrEqual(0.8);
    expect(mcnemarPower(72, 0.3, at72 - 0.01)).toBeLessThan(0.8);
    const at360 = minimumDetectableDifference(360, 0.3) as number;
    expect(at360).toBeLessThan(at72);
    // (z_.975 + z_.8)·sqrt(ψ/n) ≈ 2.80·sqrt(0.3/360) = 0.081.
    expect(at360).toBeGreaterThan(0.07);
    expect(at360).toBeLessThan(0.095);
  });

  it('with five tasks or fewer nothing is detectable (six one-sided discordant tasks are the fewest that reach 0.05)', () => {
    expect(minimumDetectableDifference(3, 1)).toBeNull();
    expect(mddFloor(3)).toBeNull();
    expect(mddFloor(5)).toBeNull();
    // Six tasks, all discordant: power is q^6 + (1 − q)^6 with q = (1 + δ)/2.
    const six = minimumDetectableDifference(6, 1) as number;
    const q = (1 + six) / 2;
    expect(q ** 6 + (1 - q) ** 6).toBeCloseTo(0.8, 3);
    expect(1 - binomialCdf(6, 5, 0.5)).toBeCloseTo(1 / 64, 12);
  });

  it('the floor is at or below the MDD at any discordance', () => {
    const floor = mddFloor(72) as number;
    for (const psi of [0.15, 0.3, 0.6, 1]) {
      const mdd = minimumDetectableDifference(72, psi);
      if (mdd !== null) expect(floor).toBeLessThanOrEqual(mdd + 1e-4);
    }
    expect(floor).toBeGreaterThan(0.05);
  });
});

describe('comparePaired', () => {
  const tasks = [
    ...Array.from({ length: 7 }, (_, i) => ({ task_id: `w${i}`, a: { n: 2, c: 2 }, b: { n: 2, c: 0 } })),
    { task_id: 'l0', a: { n: 2, c: 1 }, b: { n: 2, c: 2 } },
    { task_id: 'both', a: { n: 2, c: 2 }, b: { n: 2, c: 2 } },
    { task_id: 'none', a: { n: 2, c: 0 }, b: { n: 2, c: 1 } },
    { task_id: 'void', a: { n: 0, c: 0 }, b: { n: 2, c: 2 } },
  ];

  it('builds the 2x2 table over comparable tasks and tests its discordant cells', () => {
    const r = comparePaired(tasks, { seed: 1729, resamples: 500 });
    expect(r.table).toEqual({ tasks: 10, both: 1, a_only: 7, b_only: 1, neither: 1 });
    expect(r.not_comparable).toEqual(['void']);
    expect(r.mcnemar_p).toBeCloseTo(exactMcNemar(7, 1), 12);
    expect(r.difference).toBeCloseTo(0.6, 12);
    // Mean of per-task rate differences: 7·1 + (−0.5) + 0 + (−0.5) over 10.
    expect(r.rate_difference).toBeCloseTo(0.6, 12);
    expect(r.discordance).toBeCloseTo(0.8, 12);
    const [lo, hi] = r.rate_difference_ci as [number, number];
    expect(lo).toBeLessThan(0.6);
    expect(hi).toBeGreaterThan(0.6);
  });

  it('the paired bootstrap is fixed by its seed', () => {
    const d = [1, 0, -0.5, 1, 0.5, 0];
    expect(pairedBootstrap(d, 7, 300)).toEqual(pairedBootstrap(d, 7, 300));
    expect(pairedBootstrap(d, 7, 300)).not.toEqual(pairedBootstrap(d, 8, 300));
    expect(pairedBootstrap([], 7, 300)).toBeNull();
  });
});
