import type { BreakdownRow, GroupMetrics, LeaderboardTable, ScoreReportOf, TaskStats, VerdictRow } from '../scoring/index.ts';
import { barChart, intervalChart, lineChart } from './charts.ts';
import { formatHeadline, formatInterval, formatRate, formatVoids } from './format.ts';
import { html, htmlTable, type SafeHtml } from './html.ts';
import { headlineGroups } from './score-table.ts';

function ks(k: number): string[] {
  return Array.from({ length: k }, (_, i) => String(i + 1));
}

/** The header: run counts, the headline with voids beside it, and the scoring settings. */
export function renderHeader(report: ScoreReportOf<VerdictRow>): SafeHtml {
  const st = report.aggregates.status;
  const hs = report.aggregates.headline_status;
  const head = report.aggregates.headline;
  const k = report.meta.k;
  const split = headlineGroups(report);
  return html`<header><h1>mivas scores</h1>
${
    split.length > 1
      ? html`<p class="headline">A headline per harness/model (${split.length}; never pooled):</p><ul>${split.map((g) => html`<li><b>${g.who}</b>: ${formatHeadline(g.metrics, 0, 0)} · pass^${k} ${formatRate(g.metrics.pass_hat_k[String(k)])} ${formatInterval(g.metrics.ci.pass_hat_k[String(k)])}</li>`)}</ul>`
      : html`<p class="headline">${head.tasks ? `${formatHeadline(head, hs.unmapped, hs.pending)} · pass^${k} ${formatRate(head.pass_hat_k[String(k)])} ${formatInterval(head.ci.pass_hat_k[String(k)])}` : 'No scored conversations outside control packs.'}</p>`
  }
<p>${report.conversations.length} conversations: ${st.pass} pass, ${st.fail} fail, ${formatVoids(st.void, st.voids_by_type)}, ${st.unmapped} unmapped, ${st.pending} pending.</p>
<p class="meta">scorer ${report.meta.scorer_version} · packs ${report.meta.packs.map((p) => `${p.id}@${p.pack_version}`).join(', ')} · k=${k} · bootstrap ${report.meta.bootstrap.prng} seed ${report.meta.bootstrap.seed}, B=${report.meta.bootstrap.resamples}${report.meta.stamp ? ` · ${report.meta.stamp}` : ''} · not in headline: ${report.meta.headline_excluded_packs.join(', ')}</p></header>`;
}

function metricCells(m: GroupMetrics, k: number): string[] {
  return [String(m.tasks), String(m.scored), formatVoids(m.voids, m.voids_by_type), `${formatRate(m.pass_at_1)} ${formatInterval(m.ci.pass_at_1)}`, `${formatRate(m.pass_hat_k[String(k)])} ${formatInterval(m.ci.pass_hat_k[String(k)])}`, formatRate(m.pass_at_k[String(k)]), formatRate(m.mean_reward)];
}

/** One table per (pack, pack version, task set), ranked by pass^k then pass@1. */
export function renderLeaderboard(tables: readonly LeaderboardTable[], k: number): SafeHtml {
  if (!tables.length) return html`<section><h2>Leaderboard</h2><p>No leaderboard rows (control packs are excluded).</p></section>`;
  const header = ['#', 'harness', 'model', 'tasks', 'scored', 'voids', 'pass@1', `pass^${k}`, `pass@${k}`, 'mean reward', 'flip', 'first audio ms', 'p50/p95 ms', 'cost $', 'flag'];
  return html`<section><h2>Leaderboard</h2>${tables.map(
    (t) => html`<h3>${t.pack} @ ${t.pack_version ?? '?'} · task set ${t.task_set_hash}</h3>${htmlTable(
      header,
      t.rows.map((r) => [String(r.rank), r.harness ?? '-', r.model ?? '-', ...metricCells(r.metrics, k), formatRate(r.mean_flip_rate), r.median_first_agent_audio_ms ?? '—', `${r.latency_p50_ms ?? '—'}/${r.latency_p95_ms ?? '—'}`, r.mean_cost_usd === null ? '—' : r.mean_cost_usd.toFixed(4), r.unreliable ? 'unreliable' : '']),
    )}`,
  )}</section>`;
}

/**
 * pass^k, pass@k and the extrapolated p^k as curves, with the k-of-n histogram. The curves stop
 * at `kAllowed`, the largest k every task has trials for (beyond it a task would be left out);
 * the table lists every k with the tasks left out.
 */
export function renderCurves(m: GroupMetrics, k: number, title: string, kAllowed = k): SafeHtml {
  const labels = ks(k);
  const drawn = ks(Math.max(1, Math.min(k, kAllowed)));
  const series = [
    { label: 'pass^k (unbiased)', values: drawn.map((j) => m.pass_hat_k[j] ?? null) },
    { label: 'pass@k', values: drawn.map((j) => m.pass_at_k[j] ?? null) },
    { label: m.p_k_extrapolated.label, values: drawn.map((j) => m.p_k_extrapolated.values[j] ?? null), dashed: true },
  ];
  const histLabels = m.histogram.counts.map((_, c) => `${c}/${m.histogram.n}`);
  const other = m.histogram.other.map((o) => `${o.task}: ${o.c}/${o.n}`);
  return html`<section><h2>${title}</h2><div class="charts">${lineChart(`pass^k and pass@k by k (k ≤ ${drawn.length}, what the trials allow)`, drawn.map((j) => `k=${j}`), series)}${barChart(`k-of-n histogram (tasks with n=${m.histogram.n})`, histLabels, m.histogram.counts)}</div>${
    other.length ? html`<p class="small">Tasks short of ${m.histogram.n} trials: ${other.length > 12 ? `${other.slice(0, 12).join(', ')} and ${other.length - 12} more` : other.join(', ')}</p>` : ''
  }${htmlTable(['k', 'pass^k', '95% CI', 'pass@k', '95% CI', m.p_k_extrapolated.label, 'tasks left out (n<k)'], labels.map((j) => [j, formatRate(m.pass_hat_k[j]), formatInterval(m.ci.pass_hat_k[j]), formatRate(m.pass_at_k[j]), formatInterval(m.ci.pass_at_k[j]), formatRate(m.p_k_extrapolated.values[j]), String(m.left_out[j]?.length ?? 0)]))}<p>Flip rate mean ${formatRate(m.flip.mean)}; mixed tasks ${formatRate(m.flip.mixed_share)}; pass^1 task mean ${formatRate(m.pass_hat_1_task_mean)} vs pooled pass@1 ${formatRate(m.pass_at_1)}.</p></section>`;
}

/** The breakdown tables: by pack, category, difficulty and audio condition. */
export function renderBreakdowns(b: Readonly<Record<string, readonly BreakdownRow[]>>, k: number): SafeHtml {
  const header = ['value', 'tasks', 'scored', 'voids', 'pass@1', `pass^${k}`, `pass@${k}`, 'mean reward'];
  return html`<section><h2>Breakdowns</h2>${Object.entries(b).map(
    ([dimension, rows]) =>
      html`<h3>by ${dimension}</h3>${intervalChart(`pass@1 by ${dimension}, with its 95% interval`, rows.map((r) => ({ label: r.value, value: r.metrics.pass_at_1, interval: r.metrics.ci.pass_at_1 })))}${htmlTable(header, rows.map((r) => [r.value + (r.excluded_from_headline ? ' (control)' : ''), ...metricCells(r.metrics, k)]))}`,
  )}</section>`;
}

/** The task table with n, passes, voids, pass^k, pass@k and flip rate. */
export function renderTasks(tasks: readonly TaskStats[], k: number): SafeHtml {
  const header = ['task', 'harness/model', 'category', 'difficulty', 'audio', 'n', 'pass', 'voids', ...ks(k).map((j) => `pass^${j}`), `pass@${k}`, 'flip'];
  const rows = tasks.map((t) => [`${t.pack}/${t.task_id}`, `${t.harness ?? '-'}/${t.model ?? '-'}`, t.category ?? '', t.difficulty ?? '', t.audio_condition ?? '', String(t.n), String(t.c), String(t.voids), ...ks(k).map((j) => formatRate(t.pass_hat_k[j])), formatRate(t.pass_at_k[String(k)]), formatRate(t.flip_rate)]);
  return html`<section><h2>Tasks</h2>${htmlTable(header, rows)}</section>`;
}
