import type { ConversationVerdict } from '../scoring/index.ts';
import { formatRate } from './format.ts';
import { html, type SafeHtml } from './html.ts';
import { sortCell } from './leaderboard-page.ts';
import { renderPage } from './page-shell.ts';
import { conversationHref, failingGates, taskHref, type ReportModel, type TaskRow } from './ui-model.ts';
import { FILTER_SCRIPT, SORT_SCRIPT } from './ui-scripts.ts';

const MARK: Readonly<Record<ConversationVerdict['status'], string>> = { PASS: '✓', FAIL: '✗', VOID: '∅', UNMAPPED: '?', PENDING: '…' };

/** The filter attribute format: values between bars, so `|state|tools|` matches `state` exactly. */
function barred(values: readonly (string | null)[]): string {
  return `|${values.map((v) => v ?? '(none)').join('|')}|`;
}

function trialTitle(v: ConversationVerdict): string {
  const why = v.status === 'VOID' ? ` ${v.void_reason ?? ''}` : v.status === 'FAIL' ? ` ${failingGates(v).join('+')}: ${v.fail_reasons[0] ?? ''}` : '';
  return `#${v.trial_index ?? '?'} ${v.status}${why} (${v.conversation_id})`;
}

/** One trial cell: a coloured link to the conversation page. */
export function trialCell(v: ConversationVerdict | undefined): SafeHtml {
  if (!v) return html`<td class="cell"></td>`;
  const href = conversationHref(v.conversation_id);
  const cls = `cell ${v.status.toLowerCase()}`;
  return href ? html`<td class="cell"><a class="${cls}" href="${href}" title="${trialTitle(v)}" data-conv="${v.conversation_id}">${MARK[v.status]}</a></td>` : html`<td class="cell"><span class="${cls}" title="${trialTitle(v)}">${MARK[v.status]}</span></td>`;
}

function gridRow(r: TaskRow, maxTrials: number): SafeHtml {
  const s = r.stats;
  const attrs = html`data-pack="${barred([s.pack])}" data-harness="${barred([s.harness ?? '-'])}" data-model="${barred([s.model ?? '-'])}" data-category="${barred([s.category])}" data-difficulty="${barred([s.difficulty])}" data-audio="${barred([s.audio_condition])}" data-gate="${barred(r.failingGates.length ? r.failingGates : ['none'])}" data-flip="${r.isFlipProne ? '|yes|' : '|no|'}"`;
  const cells = Array.from({ length: maxTrials }, (_, i) => trialCell(r.trials[i]));
  return html`<tr class="${r.isFlipProne ? 'flip-prone' : ''}" ${attrs}><td class="task" data-v="${s.task_id}"><a href="${taskHref(r.slug)}">${s.task_id}</a>${r.isFlipProne ? html` <span class="badge flip" title="trials disagree">flip-prone</span>` : ''}</td>${sortCell(s.pack, s.pack)}${sortCell(`${s.harness ?? '-'}/${s.model ?? '-'}`, `${s.harness}/${s.model}`)}${sortCell(s.category ?? '', s.category)}${sortCell(s.difficulty ?? '', s.difficulty)}${sortCell(s.audio_condition ?? '', s.audio_condition)}${sortCell(`${s.c}/${s.n}${s.voids ? ` +${s.voids} void` : ''}`, s.n ? s.c / s.n : null)}${sortCell(formatRate(s.flip_rate), s.flip_rate)}${cells}</tr>`;
}

function select(name: string, label: string, values: readonly string[]): SafeHtml {
  const options = [...new Set(values)].sort();
  return html`<label>${label} <select name="${name}"><option value="">all</option>${options.map((o) => html`<option value="${o}">${o}</option>`)}</select></label>`;
}

function filters(model: ReportModel): SafeHtml {
  const rows = model.taskRows.map((r) => r.stats);
  return html`<form id="filters">${select('pack', 'pack', rows.map((s) => s.pack))}${select('harness', 'harness', rows.map((s) => s.harness ?? '-'))}${select('model', 'model', rows.map((s) => s.model ?? '-'))}${select('category', 'category', rows.map((s) => s.category ?? '(none)'))}${select('difficulty', 'difficulty', rows.map((s) => s.difficulty ?? '(none)'))}${select('audio', 'audio condition', rows.map((s) => s.audio_condition ?? '(none)'))}${select('gate', 'failing gate', ['state', 'tools', 'handoff', 'void', 'none'])}${select('flip', 'flip-prone', ['yes', 'no'])}<span class="small muted"><span id="shown">${model.taskRows.length}</span> of ${model.taskRows.length} rows</span></form>`;
}

/** The task grid page: tasks × trials with pass / fail / void cells, filters and flip-prone marks. */
export function renderTaskGridPage(model: ReportModel): string {
  const trialHeads = Array.from({ length: model.maxTrials }, (_, i) => `#${i + 1}`);
  const head = ['task', 'pack', 'harness/model', 'category', 'difficulty', 'audio', 'pass/n', 'flip rate', ...trialHeads];
  const body = html`<h1>Task grid</h1><p class="small muted">Each cell is one trial: <span class="badge pass">✓ pass</span> <span class="badge fail">✗ fail</span> <span class="badge void">∅ void</span>. Click a cell for the conversation, a task for its trials. ⇄ marks flip-prone tasks (trials disagree).</p>${filters(model)}<table id="grid" class="grid sortable"><thead><tr>${head.map((h) => html`<th>${h}</th>`)}</tr></thead><tbody>${model.taskRows.map((r) => gridRow(r, model.maxTrials))}</tbody></table>`;
  return renderPage({ title: 'mivas task grid', kind: 'tasks', body, scripts: [SORT_SCRIPT, FILTER_SCRIPT] });
}

function trialRow(v: ConversationVerdict): SafeHtml {
  const href = conversationHref(v.conversation_id);
  const gates = failingGates(v);
  return html`<tr class="trial st-${v.status.toLowerCase()}"><td>${v.trial_index ?? '?'}</td><td>${href ? html`<a href="${href}">${v.conversation_id}</a>` : v.conversation_id}</td><td class="st-${v.status.toLowerCase()}"><b>${v.status}</b></td><td>${v.void_reason ?? gates.join(', ')}</td><td>${formatRate(v.reward)}</td><td>${v.duration_s === null ? '—' : `${v.duration_s.toFixed(1)} s`}</td><td>${v.fail_reasons.length ? html`<ul>${v.fail_reasons.slice(0, 4).map((f) => html`<li>${f}</li>`)}</ul>` : ''}</td></tr>`;
}

/** One task's page: every harness/model's trials with status, failing gates and reasons. */
export function renderTaskPage(model: ReportModel, slug: string): string | null {
  const rows = model.tasksBySlug.get(slug);
  const first = rows?.[0];
  if (!rows || !first) return null;
  const s = first.stats;
  const sections = rows.map(
    (r) => html`<section><h2>${r.stats.harness ?? '-'}/${r.stats.model ?? '-'} · pack version ${r.stats.pack_version ?? '?'}</h2><p>${r.stats.c}/${r.stats.n} passed · ${r.stats.voids} void · pass^1 ${formatRate(r.stats.pass_hat_k['1'])} · flip rate ${formatRate(r.stats.flip_rate)}${r.isFlipProne ? html` <span class="badge flip">flip-prone</span>` : ''}</p><table class="trials"><thead><tr><th>trial</th><th>conversation</th><th>status</th><th>failing gates / void</th><th>reward</th><th>duration</th><th>reasons</th></tr></thead><tbody>${r.trials.map(trialRow)}</tbody></table></section>`,
  );
  const body = html`<h1>Task ${s.task_id}</h1><p class="muted">pack ${s.pack} · category ${s.category ?? '—'} · difficulty ${s.difficulty ?? '—'} · audio ${s.audio_condition ?? '—'} · <a href="tasks.html">back to the grid</a></p>${sections}`;
  return renderPage({ title: `mivas task ${s.task_id}`, kind: 'task', body });
}
