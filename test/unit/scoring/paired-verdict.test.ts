import { describe, expect, it } from 'vitest';
import { bootstrapIntervals, comparePaired, newcombeDifference, wilsonInterval, type PairedTask } from '../../../src/scoring/index.ts';
import { rateVerdict } from '../../../src/report/index.ts';

/** 72 tasks × 5 trials, each task passing `passes(i)` of its 5 trials on each side. */
function runs(a: (i: number) => number, b: (i: number) => number): PairedTask[] {
  return Array.from({ length: 72 }, (_, i) => ({ task_id: `T${i}`, a: { n: 5, c: a(i) }, b: { n: 5, c: b(i) } }));
}

const settings = { seed: 1729, resamples: 2000 };

describe('paired comparison on per-task pass rates (issue 29)', () => {
  it('0% against 20% on 72 tasks × 5 trials: significant, with an interval of real width that leaves out 0', () => {
    // Every task of B passes exactly one trial in five: no task passes every trial on either side.
    const r = comparePaired(runs(() => 0, () => 1), settings);
    expect(r.table.a_only + r.table.b_only).toBe(0);
    expect(r.mcnemar_p).toBe(1);
    expect(r.rate_difference).toBeCloseTo(-0.2, 12);
    const [lo, hi] = r.rate_difference_ci as [number, number];
    expect(hi - lo).toBeGreaterThan(0.05);
    expect(hi).toBeLessThan(0);
    expect(lo).toBeLessThan(-0.2);
    expect(r.rate_ci_method).toBe('newcombe_wilson');
    expect(r.rate_significant).toBe(true);
    expect(rateVerdict(r).significant).toBe(true);
  });

  it('0% against a varied 20%: the paired bootstrap, still significant', () => {
    const r = comparePaired(runs(() => 0, (i) => [0, 1, 2, 1, 0, 2][i % 6] as number), settings);
    expect(r.rate_ci_method).toBe('paired_bootstrap');
    expect(r.rate_significant).toBe(true);
    expect((r.rate_difference_ci as [number, number])[1]).toBeLessThan(0);
  });

  it('two identical runs give no difference, and an interval around 0 of real width', () => {
    for (const rate of [0, 2, 5]) {
      const r = comparePaired(runs(() => rate, () => rate), settings);
      const [lo, hi] = r.rate_difference_ci as [number, number];
      expect(r.rate_significant).toBe(false);
      expect(lo).toBeLessThan(0);
      expect(hi).toBeGreaterThan(0);
      expect(rateVerdict(r).text).toMatch(/includes 0/);
    }
    const mixed = comparePaired(runs((i) => i % 6, (i) => i % 6), settings);
    expect(mixed.rate_significant).toBe(false);
  });

  it('the verdict and the interval agree for every pair of rates', () => {
    for (let a = 0; a <= 5; a++) {
      for (let b = 0; b <= 5; b++) {
        const r = comparePaired(runs((i) => (i % 2 ? a : b), () => b), settings);
        const [lo, hi] = r.rate_difference_ci as [number, number];
        expect(r.rate_significant).toBe(lo > 0 || hi < 0);
        expect(rateVerdict(r).significant).toBe(r.rate_significant);
        expect(hi).toBeGreaterThan(lo);
      }
    }
  });
});

describe('single-run intervals at 0% and 100%', () => {
  const unit = (c: number) => ({ n: 5, c, rewardSum: c / 5, passHat: [c / 5], passAt: [c > 0 ? 1 : 0] });

  it('an all-fail run of 72 tasks has a nonzero upper bound near the exact 0.05', () => {
    const ci = bootstrapIntervals(Array.from({ length: 72 }, () => unit(0)), { seed: 1729, resamples: 500, k: 1 });
    const [lo, hi] = ci.pass_at_1 as [number, number];
    expect(lo).toBe(0);
    // Clopper–Pearson gives 1 − 0.025^(1/72) = 0.0499 for 0 of 72; Wilson a little more.
    expect(hi).toBeGreaterThan(0.045);
    expect(hi).toBeLessThan(0.06);
    expect((ci.mean_reward as [number, number])[1]).toBeGreaterThan(0);
    expect((ci.pass_hat_k['1'] as [number, number])[1]).toBeGreaterThan(0);
  });

  it('an all-pass run has a lower bound below 1', () => {
    const ci = bootstrapIntervals(Array.from({ length: 72 }, () => unit(5)), { seed: 1729, resamples: 500, k: 1 });
    const [lo, hi] = ci.pass_at_1 as [number, number];
    expect(hi).toBe(1);
    expect(lo).toBeLessThan(0.96);
    expect(lo).toBeGreaterThan(0.9);
  });

  it('a spread run keeps its bootstrap interval', () => {
    const ci = bootstrapIntervals(Array.from({ length: 72 }, (_, i) => unit(i % 6)), { seed: 1729, resamples: 500, k: 1 });
    const [lo, hi] = ci.pass_at_1 as [number, number];
    const wilson = wilsonInterval(0.5, 72);
    expect(lo).toBeLessThan(0.5);
    expect(hi).toBeGreaterThan(0.5);
    // Narrower than treating tasks as single coin flips, because the tasks' rates vary less than 0/1 outcomes would.
    expect(hi - lo).toBeLessThan(wilson[1] - wilson[0]);
  });
});

describe('Wilson and Newcombe', () => {
  it('match hand-computed values', () => {
    const [lo, hi] = wilsonInterval(0, 72);
    expect(lo).toBe(0);
    expect(hi).toBeCloseTo(3.8415 / (72 + 3.8415), 4);
    const [l2, h2] = wilsonInterval(0.5, 100);
    expect(l2).toBeCloseTo(0.4038, 3);
    expect(h2).toBeCloseTo(0.5962, 3);
    const [dl, dh] = newcombeDifference(0, 0, 72);
    expect(dl).toBeCloseTo(-hi, 12);
    expect(dh).toBeCloseTo(hi, 12);
  });
});
