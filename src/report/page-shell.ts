import { html, trusted, type SafeHtml } from './html.ts';
import { PAGE_STYLE } from './ui-style.ts';

/** Which top-level page a page belongs to, for the navigation bar. */
export type PageKind = 'leaderboard' | 'tasks' | 'task' | 'conversation' | 'runs' | 'compare' | 'flips';

/** What one UI page needs from its caller: a title, its body and our own inline scripts. */
export interface PageSpec {
  readonly title: string;
  readonly kind: PageKind;
  readonly body: SafeHtml;
  /** Inline scripts: our own constant source only (never data; data goes through `jsonScript`). */
  readonly scripts?: readonly string[];
  /** `data-*` attributes on `<body>` for the page's scripts (values escaped). */
  readonly data?: Readonly<Record<string, string | number>>;
  /** Optional pages to link in the navigation bar. */
  readonly nav?: { readonly compare: boolean; readonly flips: boolean };
}

/**
 * No network: everything is inline, media comes from the page's own origin (or the export
 * folder on disk), and scripts may not fetch anything.
 */
const CSP = "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:; media-src 'self' file: blob:; connect-src 'none'; base-uri 'none'; form-action 'none'";

/** A JSON island for our scripts: `<` and line separators escaped so data can never close the tag. */
export function jsonScript(id: string, value: unknown): SafeHtml {
  const text = JSON.stringify(value ?? null)
    .replaceAll('<', '\\u003c')
    .replaceAll('>', '\\u003e')
    .replaceAll('&', '\\u0026')
    .replaceAll('\u2028', '\\u2028')
    .replaceAll('\u2029', '\\u2029');
  return html`<script type="application/json" id="${id}">${trusted(text)}</script>`;
}

function nav(kind: PageKind, extra: PageSpec['nav']): SafeHtml {
  const item = (href: string, label: string, active: boolean): SafeHtml => html`<a href="${href}"${active ? trusted(' class="active"') : ''}>${label}</a>`;
  return html`<nav class="top">${item('runs.html', 'Runs', kind === 'runs')}${item('index.html', 'Leaderboard', kind === 'leaderboard')}${extra?.compare ? item('compare.html', 'Compare', kind === 'compare') : ''}${item('tasks.html', 'Task grid', kind === 'tasks')}${extra?.flips ? item('flips.html', 'Verdict flips', kind === 'flips') : ''}<span class="brand">mivas results</span></nav>`;
}

/** One complete, self-contained UI page (inline CSS and scripts, no external assets). */
export function renderPage(spec: PageSpec): string {
  const scripts = (spec.scripts ?? []).map((s) => html`<script>${trusted(s)}</script>`);
  const data = Object.entries(spec.data ?? {}).map(([k, v]) => html` data-${k.replace(/[^a-z0-9-]/g, '')}="${v}"`);
  return html`<!doctype html><html lang="en"><head><meta charset="utf-8"><meta http-equiv="Content-Security-Policy" content="${CSP}"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${spec.title}</title><style>${trusted(PAGE_STYLE)}</style></head><body class="page-${spec.kind}"${data}>${nav(spec.kind, spec.nav)}<main>${spec.body}</main>${scripts}</body></html>
`.text;
}
