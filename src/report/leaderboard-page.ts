import { formatInterval, formatRate, formatVoids } from './format.ts';
import { html, trusted, type SafeHtml } from './html.ts';
import { renderPage } from './page-shell.ts';
import { renderBreakdowns, renderCurves, renderHeader } from './score-sections.ts';
import type { LeaderRow, ReportModel } from './ui-model.ts';
import { SORT_SCRIPT } from './ui-scripts.ts';

/** A sortable cell: shown text, and the value sorting uses (empty sorts last). */
export function sortCell(text: unknown, value: number | string | null): SafeHtml {
  return html`<td data-v="${value === null || (typeof value === 'number' && !Number.isFinite(value)) ? '' : value}">${text}</td>`;
}

function rateCell(value: number | null | undefined, interval: readonly [number, number] | null | undefined): SafeHtml {
  return html`<td data-v="${value ?? ''}">${formatRate(value)} <span class="muted small">${formatInterval(interval)}</span></td>`;
}

function gridHash(r: LeaderRow): string {
  return `tasks.html#pack=${encodeURIComponent(r.pack)}&harness=${encodeURIComponent(r.harness ?? '-')}&model=${encodeURIComponent(r.model ?? '-')}`;
}

function leaderRow(r: LeaderRow, k: number): SafeHtml {
  const m = r.metrics;
  const kk = String(k);
  const flags = [r.isControl ? html`<span class="badge control">control, unranked</span>` : '', r.isUnreliable ? html`<span class="badge void">unreliable</span>` : ''];
  return html`<tr>${sortCell(r.rank ?? '—', r.rank)}${sortCell(r.pack, r.pack)}${sortCell(r.packVersion ?? '?', r.packVersion)}${sortCell(r.harness ?? '-', r.harness)}${sortCell(r.model ?? '-', r.model)}${sortCell(m.tasks, m.tasks)}${sortCell(m.scored, m.scored)}${rateCell(m.pass_at_1, m.ci.pass_at_1)}${rateCell(m.pass_hat_k[kk], m.ci.pass_hat_k[kk])}${rateCell(m.pass_at_k[kk], m.ci.pass_at_k[kk])}${rateCell(m.mean_reward, m.ci.mean_reward)}${sortCell(formatVoids(m.voids, m.voids_by_type), m.voids)}${sortCell(r.meanCostUsd === null ? '—' : `$${r.meanCostUsd.toFixed(4)}`, r.meanCostUsd)}${sortCell(r.medianLatencyMs === null ? '—' : `${Math.round(r.medianLatencyMs)} ms`, r.medianLatencyMs)}${sortCell(r.medianFirstAudioMs === null ? '—' : `${Math.round(r.medianFirstAudioMs)} ms`, r.medianFirstAudioMs)}${sortCell(formatRate(m.flip.mean), m.flip.mean)}<td>${flags}</td><td><a class="to-grid" href="${gridHash(r)}">tasks</a></td></tr>`;
}

/** The leaderboard table: one row per pack, pack version, harness and model; sortable by any column. */
export function renderLeaderTable(model: ReportModel): SafeHtml {
  const k = model.report.meta.k;
  const header = ['rank', 'pack', 'version', 'harness', 'model', 'tasks', 'scored', 'pass@1 [95% CI]', `pass^${k} [95% CI]`, `pass@${k} [95% CI]`, 'mean reward [95% CI]', 'voids by reason', 'est. cost / conv', 'median latency', 'median first audio', 'flip rate', 'flags', ''];
  if (!model.leaders.length) return html`<p>No scored task trials.</p>`;
  return html`<table id="leaderboard" class="sortable"><thead><tr>${header.map((h) => html`<th>${h}</th>`)}</tr></thead><tbody>${model.leaders.map((r) => leaderRow(r, k))}</tbody></table>
<p class="muted small">pass^${k} is the unbiased estimator (tasks with fewer than ${k} scored trials are left out); intervals are a 95% bootstrap over tasks. Control packs are shown for the wiring smoke but never ranked. Click a header to sort.</p>`;
}

/** The leaderboard page: header with voids beside the headline, the table, curves and breakdowns. */
export function renderLeaderboardPage(model: ReportModel): string {
  const report = model.report;
  const k = report.meta.k;
  const curves = report.aggregates.headline.tasks
    ? renderCurves(report.aggregates.headline, k, 'Headline reliability')
    : html`${report.breakdowns.pack.map((p) => renderCurves(p.metrics, k, `Reliability: ${p.value}${p.excluded_from_headline ? ' (control)' : ''}`))}`;
  const body = html`${renderHeader(report)}<section><h2>Leaderboard</h2>${renderLeaderTable(model)}<p><a href="tasks.html">Open the task grid</a> · ${trusted(String(model.taskRows.length))} task rows, ${trusted(String(report.conversations.length))} conversations</p></section>${curves}${renderBreakdowns({ ...report.breakdowns }, k)}`;
  return renderPage({ title: 'mivas leaderboard', kind: 'leaderboard', body, scripts: [SORT_SCRIPT] });
}
