import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { aggregateMetrics } from '../../../src/episodes/index.ts';
import { passAtK, passHatK } from '../../../src/scoring/index.ts';

/** The statistics written the plain way (sort for the median), to check the linear ones against. */
function plainStats(values: number[]): Record<string, number> {
  const sorted = [...values].sort((a, b) => a - b);
  const n = sorted.length;
  const mean = values.reduce((s, v) => s + v, 0) / n;
  const median = n % 2 ? (sorted[(n - 1) / 2] as number) : ((sorted[n / 2 - 1] as number) + (sorted[n / 2] as number)) / 2;
  const std = n > 1 ? Math.sqrt(values.reduce((s, v) => s + (v - mean) ** 2, 0) / (n - 1)) : 0;
  return { mean, max: sorted.at(-1) as number, min: sorted[0] as number, median, std };
}

describe('aggregate_metrics', () => {
  it('profiles every numeric field of the verify responses, booleans as 1/0 and response.usage numbers too; the indices are keys', () => {
    const rows = [
      { _ng_task_index: 0, _ng_rollout_index: 0, reward: 1, pass: true, turns: 7, custom_score: 0.25, status: 'PASS', response: { usage: { input_tokens: 100, output_tokens: 20, input_tokens_details: { cached_tokens: 3 } } } },
      { _ng_task_index: 0, _ng_rollout_index: 1, reward: 0, pass: false, turns: 3, custom_score: 0.75, status: 'FAIL', response: { usage: { input_tokens: 50, output_tokens: 10 } } },
    ];
    const { agent_metrics, group_level_metrics } = aggregateMetrics(rows);
    expect(agent_metrics).toMatchObject({ 'mean/turns': 5, 'mean/custom_score': 0.5, 'mean/pass': 0.5, 'max/input_tokens': 100, 'min/output_tokens': 10, 'median/reward': 0.5 });
    expect(Object.keys(agent_metrics).filter((k) => k.includes('_ng_') || k.includes('cached_tokens') || k.endsWith('/status'))).toEqual([]);
    expect(group_level_metrics[0]).toMatchObject({ _ng_task_index: 0, 'mean/custom_score': 0.5, num_rollouts: 2 });
  });

  it('gives the same statistics and estimators as the plain definitions, for any rows', () => {
    const row = fc.record({ task: fc.integer({ min: 0, max: 6 }), reward: fc.double({ min: -5, max: 5, noNaN: true }), extra: fc.integer({ min: -100, max: 100 }), status: fc.constantFrom('PASS', 'FAIL', 'VOID') });
    fc.assert(
      fc.property(fc.array(row, { minLength: 1, maxLength: 60 }), (generated) => {
        const rows = generated.map((r) => ({ _ng_task_index: r.task, reward: r.reward, extra: r.extra, status: r.status, pass: r.status === 'PASS', valid: r.status !== 'VOID' }));
        const { agent_metrics, group_level_metrics } = aggregateMetrics(rows);
        for (const name of ['reward', 'extra']) {
          const plain = plainStats(rows.map((r) => r[name as 'reward' | 'extra']));
          for (const [stat, value] of Object.entries(plain)) expect(agent_metrics[`${stat}/${name}`]).toBeCloseTo(value, 9);
        }
        const tasks = [...new Set(rows.map((r) => r._ng_task_index))].map((t) => {
          const scored = rows.filter((r) => r._ng_task_index === t && r.valid);
          return { n: scored.length, c: scored.filter((r) => r.pass).length };
        });
        const maxK = Math.max(0, ...tasks.map((t) => t.n));
        for (let k = 1; k <= maxK; k++) {
          const reaching = tasks.filter((t) => t.n >= k);
          expect(agent_metrics[`pass^${k}`]).toBeCloseTo(reaching.reduce((s, t) => s + (passHatK(t.n, t.c, k) as number), 0) / reaching.length, 12);
          expect(agent_metrics[`pass@${k}`]).toBeCloseTo(reaching.reduce((s, t) => s + (passAtK(t.n, t.c, k) as number), 0) / reaching.length, 12);
        }
        expect(agent_metrics[`pass^${maxK + 1}`]).toBeUndefined();
        expect(group_level_metrics).toHaveLength(tasks.length);
      }),
      { numRuns: 200, seed: 25 },
    );
  });
});
