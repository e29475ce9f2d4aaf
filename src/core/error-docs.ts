import { ERROR_CATALOG, type ErrorSpec } from './error-catalog.ts';

/** Where docs/errors.md lists a code: the first surface its spec declares. */
export type ErrorDocSection = 'envelope' | 'http' | 'cli' | 'internal';

/** The section of docs/errors.md a spec belongs to. */
export function errorDocSection(spec: ErrorSpec): ErrorDocSection {
  if (spec.safe_message !== undefined) return 'envelope';
  if (spec.status !== undefined) return 'http';
  if (spec.exit !== undefined) return 'cli';
  return 'internal';
}

const HEADER = `# Error codes

<!-- Generated from src/core/error-catalog.ts by \`npm run docs:errors\`; do not edit by hand.
     test/unit/core/error-catalog.test.ts fails when this file is stale. -->

Every error code mivas itself produces is declared once, in \`src/core/error-catalog.ts\`, with its
meaning, its HTTP status where it has one and its exit status where it has one. A test fails when
\`src/\` produces a code the catalog does not declare, when a declared code is never produced, or
when this page is out of date.

Codes reach their reader in one of three shapes:

- **Tool envelope**: \`{"ok": false, "error_code": "...", "safe_message": "..."}\`. The model hears
  only the safe message, a fixed sentence per code; over the HTTP tool routes the envelope comes
  with status 200.
- **HTTP problem**: \`{"error": {"code": "...", "message": "..."}}\` with the status below. At the
  CHIRP upgrade it is sent instead of the 101.
- **Command failure**: the message goes to stderr and the command exits with the status below
  (0 ok, 1 a check failed, 2 incomplete, 3 usage or configuration).

Refusals a pack's own tools return (\`NO_MATCH\`, \`TOKEN_USED\`, ...) are pack data: each pack
declares them in its \`errorCodes\` and lists them in its README. A pack never redeclares a code of
this page.
`;

interface SectionLayout {
  readonly title: string;
  readonly intro: string;
  readonly columns: readonly string[];
  readonly row: (code: string, spec: ErrorSpec) => readonly string[];
}

const optional = (value: number | undefined): string => (value === undefined ? '' : String(value));

const SECTIONS: Readonly<Record<ErrorDocSection, SectionLayout>> = {
  envelope: {
    title: 'Tool envelope',
    intro: 'Returned by the runtime for any tool; a pack tool may return them too without declaring them. The HTTP column is the status of the same code as an HTTP problem.',
    columns: ['Code', 'Recoverable', 'HTTP', 'Safe message', 'Meaning'],
    row: (code, spec) => [`\`${code}\``, spec.recoverable ? 'yes' : 'no', optional(spec.status), spec.safe_message ?? '', spec.meaning],
  },
  http: {
    title: 'HTTP routes and the CHIRP upgrade',
    intro: 'Every refusal of an HTTP request or of a CHIRP upgrade; upgrade refusals come before any 101.',
    columns: ['Code', 'Status', 'Exit', 'Meaning'],
    row: (code, spec) => [`\`${code}\``, optional(spec.status), optional(spec.exit), spec.meaning],
  },
  cli: {
    title: 'Commands',
    intro: 'Failures of `mivas <command>` before or instead of its work.',
    columns: ['Code', 'Exit', 'Meaning'],
    row: (code, spec) => [`\`${code}\``, optional(spec.exit), spec.meaning],
  },
  internal: {
    title: 'Inside the server',
    intro: 'Logged and recorded on the timeline; a client sees them only through the codes above.',
    columns: ['Code', 'Meaning'],
    row: (code, spec) => [`\`${code}\``, spec.meaning],
  },
};

function tableRow(cells: readonly string[]): string {
  return `| ${cells.map((c) => c.replaceAll('|', '\\|')).join(' | ')} |`;
}

/** Renders docs/errors.md: one table per section, each code once, in catalog order. */
export function renderErrorDocs(catalog: Readonly<Record<string, ErrorSpec>> = ERROR_CATALOG): string {
  const entries = Object.entries(catalog);
  const parts = [HEADER];
  for (const [section, layout] of Object.entries(SECTIONS) as [ErrorDocSection, SectionLayout][]) {
    const rows = entries.filter(([, spec]) => errorDocSection(spec) === section);
    if (!rows.length) continue;
    const lines = [`## ${layout.title}`, '', layout.intro, '', tableRow(layout.columns), tableRow(layout.columns.map(() => '---'))];
    for (const [code, spec] of rows) lines.push(tableRow(layout.row(code, spec)));
    parts.push(`${lines.join('\n')}\n`);
  }
  return parts.join('\n');
}
