import type { StateDiffEntry, StateGateResult } from '../scoring/index.ts';
import { html, type SafeHtml } from './html.ts';

const json = (v: unknown): string => JSON.stringify(v ?? null);

function valueCell(raw: unknown, normalised: unknown, cls: string): SafeHtml {
  if (raw === null || raw === undefined) return html`<span class="muted">(none)</span>`;
  const differs = json(raw) !== json(normalised);
  return html`<code class="${cls}">${json(raw)}</code>${differs ? html`<div class="small muted">normalised <code>${json(normalised)}</code></div>` : ''}`;
}

function diffRow(d: StateDiffEntry): SafeHtml {
  const marks = [d.allowed ? 'allowed' : '', d.unparsed ? 'unparsed' : ''].filter(Boolean).join(', ');
  return html`<tr class="diff-${d.kind}${d.allowed ? ' allowed' : ''}" data-table="${d.table}" data-kind="${d.kind}"><td class="kind">${d.kind}</td><td><code>${json(d.key)}</code></td><td>${d.field ?? '—'}</td><td>${valueCell(d.expected, d.expected_normalised, 'exp')}</td><td>${valueCell(d.actual, d.actual_normalised, 'act')}</td><td class="rule">${d.rule}</td><td>${marks}</td></tr>`;
}

/**
 * The database diff: only the scored tables that differ, each with its mode and verdict and its
 * missing, extra and changed rows (fields, expected vs actual, rules); the tables that match are
 * named in one line.
 */
export function renderStateDiff(s: StateGateResult | null): SafeHtml {
  if (!s) return html`<p class="muted">State gate not run (conversation not scored).</p>`;
  const differing = s.tables.filter((t) => !t.pass || s.diff.some((d) => d.table === t.table));
  const matching = s.tables.filter((t) => !differing.includes(t));
  const tables = differing.map((t) => {
    const rows = s.diff.filter((d) => d.table === t.table);
    return html`<div class="state-table" data-table="${t.table}"><h3>${t.table} <span class="badge ${t.pass ? 'pass' : 'fail'}">${t.pass ? 'pass' : 'FAIL'}</span> <span class="muted small">mode ${t.mode}</span></h3>${
      rows.length
        ? html`<div class="scroll"><table class="diff"><thead><tr><th>kind</th><th>key</th><th>field</th><th>expected</th><th>actual</th><th>rule</th><th>marks</th></tr></thead><tbody>${rows.map(diffRow)}</tbody></table></div>`
        : html`<p class="small muted">No row differences.</p>`
    }</div>`;
  });
  const orphans = s.diff.filter((d) => !s.tables.some((t) => t.table === d.table));
  return html`<div class="state-diff"><p><span class="badge ${s.pass ? 'pass' : 'fail'}">state ${s.pass ? 'pass' : 'FAIL'}</span> ${s.missing} missing · ${s.extra} extra · ${s.changed} changed</p>${tables}${
    orphans.length ? html`<table class="diff"><tbody>${orphans.map(diffRow)}</tbody></table>` : ''
  }<p class="small muted matching-tables">${matching.length ? `Tables that match exactly: ${matching.map((t) => `${t.table} (${t.mode})`).join(', ')}.` : differing.length ? '' : 'No scored tables.'}</p></div>`;
}
