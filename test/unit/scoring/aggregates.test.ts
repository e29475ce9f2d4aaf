import { describe, expect, it } from 'vitest';
import { breakdowns, diagnosticsSummary, groupMetrics, leaderboard, P_K_LABEL, taskStats, wilsonInterval } from '../../../src/scoring/index.ts';
import { renderScoreTable } from '../../../src/report/index.ts';
import { trials } from '../../support/scoring-verdicts.ts';

const settings = { k: 5, seed: 1729, resamples: 2000 };
const metricsOf = (verdicts: ReturnType<typeof trials>, s = settings) => groupMetrics(taskStats(verdicts, s.k), s);

describe('aggregates (scoring.md §8)', () => {
  it('3 of 5 gives pass@1 0.6, pass^2 0.3, pass^3 0.1, pass^5 0 and pass@2 0.9', () => {
    const m = metricsOf(trials('C1-E1', 'PPFFP'));
    expect(m.pass_at_1).toBeCloseTo(0.6, 12);
    expect(m.pass_hat_k['2']).toBeCloseTo(0.3, 12);
    expect(m.pass_hat_k['3']).toBeCloseTo(0.1, 12);
    expect(m.pass_hat_k['5']).toBe(0);
    expect(m.pass_at_k['2']).toBeCloseTo(0.9, 12);
  });

  it('the p^k column is labelled as extrapolated and is never the headline', () => {
    const m = metricsOf(trials('C1-E1', 'PPFFP'));
    expect(m.p_k_extrapolated.label).toBe(P_K_LABEL);
    expect(P_K_LABEL).toBe('p^k (extrapolated from pass@1)');
    expect(m.p_k_extrapolated.values['5']).toBeCloseTo(0.6 ** 5, 12);
    expect(m.pass_hat_k['5']).not.toBe(m.p_k_extrapolated.values['5']);
  });

  it('tasks with n < k are left out of pass^k and listed', () => {
    const m = metricsOf([...trials('A', 'PPPPP'), ...trials('B', 'PPFVP')]);
    expect(m.pass_hat_k['5']).toBe(1);
    expect(m.left_out['5']).toEqual(['healthcare/B [openai/gpt-realtime]']);
    expect(m.pass_hat_k['4']).toBeCloseTo((1 + 0) / 2, 12);
  });

  it('voids are out of every denominator, and counts by type are printed beside the headline', () => {
    const verdicts = [...trials('A', 'PPFVP'), ...trials('B', 'PPPPV', {})];
    verdicts[9] = { ...verdicts[9]!, void_reason: 'provider_error' };
    const m = metricsOf(verdicts);
    expect([m.scored, m.voids, m.pass_at_1]).toEqual([8, 2, 7 / 8]);
    expect(m.voids_by_type).toMatchObject({ no_agent_audio: 1, provider_error: 1 });
    expect(m.mean_reward).toBeCloseTo(7 / 8, 12);
  });

  it('pass^1 and pooled pass@1 are both shown when they differ', () => {
    const m = metricsOf([...trials('A', 'PPPPP'), ...trials('B', 'F')]);
    expect(m.pass_at_1).toBeCloseTo(5 / 6, 12);
    expect(m.pass_hat_1_task_mean).toBeCloseTo(0.5, 12);
    const text = renderScoreTable(fakeReport([...trials('A', 'PPPPP'), ...trials('B', 'F')]));
    expect(text).toMatch(/pass\^1 task mean 0\.500 differs from pooled pass@1/);
  });

  it('heterogeneity: tasks at 5/5 and 0/5 give pass^5 0.5', () => {
    const m = metricsOf([...trials('A', 'PPPPP'), ...trials('B', 'FFFFF')]);
    expect([m.pass_at_1, m.pass_hat_k['5'], m.p_k_extrapolated.values['5']]).toEqual([0.5, 0.5, 0.5 ** 5]);
  });

  it('the k-of-n histogram and the flip rate are computed from fixtures', () => {
    const m = metricsOf([...trials('A', 'PPPPP'), ...trials('B', 'FFFFF'), ...trials('C', 'PPFFP'), ...trials('D', 'PPF')]);
    expect(m.histogram.counts).toEqual([1, 0, 0, 1, 0, 1]);
    expect(m.histogram.other).toEqual([{ task: 'healthcare/D [openai/gpt-realtime]', c: 2, n: 3 }]);
    expect(m.flip.mean).toBeCloseTo((0 + 0 + 0.6 + 2 / 3) / 4, 12);
    expect(m.flip.mixed_share).toBe(0.5);
  });

  it('the bootstrap resamples tasks, is identical for one seed and changes with the seed', () => {
    const patterns = ['PPPPP', 'FFFFF', 'PPFFP', 'PFFFF', 'PPPPF', 'PFPFP', 'FFFFP', 'PPPFF', 'PFFFP', 'PPPPP', 'FPPPP'];
    const v = patterns.flatMap((p, i) => trials(`T${i}`, p));
    const few = { ...settings, resamples: 97 };
    const a = metricsOf(v, few);
    expect(metricsOf(v, few).ci).toEqual(a.ci);
    expect(metricsOf(v, { ...few, seed: 7 }).ci).not.toEqual(a.ci);
    const [lo, hi] = a.ci.pass_at_1 ?? [NaN, NaN];
    expect(lo).toBeLessThanOrEqual(a.pass_at_1 ?? 0);
    expect(hi).toBeGreaterThanOrEqual(a.pass_at_1 ?? 1);
    // Resampling tasks, not conversations: a single task has no spread to resample, so its interval
    // is Wilson's over one task (never the collapsed [0.6, 0.6] five conversations would suggest).
    expect(metricsOf(trials('C', 'PPFFP')).ci.pass_at_1).toEqual(wilsonInterval(0.6, 1));
  });

  it('breakdowns by category, difficulty and audio condition add up to the totals', () => {
    const v = [
      ...trials('C1-E1', 'PPPPF', { category: 'C1', difficulty: 'easy', audio: 'perfect' }),
      ...trials('C1-E1-BG', 'PFVPF', { category: 'C1', difficulty: 'easy', audio: 'background_noise' }),
      ...trials('C2-H1', 'FFFPV', { category: 'C2', difficulty: 'hard', audio: 'perfect' }),
      ...trials('S-E1', 'PPPPP', { pack: 'control-industry', category: 'S' }),
    ];
    const tasks = taskStats(v, 5);
    const b = breakdowns(tasks, settings);
    const total = groupMetrics(tasks.filter((t) => t.pack !== 'control-industry'), settings);
    for (const dim of [b.category, b.difficulty, b.audio_condition]) {
      expect(dim.reduce((s, r) => s + r.metrics.scored, 0)).toBe(total.scored);
      expect(dim.reduce((s, r) => s + r.metrics.pass, 0)).toBe(total.pass);
      expect(dim.reduce((s, r) => s + r.metrics.voids, 0)).toBe(total.voids);
      expect(dim.reduce((s, r) => s + r.metrics.tasks, 0)).toBe(total.tasks);
    }
    expect(b.pack.map((r) => [r.value, r.excluded_from_headline])).toEqual([['control-industry', true], ['healthcare', false]]);
  });

  it('the leaderboard separates pack versions and flags void share above 10%', () => {
    const v = [
      ...trials('A', 'PPPPP', { harness: 'openai', version: 'v1' }),
      ...trials('A', 'PPVVP', { harness: 'qwen', version: 'v1' }),
      ...trials('A', 'PPPPP', { harness: 'openai', version: 'v2' }),
      ...trials('S-E1', 'PPPPP', { pack: 'control-industry' }),
    ];
    const tables = leaderboard(taskStats(v, 5), v, settings);
    expect(tables.map((t) => [t.pack, t.pack_version, t.rows.map((r) => [r.rank, r.harness, r.unreliable])])).toEqual([
      ['healthcare', 'v1', [[1, 'openai', false], [2, 'qwen', true]]],
      ['healthcare', 'v2', [[1, 'openai', false]]],
    ]);
  });
});

function fakeReport(verdicts: ReturnType<typeof trials>): Parameters<typeof renderScoreTable>[0] {
  const tasks = taskStats(verdicts, 5);
  const status = { pass: 0, fail: 0, void: 0, unmapped: 0, pending: 0, voids_by_type: { snapshot_missing: 0, infra_error: 0, provider_error: 0, no_agent_audio: 0, caller_never_spoke: 0, caller_dropped_early: 0, caller_deviation: 0 } };
  return {
    meta: { scorer_version: 'x', packs: [], k: 5, bootstrap: { prng: 'mulberry32', seed: 1, resamples: 10 }, headline_excluded_packs: ['control-industry'], flags: {} },
    conversations: verdicts,
    tasks,
    aggregates: { headline: groupMetrics(tasks, settings), status, headline_status: status, diagnostics: diagnosticsSummary(verdicts) },
    breakdowns: breakdowns(tasks, settings),
    leaderboard: [],
  };
}
