import type { ConversationVerdict } from '../scoring/index.ts';
import { formatRate } from './format.ts';
import { html, type SafeHtml } from './html.ts';
import { navOf } from './leaderboard-page.ts';
import { renderPage } from './page-shell.ts';
import { conversationHref, failingGates, taskHref, type FlipRow, type ReportModel } from './ui-model.ts';
import { taskSlug } from './task-info.ts';

/** Which way a verdict moved: a pass lost, a pass gained, a void, or only the reward. */
export function flipDirection(f: FlipRow): 'lost' | 'gained' | 'void' | 'reward' {
  const a = f.before.status;
  const b = f.after.status;
  if (a === b) return 'reward';
  if (a === 'PASS') return 'lost';
  if (b === 'PASS') return 'gained';
  return 'void';
}

function gateStates(v: ConversationVerdict): SafeHtml {
  const gate = (name: string, pass: boolean | undefined): SafeHtml => (pass === undefined ? html`<span class="na">${name} —</span>` : html`<span class="${pass ? 'ok' : 'bad'}">${name} ${pass ? '✓' : '✗'}</span>`);
  return html`${gate('state', v.state?.pass)} ${gate('tools', v.tools?.pass)} ${gate('handoff', v.handoff?.pass)}`;
}

function side(v: ConversationVerdict): SafeHtml {
  const why = v.status === 'VOID' ? (v.void_reason ?? '') : failingGates(v).join(', ');
  return html`<b class="st-${v.status.toLowerCase()}">${v.status}</b> reward ${formatRate(v.reward)}<div class="small">${gateStates(v)}</div>${why ? html`<div class="small">${why}</div>` : ''}${v.fail_reasons.length ? html`<ul class="small reasons">${v.fail_reasons.slice(0, 3).map((r) => html`<li>${r}</li>`)}</ul>` : ''}`;
}

/** The gates whose verdict changed between the two scorings. */
export function changedGates(f: FlipRow): string[] {
  const pairs: [string, boolean | undefined, boolean | undefined][] = [
    ['state', f.before.state?.pass, f.after.state?.pass],
    ['tools', f.before.tools?.pass, f.after.tools?.pass],
    ['handoff', f.before.handoff?.pass, f.after.handoff?.pass],
  ];
  return pairs.filter(([, a, b]) => a !== b).map(([g, a, b]) => `${g} ${a === undefined ? '—' : a ? 'pass' : 'fail'} → ${b === undefined ? '—' : b ? 'pass' : 'fail'}`);
}

/**
 * The verdict-flip view: every conversation whose status or reward differs between an earlier
 * scoring of the same snapshots (another suite version or scorer) and this one, as `mivas tasks
 * diff` lists them, with both sides' gates and reasons.
 */
export function renderFlipsPage(model: ReportModel): string | null {
  const flips = model.flips;
  if (!flips) return null;
  const counts = { lost: 0, gained: 0, void: 0, reward: 0 };
  for (const f of flips.rows) counts[flipDirection(f)]++;
  const rows = flips.rows.map((f) => {
    const href = conversationHref(f.after.conversation_id);
    const task = f.after.task_id ?? f.before.task_id;
    const dir = flipDirection(f);
    return html`<tr class="flip ${dir}" data-conv="${f.after.conversation_id}"><td>${href ? html`<a href="${href}">${f.after.conversation_id}</a>` : f.after.conversation_id}</td><td>${task ? html`<a href="${taskHref(taskSlug(f.after.pack, task))}">${task}</a>` : '(no task)'}</td><td class="dir">${dir === 'lost' ? 'pass lost' : dir === 'gained' ? 'pass gained' : dir === 'void' ? 'status' : 'reward only'}</td><td>${side(f.before)}</td><td>${side(f.after)}</td><td class="small">${changedGates(f).join('; ') || '—'}</td></tr>`;
  });
  const packs = (meta: ReportModel['report']['meta']): string => meta.packs.map((p) => `${p.id}@${p.pack_version} suite ${p.task_set_hash}`).join(', ');
  const body = html`<h1>Verdict flips</h1><p>Two scorings of the same ${flips.compared} conversations: <b>before</b> ${packs(flips.beforeMeta)} (scorer ${flips.beforeMeta.scorer_version}) and <b>after</b> ${packs(model.report.meta)} (scorer ${model.report.meta.scorer_version}). ${flips.rows.length} flip${flips.rows.length === 1 ? '' : 's'}: <span class="bad">${counts.lost} pass lost</span>, <span class="ok">${counts.gained} pass gained</span>, ${counts.void} other status changes, ${counts.reward} reward only.</p><p class="muted small">Produced from <code>mivas tasks diff --out DIR</code> (or any two scorings) with <code>mivas report --scores DIR/after --before DIR/before</code>. Conversation links open the after scoring.</p>${
    flips.rows.length ? html`<div class="scroll"><table class="flips"><thead><tr><th>conversation</th><th>task</th><th>change</th><th>before</th><th>after</th><th>gates changed</th></tr></thead><tbody>${rows}</tbody></table></div>` : html`<p class="ok">No verdict differs.</p>`
  }`;
  return renderPage({ title: 'mivas verdict flips', kind: 'flips', body, nav: navOf(model) });
}
