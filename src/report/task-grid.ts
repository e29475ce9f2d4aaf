import type { ConversationVerdict } from '../scoring/index.ts';
import { formatRate } from './format.ts';
import { html, type SafeHtml } from './html.ts';
import { navOf, sortCell } from './leaderboard-page.ts';
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
  const attrs = html`data-entry="${barred([r.entry.id])}" data-pack="${barred([s.pack])}" data-harness="${barred([s.harness ?? '-'])}" data-model="${barred([s.model ?? '-'])}" data-category="${barred([s.category])}" data-difficulty="${barred([s.difficulty])}" data-audio="${barred([s.audio_condition])}" data-gate="${barred(r.failingGates.length ? r.failingGates : ['none'])}" data-flip="${r.isFlipProne ? '|yes|' : '|no|'}"`;
  const cells = Array.from({ length: maxTrials }, (_, i) => trialCell(r.trials[i]));
  return html`<tr class="${r.isFlipProne ? 'flip-prone' : ''}" ${attrs}><td class="task" data-v="${s.task_id}"><a href="${taskHref(r.slug)}">${s.task_id}</a>${r.isFlipProne ? html` <span class="badge flip" title="trials disagree">flip-prone</span>` : ''}</td>${sortCell(html`<span class="run-label">${r.entry.label}</span>`, r.entry.label)}${sortCell(s.pack, s.pack)}${sortCell(`${s.harness ?? '-'}/${s.model ?? '-'}`, `${s.harness}/${s.model}`)}${sortCell(s.category ?? '', s.category)}${sortCell(s.difficulty ?? '', s.difficulty)}${sortCell(s.audio_condition ?? '', s.audio_condition)}${sortCell(`${s.c}/${s.n}${s.voids ? ` +${s.voids} void` : ''}`, s.n ? s.c / s.n : null)}${sortCell(formatRate(s.flip_rate), s.flip_rate)}${cells}</tr>`;
}

function select(name: string, label: string, values: readonly string[], labels?: ReadonlyMap<string, string>): SafeHtml {
  const options = labels ? [...new Set(values)] : [...new Set(values)].sort();
  return html`<label>${label} <select name="${name}"><option value="">all</option>${options.map((o) => html`<option value="${o}">${labels?.get(o) ?? o}</option>`)}</select></label>`;
}

function filters(model: ReportModel): SafeHtml {
  const rows = model.taskRows.map((r) => r.stats);
  const entries = new Map(model.entries.filter((e) => e.tasks.length).map((e) => [e.id, e.label]));
  return html`<form id="filters">${select('entry', 'run', [...entries.keys()], entries)}${select('pack', 'pack', rows.map((s) => s.pack))}${select('harness', 'harness', rows.map((s) => s.harness ?? '-'))}${select('model', 'model', rows.map((s) => s.model ?? '-'))}${select('category', 'category', rows.map((s) => s.category ?? '(none)'))}${select('difficulty', 'difficulty', rows.map((s) => s.difficulty ?? '(none)'))}${select('audio', 'audio condition', rows.map((s) => s.audio_condition ?? '(none)'))}${select('gate', 'failing gate', ['state', 'tools', 'handoff', 'void', 'none'])}${select('flip', 'flip-prone', ['yes', 'no'])}<span class="small muted"><span id="shown">${model.taskRows.length}</span> of ${model.taskRows.length} rows</span></form>`;
}

/** The task grid page: tasks × trials with pass / fail / void cells, filters and flip-prone marks. */
export function renderTaskGridPage(model: ReportModel): string {
  const trialHeads = Array.from({ length: model.maxTrials }, (_, i) => `#${i + 1}`);
  const head = ['task', 'run', 'pack', 'harness/model', 'category', 'difficulty', 'audio', 'pass/n', 'flip rate', ...trialHeads];
  const body = html`<h1>Task grid</h1><p class="small muted">Each cell is one trial: <span class="badge pass">✓ pass</span> <span class="badge fail">✗ fail</span> <span class="badge void">∅ void</span>. Click a cell for the conversation, a task for its trials. ⇄ marks flip-prone tasks (trials disagree).</p>${filters(model)}<div class="scroll"><table id="grid" class="grid sortable"><thead><tr>${head.map((h) => html`<th>${h}</th>`)}</tr></thead><tbody>${model.taskRows.map((r) => gridRow(r, model.maxTrials))}</tbody></table></div>`;
  return renderPage({ title: 'mivas task grid', kind: 'tasks', body, scripts: [SORT_SCRIPT, FILTER_SCRIPT], nav: navOf(model) });
}
