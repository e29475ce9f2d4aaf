import type { ConversationVerdict } from '../scoring/index.ts';
import { formatRate } from './format.ts';
import { html, type SafeHtml } from './html.ts';
import { navOf } from './leaderboard-page.ts';
import { renderPage } from './page-shell.ts';
import { renderExpectedRoute } from './path-graph.ts';
import type { TaskInfo } from './task-info.ts';
import { conversationHref, failingGates, type ReportModel, type TaskRow } from './ui-model.ts';

const json = (v: unknown): string => (typeof v === 'string' ? v : JSON.stringify(v ?? null));

function trialRow(v: ConversationVerdict): SafeHtml {
  const href = conversationHref(v.conversation_id);
  const gates = failingGates(v);
  return html`<tr class="trial st-${v.status.toLowerCase()}"><td>${v.trial_index ?? '?'}</td><td>${href ? html`<a href="${href}">${v.conversation_id}</a>` : v.conversation_id}</td><td class="st-${v.status.toLowerCase()}"><b>${v.status}</b></td><td>${v.void_reason ?? gates.join(', ')}</td><td>${formatRate(v.reward)}</td><td>${v.duration_s === null ? '—' : `${v.duration_s.toFixed(1)} s`}</td><td>${v.fail_reasons.length ? html`<ul>${v.fail_reasons.slice(0, 4).map((f) => html`<li>${f}</li>`)}</ul>` : ''}</td></tr>`;
}

function callerScript(info: TaskInfo): SafeHtml {
  const traits = info.traits.length ? html`<table class="traits"><thead><tr><th>trait</th><th>value</th></tr></thead><tbody>${info.traits.map((t) => html`<tr><td>${t.name}</td><td>${t.value}</td></tr>`)}</tbody></table>` : html`<p class="muted small">No traits.</p>`;
  const pins = info.pins.length
    ? html`<table class="pins"><thead><tr><th>#</th><th>when the agent says</th><th>the caller says, word for word</th><th>how often</th></tr></thead><tbody>${info.pins.map((p, i) => html`<tr><td>${i + 1}</td><td>${p.when}</td><td>“${p.say}”</td><td>${p.occurrence}</td></tr>`)}</tbody></table>`
    : html`<p class="muted small">No scripted replies (pins).</p>`;
  return html`<section class="panel" id="caller-script"><h2>Caller script (locked${info.creativity === null ? '' : `, creativity ${info.creativity}`})</h2><p>Persona <b>${info.customerName ?? '—'}</b>.${info.opening ? html` Opens with <q class="line">${info.opening}</q>.` : ''}${info.closing ? html` Closes with <q class="line">${info.closing}</q>.` : ''}</p><details><summary>The full intent the caller is given</summary><p class="intent">${info.intent}</p></details><h3>Traits</h3>${traits}<h3>Scripted replies</h3>${pins}</section>`;
}

function expectations(info: TaskInfo): SafeHtml {
  const calls = info.calls.length
    ? html`<table class="expected-calls"><thead><tr><th>#</th><th>tool</th><th>parameters</th></tr></thead><tbody>${info.calls.map((c, i) => html`<tr><td>${i + 1}</td><td><b>${c.name}</b></td><td>${Object.keys(c.parameters).length ? html`${Object.entries(c.parameters).map(([k, v]) => html`<div><b>${k}</b> <code>${json(v)}</code></div>`)}` : html`<span class="muted">(name only)</span>`}</td></tr>`)}</tbody></table>`
    : html`<p class="muted small">No graded tool call.</p>`;
  return html`<h3>Expected calls</h3>${calls}<p class="small">Tables checked: ${info.tables.join(', ') || '(none)'}${info.forbidden.length ? html` · forbidden tools: <b>${info.forbidden.join(', ')}</b>` : ''}</p>`;
}

function entrySection(r: TaskRow): SafeHtml {
  const s = r.stats;
  return html`<section class="task-entry" data-entry="${r.entry.id}"><h2>${r.entry.label}</h2><p class="small muted">${r.entry.run.run_id} · ${s.harness ?? '-'}/${s.model ?? '-'} · pack version ${s.pack_version ?? '?'}</p><p>${s.c}/${s.n} passed · ${s.voids} void · pass^1 ${formatRate(s.pass_hat_k['1'])} · flip rate ${formatRate(s.flip_rate)}${r.isFlipProne ? html` <span class="badge flip">flip-prone</span>` : ''}</p><div class="scroll"><table class="trials"><thead><tr><th>trial</th><th>conversation</th><th>status</th><th>failing gates / void</th><th>reward</th><th>duration</th><th>reasons</th></tr></thead><tbody>${r.trials.map(trialRow)}</tbody></table></div></section>`;
}

/** One task's page: what it measures, the locked caller script, the expected route, and every run's conversations. */
export function renderTaskPage(model: ReportModel, slug: string): string | null {
  const rows = model.tasksBySlug.get(slug);
  const first = rows?.[0];
  if (!rows || !first) return null;
  const s = first.stats;
  const info = model.taskInfo.get(slug) ?? null;
  const summary = html`<div class="scroll"><table class="task-runs"><thead><tr><th>run</th><th>passed</th><th>void</th><th>pass^1</th><th>trials</th></tr></thead><tbody>${rows.map((r) => html`<tr data-entry="${r.entry.id}"><td>${r.entry.label}</td><td>${r.stats.c}/${r.stats.n}</td><td>${r.stats.voids}</td><td>${formatRate(r.stats.pass_hat_k['1'])}</td><td>${r.trials.map((v) => html`<a class="cell ${v.status.toLowerCase()}" href="${conversationHref(v.conversation_id) ?? '#'}" title="${v.status} ${v.conversation_id}">${v.status === 'PASS' ? '✓' : v.status === 'FAIL' ? '✗' : '∅'}</a> `)}</td></tr>`)}</tbody></table></div>`;
  const about = info
    ? html`<section class="panel" id="measures"><h2>What it measures</h2><p class="measures">${info.measures}</p>${info.variantOf ? html`<p class="small">A variant of ${info.variantOf} (${s.audio_condition ?? ''}).</p>` : ''}${expectations(info)}</section>${callerScript(info)}<section class="panel" id="route"><h2>Expected route</h2>${renderExpectedRoute(model.blueprints.get(s.pack) ?? null, info.hops)}</section>`
    : html`<p class="muted">The pack's task file was not read, so what it measures and its caller script are not shown.</p>`;
  const body = html`<h1>Task ${s.task_id}${info ? `: ${info.title}` : ''}</h1><p class="muted">pack ${s.pack} · category ${s.category ?? '—'} · difficulty ${s.difficulty ?? '—'} · audio ${s.audio_condition ?? '—'} · <a href="tasks.html">back to the grid</a></p>${summary}${about}<h2>Every run's conversations</h2>${rows.map(entrySection)}`;
  return renderPage({ title: `mivas task ${s.task_id}`, kind: 'task', body, nav: navOf(model) });
}
