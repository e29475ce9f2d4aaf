/** Trusted markup: only `html` templates and `raw` produce it, so every other value gets escaped. */
export class SafeHtml {
  readonly text: string;

  constructor(text: string) {
    this.text = text;
  }

  /** The markup as a string. */
  toString(): string {
    return this.text;
  }
}

/** Escapes text for HTML element content and quoted attribute values. */
export function escapeHtml(value: unknown): string {
  const text = value === null || value === undefined ? '' : typeof value === 'string' ? value : typeof value === 'number' || typeof value === 'boolean' ? String(value) : JSON.stringify(value);
  return text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('"', '&quot;').replaceAll("'", '&#39;');
}

function render(value: unknown): string {
  if (value instanceof SafeHtml) return value.text;
  if (Array.isArray(value)) return value.map(render).join('');
  return escapeHtml(value);
}

/** Tagged template: interpolated values are escaped unless they are SafeHtml (or lists of it). */
export function html(strings: TemplateStringsArray, ...values: readonly unknown[]): SafeHtml {
  let out = strings[0] ?? '';
  values.forEach((v, i) => {
    out += render(v) + (strings[i + 1] ?? '');
  });
  return new SafeHtml(out);
}

/** Marks generated markup (already escaped) as trusted; never pass external text here. */
export function trusted(markup: string): SafeHtml {
  return new SafeHtml(markup);
}

/** A table from a header row and body rows of cells (each escaped unless SafeHtml). */
export function htmlTable(header: readonly unknown[], rows: readonly (readonly unknown[])[], className = ''): SafeHtml {
  return html`<table class="${className}"><thead><tr>${header.map((c) => html`<th>${c}</th>`)}</tr></thead><tbody>${rows.map((r) => html`<tr>${r.map((c) => html`<td>${c}</td>`)}</tr>`)}</tbody></table>`;
}
