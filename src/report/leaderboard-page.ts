import type { Breakdowns } from '../scoring/index.ts';
import { lineChart } from './charts.ts';
import { formatHeadline, formatInterval, formatRate, formatVoids } from './format.ts';
import { html, trusted, type SafeHtml } from './html.ts';
import { renderPage } from './page-shell.ts';
import { renderBreakdowns, renderCurves } from './score-sections.ts';
import { allowedK, entryBreakdowns, type Entry, type LeaderRow, type RankGroup, type ReportModel } from './ui-model.ts';
import { SORT_SCRIPT } from './ui-scripts.ts';

/** A sortable cell: shown text, and the value sorting uses (empty sorts last). */
export function sortCell(text: unknown, value: number | string | null): SafeHtml {
  return html`<td data-v="${value === null || (typeof value === 'number' && !Number.isFinite(value)) ? '' : value}">${text}</td>`;
}

function rateCell(value: number | null | undefined, interval: readonly [number, number] | null | undefined, suffix = ''): SafeHtml {
  return html`<td data-v="${value ?? ''}">${formatRate(value)} <span class="muted small">${formatInterval(interval)}${suffix}</span></td>`;
}

function gridHash(r: LeaderRow): string {
  return `tasks.html#entry=${encodeURIComponent(r.entry.id)}`;
}

/** The ranking rule, stated once per rank group. */
export function rankingRule(k: number): string {
  return `ranked by pass^${k} (k = ${k}, the largest k every task here has scored trials for), then pass@1, then mean reward; equal figures share a rank`;
}

function leaderRow(r: LeaderRow, mixedK: boolean): SafeHtml {
  const m = r.metrics;
  const kk = String(r.k);
  const flags = [r.isControl ? html`<span class="badge control">control, unranked</span>` : '', r.isUnreliable ? html`<span class="badge void">unreliable</span>` : ''];
  const suffix = mixedK ? ` (k=${r.k})` : '';
  return html`<tr data-entry="${r.entry.id}">${sortCell(r.rank ?? '—', r.rank)}${sortCell(html`<span class="run-label" title="${r.entry.run.run_id}">${r.entry.label}</span>`, r.entry.label)}${sortCell(r.pack, r.pack)}${sortCell(r.packVersion ?? '?', r.packVersion)}${sortCell(r.harness ?? '-', r.harness)}${sortCell(r.model ?? '-', r.model)}${sortCell(m.tasks, m.tasks)}${sortCell(m.scored, m.scored)}${rateCell(m.pass_at_1, m.ci.pass_at_1)}${rateCell(m.pass_hat_k[kk], m.ci.pass_hat_k[kk], suffix)}${rateCell(m.pass_at_k[kk], m.ci.pass_at_k[kk], suffix)}${rateCell(m.mean_reward, m.ci.mean_reward)}${sortCell(formatVoids(m.voids, m.voids_by_type), m.voids)}${sortCell(r.meanCostUsd === null ? '—' : `$${r.meanCostUsd.toFixed(4)}`, r.meanCostUsd)}${sortCell(r.medianLatencyMs === null ? '—' : `${Math.round(r.medianLatencyMs)} ms`, r.medianLatencyMs)}${sortCell(r.medianFirstAudioMs === null ? '—' : `${Math.round(r.medianFirstAudioMs)} ms`, r.medianFirstAudioMs)}${sortCell(formatRate(m.flip.mean), m.flip.mean)}<td>${flags}</td><td><a class="to-grid" href="${gridHash(r)}">tasks</a></td></tr>`;
}

function groupNote(g: RankGroup): SafeHtml {
  const control = g.rows[0]?.isControl;
  return html`<li><b>${g.suiteLabel}</b>, ${g.tasks} task${g.tasks === 1 ? '' : 's'} (task set ${g.taskSetHash}): ${control ? 'control pack, shown unranked' : rankingRule(g.k)}; ${g.rows.length} run${g.rows.length === 1 ? '' : 's'}.</li>`;
}

/** The leaderboard table: one row per run entry (run, pack, harness, model); sortable by any column. */
export function renderLeaderTable(model: ReportModel): SafeHtml {
  if (!model.leaders.length) return html`<p>No scored task trials.</p>`;
  const ks = new Set(model.leaders.map((r) => r.k));
  const mixed = ks.size > 1;
  const k = mixed ? 'per group' : `k=${[...ks][0]}`;
  const header = ['rank', 'run', 'pack', 'version', 'harness', 'model', 'tasks', 'scored', 'pass@1 [95% CI]', `pass^k, ${k} [95% CI]`, `pass@k, ${k} [95% CI]`, 'mean reward [95% CI]', 'voids by reason', 'est. cost / conv', 'median latency', 'median first audio', 'flip rate', 'flags', ''];
  return html`<div class="scroll"><table id="leaderboard" class="sortable"><thead><tr>${header.map((h) => html`<th>${h}</th>`)}</tr></thead><tbody>${model.leaders.map((r) => leaderRow(r, mixed))}</tbody></table></div>
<p class="small">Ranks are given only among runs on the same pack version, suite and task set, so two rows with rank 1 sit in different groups:</p><ul class="small rank-groups">${model.groups.map(groupNote)}</ul>
<p class="muted small">pass^k is the unbiased estimator; intervals are a 95% bootstrap over tasks. Each row is one run with one harness and model: nothing is pooled across rows. Control packs are shown for the wiring smoke but never ranked. Click a header to sort.</p>`;
}

function headlineLine(e: Entry): SafeHtml {
  const k = allowedK(e.tasks, e.settings.k);
  return html`<li class="headline-entry" data-entry="${e.id}"><b>${e.label}</b>${e.isControl ? html` <span class="badge control">control</span>` : ''}: ${formatHeadline(e.metrics, e.status.unmapped, e.status.pending)} · pass^${k} ${formatRate(e.metrics.pass_hat_k[String(k)])} <span class="muted small">${formatInterval(e.metrics.ci.pass_hat_k[String(k)])}</span></li>`;
}

/** The page header: one headline per entry (never pooled), the run count and the scoring settings. */
export function renderRunsHeader(model: ReportModel): SafeHtml {
  const r = model.report;
  const conversations = model.conversations.size;
  return html`<header><h1>mivas results</h1>${model.origin ? html`<p class="meta">${model.origin}</p>` : ''}
<ul class="headlines">${model.entries.filter((e) => e.tasks.length).map(headlineLine)}</ul>
<p>${model.runs.length} run${model.runs.length === 1 ? '' : 's'}, ${conversations} conversations. <a href="runs.html">Runs</a>${model.runs.length > 1 ? html` · <a href="compare.html">compare runs</a>` : ''}</p>
<p class="meta">scorer ${r.meta.scorer_version} · k=${r.meta.k} · bootstrap ${r.meta.bootstrap.prng} seed ${r.meta.bootstrap.seed}, B=${r.meta.bootstrap.resamples}${r.meta.stamp ? ` · ${r.meta.stamp}` : ''} · not in any headline across packs: ${r.meta.headline_excluded_packs.join(', ')}</p></header>`;
}

/** pass^k by k for every entry on one chart (one line per run; the legend below names them). */
function reliabilityChart(model: ReportModel): SafeHtml {
  const entries = model.entries.filter((e) => e.tasks.length).slice(0, 6);
  if (!entries.length) return html``;
  const kMax = Math.max(...entries.map((e) => allowedK(e.tasks, e.settings.k)));
  const labels = Array.from({ length: kMax }, (_, i) => String(i + 1));
  const series = entries.map((e) => ({ label: e.label, colour: e.colour, values: labels.map((j) => (Number(j) <= allowedK(e.tasks, e.settings.k) ? (e.metrics.pass_hat_k[j] ?? null) : null)) }));
  return html`<div class="charts">${lineChart('pass^k by k, each run up to the k its trials allow', labels.map((j) => `k=${j}`), series)}</div>`;
}

/** The leaderboard page: headlines per run, the table, the reliability chart and per-run curves and breakdowns. */
export function renderLeaderboardPage(model: ReportModel): string {
  const perEntry = model.entries
    .filter((e) => e.tasks.length)
    .map((e) => {
      const k = e.settings.k;
      const b = entryBreakdowns(e);
      const dims: Record<string, Breakdowns['pack']> = e.isControl ? { pack: b.pack } : { category: b.category, difficulty: b.difficulty, audio_condition: b.audio_condition };
      return html`<details class="entry-detail" data-entry="${e.id}"><summary>${e.label}: curves and breakdowns</summary>${renderCurves(e.metrics, k, `Reliability: ${e.label}`, allowedK(e.tasks, k))}${renderBreakdowns(dims, k)}</details>`;
    });
  const body = html`${renderRunsHeader(model)}<section><h2>Leaderboard</h2>${renderLeaderTable(model)}<p><a href="tasks.html">Open the task grid</a> · ${trusted(String(model.taskRows.length))} task rows, ${trusted(String(model.conversations.size))} conversations</p></section><section><h2>Reliability</h2>${reliabilityChart(model)}${perEntry}</section>`;
  return renderPage({ title: 'mivas leaderboard', kind: 'leaderboard', body, scripts: [SORT_SCRIPT], nav: navOf(model) });
}

/** Which optional pages the navigation bar links. */
export function navOf(model: ReportModel): { compare: boolean; flips: boolean } {
  return { compare: model.runs.length > 1 || model.entries.filter((e) => e.tasks.length).length > 1, flips: model.flips !== null };
}
