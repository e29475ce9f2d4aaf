import type { RunMeta } from '../scoring/index.ts';
import { html, type SafeHtml } from './html.ts';
import { navOf } from './leaderboard-page.ts';
import { renderPage } from './page-shell.ts';
import type { ReportModel } from './ui-model.ts';
import { RUN_PICKER_SCRIPT } from './ui-scripts.ts';

/** One run found in a snapshot store, before (or without) scoring it. */
export interface RunListing {
  readonly run_id: string;
  readonly label: string | null;
  readonly packs: readonly { readonly id: string; readonly pack_version: string | null }[];
  readonly harnesses: readonly string[];
  readonly models: readonly string[];
  readonly conversations: number;
  readonly started_at: string | null;
  /** Where its scores come from when opened: a stored scores folder, or scoring on demand. */
  readonly scores: 'stored' | 'on demand';
}

function day(iso: string | null): string {
  return iso ? `${iso.slice(0, 10)} ${iso.slice(11, 16)}` : '—';
}

function packText(packs: RunMeta['packs'] | RunListing['packs']): string {
  return packs.map((p) => `${p.id}@${p.pack_version ?? '?'}`).join(', ');
}

/** The runs of a results site with their metadata; `href` links each run's own pages (null: none). */
export function renderRunTable(runs: readonly RunMeta[], href: ((runId: string) => string) | null): SafeHtml {
  const rows = runs.map(
    (r) =>
      html`<tr class="run" data-run="${r.run_id}"><td><b>${href ? html`<a href="${href(r.run_id)}">${r.label}</a>` : r.label}</b>${r.labelled ? '' : html` <span class="muted small">(default label)</span>`}<div class="small muted">${r.run_id}</div></td><td>${r.harnesses.join(', ') || '—'}</td><td>${r.models.join(', ') || '—'}</td><td>${packText(r.packs)}</td><td class="mono small">${r.packs.map((p) => `${p.suite_hash ?? '—'} · ${p.tasks} tasks (${p.task_set_hash})`).join('; ')}</td><td>${r.caller.kind}${r.caller.model ? html`<div class="small">${r.caller.model}</div>` : ''}</td><td>${r.caller.seed ?? 'none'}</td><td>${day(r.started_at)}</td><td>${r.conversations}</td><td class="small">${r.scorer_version ?? '—'}${r.flags.fast ? ' · fast' : ''}</td></tr>`,
  );
  return html`<div class="scroll"><table class="runs"><thead><tr><th>run</th><th>harness</th><th>model</th><th>pack</th><th>suite hash · task set</th><th>caller</th><th>caller seed</th><th>started (UTC)</th><th>conversations</th><th>scorer</th></tr></thead><tbody>${rows}</tbody></table></div>`;
}

/** The runs page of a results site: every run in these scores with its metadata. */
export function renderRunsPage(model: ReportModel): string {
  const body = html`<h1>Runs</h1>${model.origin ? html`<p class="meta">${model.origin}</p>` : ''}<p class="muted">A run is the conversations that share a run id (one <code>mivas run</code>). Each has its own figures; ${model.runs.length > 1 ? html`<a href="compare.html">compare them</a>` : 'add another run to compare'}.</p>${renderRunTable(model.runs, null)}`;
  return renderPage({ title: 'mivas runs', kind: 'runs', body, nav: navOf(model) });
}

/**
 * The run list of a snapshot store (served under `/ui/runs.html`): every run found, with a
 * check box each; the picker builds the link to the chosen runs' site (`siteHref`).
 */
export function renderStoreRunsPage(store: string, runs: readonly RunListing[], siteBase: string, problem: string | null = null): string {
  const rows = runs.map(
    (r) =>
      html`<tr class="run" data-run="${r.run_id}"><td><input type="checkbox" class="pick" value="${r.run_id}" aria-label="pick ${r.run_id}"></td><td><a class="open-run" href="${siteBase}${r.run_id}/index.html">${r.label ?? r.run_id}</a><div class="small muted">${r.run_id}</div></td><td>${r.harnesses.join(', ') || '—'}</td><td>${r.models.join(', ') || '—'}</td><td>${packText(r.packs)}</td><td>${day(r.started_at)}</td><td>${r.conversations}</td><td>${r.scores}</td></tr>`,
  );
  const body = html`<h1>Runs in the snapshot store</h1><p class="meta">${store}</p>${problem ? html`<p class="bad">${problem}</p>` : ''}<p class="muted small">Runs with stored scores open from them; the others are scored on demand (deterministic, so every replica shows the same figures). Pick two or more runs to compare them.</p>
<p id="picker" data-base="${siteBase}"><label><input type="checkbox" id="fast"> score on demand as <code>--fast</code> runs (no minimum call length)</label> <a id="compare-picked" href="#" aria-disabled="true">compare the picked runs</a> <span id="picked" class="small muted">0 picked</span></p>
<div class="scroll"><table class="runs store-runs"><thead><tr><th></th><th>run</th><th>harness</th><th>model</th><th>pack</th><th>started (UTC)</th><th>conversations</th><th>scores</th></tr></thead><tbody>${rows}</tbody></table></div>`;
  return renderPage({ title: 'mivas runs', kind: 'runs', body, scripts: [RUN_PICKER_SCRIPT], nav: { compare: false, flips: false } });
}
