import { buildComparison, rateVerdict } from './compare-page.ts';
import { formatInterval, formatRate } from './format.ts';
import { rankingRule } from './leaderboard-page.ts';
import { table } from './score-table.ts';
import type { ReportModel } from './ui-model.ts';

/** The terminal summary of several runs: each suite's ranking (with its rule) and every pair's paired test. */
export function renderComparisonText(model: ReportModel): string {
  const out: string[] = ['', 'runs compared (per run; nothing pooled across runs):'];
  for (const suite of buildComparison(model)) {
    out.push(`${suite.suiteLabel}:`);
    for (const g of suite.groups) {
      out.push(`  ${g.tasks} task(s), task set ${g.taskSetHash}: ${g.rows[0]?.isControl ? 'control pack, unranked' : rankingRule(g.k)}`);
      const k = String(g.k);
      out.push(...table([['rank', 'run', 'harness/model', 'pass@1', `pass^${k}`, 'mean reward'], ...g.rows.map((r) => [String(r.rank ?? '—'), r.entry.label, `${r.harness ?? '-'}/${r.model ?? '-'}`, `${formatRate(r.metrics.pass_at_1)} ${formatInterval(r.metrics.ci.pass_at_1)}`, formatRate(r.metrics.pass_hat_k[k]), formatRate(r.metrics.mean_reward)])]).map((l) => `    ${l}`));
    }
    for (const p of suite.pairs) {
      const s = p.stats;
      const mdd = s.mdd === null ? 'none at this discordance' : s.mdd.toFixed(3);
      const verdict = rateVerdict(s);
      out.push(`  ${p.a.entry.label} (A) vs ${p.b.entry.label} (B): ${verdict.significant ? 'significant' : 'not significant'}: ${verdict.text}`);
      out.push(`    pass^k reading (every trial passed): ${s.table.a_only} task(s) only A, ${s.table.b_only} only B, of ${s.table.tasks}; exact McNemar p ${s.mcnemar_p < 0.001 ? '< 0.001' : s.mcnemar_p.toFixed(3)}; MDD ${mdd} (floor ${s.mdd_floor === null ? 'none' : s.mdd_floor.toFixed(3)})`);
      for (const d of p.differing.slice(0, 10)) out.push(`    ${d.taskId}: ${d.winner === 'a' ? 'A' : 'B'} passes more often (${d.a.stats.c}/${d.a.stats.n} vs ${d.b.stats.c}/${d.b.stats.n}); ${d.winner === 'a' ? 'B' : 'A'} fails ${d.decidingGates.join('+') || 'void'}${d.reason ? `: ${d.reason}` : ''}`);
      if (p.differing.length > 10) out.push(`    … and ${p.differing.length - 10} more`);
    }
  }
  return `${out.join('\n')}\n`;
}
