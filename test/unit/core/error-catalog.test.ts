import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  ConfigError,
  envelopeRefusal,
  ERROR_CATALOG,
  errorDocSection,
  exitCodeOf,
  EXIT,
  httpProblem,
  isErrorCode,
  MivasError,
  problemBody,
  renderErrorDocs,
  type ErrorSpec,
} from '../../../src/core/index.ts';
import { listPackIds, type ErrorCodeEntry } from '../../../src/packs/index.ts';
import { envelopeSchema, RUNTIME_ERROR_CODES } from '../../../src/tools/index.ts';

const ROOT = resolve(import.meta.dirname, '../../..');
const SRC = join(ROOT, 'src');
/** The catalog and its renderer spell every code by definition; scanning them would prove nothing. */
const CATALOG_FILES = new Set([join(SRC, 'core/error-catalog.ts'), join(SRC, 'core/error-docs.ts')]);
const DOCS_FILE = join(ROOT, 'docs/errors.md');

/** A quoted literal spelled like a code: UPPER_SNAKE, at least four characters. */
const CODE_LITERAL = /(['"`])([A-Z][A-Z0-9_]{3,})\1/g;
/** A line that handles a code: a code field, a refusal, a problem, a catalog helper or one of our error classes. */
const CODE_CONTEXT = /\b(?:code|error_code|errorCode|refusal|refused|refuse|Refusal|problem|httpProblem|envelopeRefusal|runtimeRefusal|exitCodeOf|failWith|[A-Z]\w+Error)\b/;
/** A call whose code argument may sit on a later line than the call. */
const CODE_CALL = /\b(?:httpProblem|envelopeRefusal|runtimeRefusal|exitCodeOf|refuse|failWith\(\s*[\w.]+\s*,|new\s+[A-Z]\w+Error)\(?\s*(['"`])([A-Z][A-Z0-9_]{3,})\1/g;
/** Codes of Fastify (FST_ERR_*) and Node (ERR_*) that our code matches on and never sends. */
// Fastify's and Node's own codes, and the system errno names Node puts on file errors.
const FOREIGN = /^(?:FST_|ERR_)|^(?:ENOENT|EEXIST|EACCES|EPERM|ENOSPC|EMFILE|EPIPE|ECONNRESET|ENOTDIR|EISDIR)$/;

interface Use {
  readonly code: string;
  readonly where: string;
}

/** Every code-like literal of a source text that is used as a code, with its line. */
function codeUses(text: string, file = 'source'): Use[] {
  const uses: Use[] = [];
  const lines = text.split('\n');
  lines.forEach((line, i) => {
    if (!CODE_CONTEXT.test(line)) return;
    for (const m of line.matchAll(CODE_LITERAL)) uses.push({ code: m[2] ?? '', where: `${file}:${i + 1}` });
  });
  for (const m of text.matchAll(CODE_CALL)) {
    const line = text.slice(0, m.index).split('\n').length;
    uses.push({ code: m[2] ?? '', where: `${file}:${line}` });
  }
  const unique = new Map(uses.map((u) => [`${u.code} ${u.where}`, u]));
  return [...unique.values()].filter((u) => !FOREIGN.test(u.code));
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = join(dir, name);
    return statSync(full).isDirectory() ? sourceFiles(full) : name.endsWith('.ts') ? [full] : [];
  });
}

async function packErrorCodes(): Promise<Map<string, Readonly<Record<string, ErrorCodeEntry>>>> {
  const packsDir = join(ROOT, 'packs');
  const out = new Map<string, Readonly<Record<string, ErrorCodeEntry>>>();
  for (const id of listPackIds(packsDir)) {
    const mod = (await import(pathToFileURL(join(packsDir, id, 'tools.ts')).href)) as { errorCodes: Readonly<Record<string, ErrorCodeEntry>> };
    out.set(id, mod.errorCodes);
  }
  return out;
}

const uses = sourceFiles(SRC)
  .filter((f) => !CATALOG_FILES.has(f))
  .flatMap((f) => codeUses(readFileSync(f, 'utf8'), relative(ROOT, f)));
const catalog: Readonly<Record<string, ErrorSpec>> = ERROR_CATALOG;
const codes = Object.keys(catalog);

describe('the code scan', () => {
  it('finds codes in fields, refusals, helper calls (across lines) and error constructors', () => {
    const text = [
      "reply.send({ error: { code: 'NEW_FIELD_CODE', message: 'x' } });",
      "const refusal = owned ? 'TERNARY_A' : 'TERNARY_B';",
      'return httpProblem(',
      "  'SPLIT_CALL',",
      '  `detail`,',
      ');',
      "throw new ConfigError('THROWN_CODE', 'message');",
      "if (err.code === 'COMPARED_CODE') return;",
      "return problem(reply, 404, 'LOCAL_HELPER', 'x');",
    ].join('\n');
    expect(codeUses(text).map((u) => u.code).sort()).toEqual(['COMPARED_CODE', 'LOCAL_HELPER', 'NEW_FIELD_CODE', 'SPLIT_CALL', 'TERNARY_A', 'TERNARY_B', 'THROWN_CODE']);
    expect(codeUses(text).find((u) => u.code === 'SPLIT_CALL')?.where).toBe('source:3');
  });

  it('ignores upper-case literals that are not codes, and Fastify and Node codes', () => {
    const text = [
      "if (tag(0) !== 'RIFF' || tag(8) !== 'WAVE') throw new Error('not a RIFF/WAVE file');",
      "const statuses = ['QUEUED', 'RUNNING'];",
      "if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') return;",
      "if (String(err.code).startsWith('ERR_PARSE_ARGS')) return;",
      "if ((err as { code?: string }).code === 'ENOENT') return null;",
    ].join('\n');
    expect(codeUses(text)).toEqual([]);
  });

  it('sees the producers it must see (a scan that finds nothing proves nothing)', () => {
    const found = new Set(uses.map((u) => u.code));
    for (const code of ['CALL_ID_INVALID', 'CALL_ID_LIVE', 'UNKNOWN_TOOL', 'HANDOFF_NOT_ALLOWED', 'NOT_VERIFIED', 'BODY_NOT_OBJECT', 'PACK_NOT_FOUND', 'USAGE', 'TOKEN_USED']) {
      expect(found, code).toContain(code);
    }
  });
});

describe('error catalog', () => {
  it('declares every code src/ produces (pack refusals of the pack kit belong to the packs)', async () => {
    const packCodes = new Set([...(await packErrorCodes()).values()].flatMap((c) => Object.keys(c)));
    const undeclared = uses.filter((u) => !isErrorCode(u.code) && !(u.where.startsWith('src/packs/') && packCodes.has(u.code)));
    expect(undeclared.map((u) => `${u.code} at ${u.where}`)).toEqual([]);
  });

  it('has no declared code that nothing produces, unless it is reserved', () => {
    const found = new Set(uses.map((u) => u.code));
    expect(codes.filter((c) => !catalog[c]?.reserved && !found.has(c))).toEqual([]);
  });

  it('has no reserved code that something already produces (drop `reserved` once the producer lands)', () => {
    const found = new Set(uses.map((u) => u.code));
    expect(codes.filter((c) => catalog[c]?.reserved && found.has(c)).map((c) => `${c}: ${uses.filter((u) => u.code === c).map((u) => u.where).join(', ')}`)).toEqual([]);
  });

  it('shares no code with a pack: the runtime sentence is the one spoken', async () => {
    const clashes = [...(await packErrorCodes())].flatMap(([pack, entries]) => Object.keys(entries).filter(isErrorCode).map((c) => `${pack}: ${c}`));
    expect(clashes).toEqual([]);
  });

  it('declares each code well: UPPER_SNAKE, a sentence of meaning, a 4xx/5xx status, a failing exit, safe messages only on envelope codes', () => {
    for (const [code, spec] of Object.entries(catalog)) {
      expect(code).toMatch(/^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*$/);
      expect(spec.meaning, code).toMatch(/^\S.*\.$/s);
      if (spec.status !== undefined) expect(Number.isInteger(spec.status) && spec.status >= 400 && spec.status < 600, code).toBe(true);
      if (spec.exit !== undefined) expect([EXIT.checkFailed, EXIT.incomplete, EXIT.usage], code).toContain(spec.exit);
      expect(spec.recoverable === undefined, `${code}: recoverable goes with safe_message`).toBe(spec.safe_message === undefined);
      if (spec.reserved !== undefined) expect(spec.reserved.trim(), code).not.toBe('');
    }
  });

  it('is frozen, entries included', () => {
    expect(Object.isFrozen(ERROR_CATALOG)).toBe(true);
    expect(Object.values(catalog).every((spec) => Object.isFrozen(spec))).toBe(true);
    expect(() => {
      (catalog as Record<string, ErrorSpec>).NEW_CODE = { meaning: 'x.' };
    }).toThrow(TypeError);
  });

  it('declares the codes the lead emits in parallel, with their statuses', () => {
    expect(httpProblem('CALL_ID_USED').status).toBe(409);
    expect(httpProblem('CALL_ENDED').status).toBe(409);
    expect(httpProblem('HTTP_TOOLS_OFF').status).toBe(404);
    expect(httpProblem('TOOLS_UNAUTHORIZED').status).toBe(401);
    expect(catalog.CONVERSATION_SETUP_FAILED?.status).toBeUndefined();
  });
});

describe('catalog helpers', () => {
  it('builds an HTTP problem with the declared status, and its body', () => {
    const problem = httpProblem('CALL_NOT_FOUND', 'no database for call c1');
    expect(problem).toEqual({ status: 404, code: 'CALL_NOT_FOUND', message: 'no database for call c1' });
    expect(problemBody(problem)).toEqual({ error: { code: 'CALL_NOT_FOUND', message: 'no database for call c1' } });
    expect(httpProblem('AT_CAPACITY').message).toBe(ERROR_CATALOG.AT_CAPACITY.meaning);
  });

  it('builds a refusal envelope with the fixed sentence that the envelope schema accepts', () => {
    const refusal = envelopeRefusal('INVALID_ARGUMENTS', { invalid_fields: ['date'] });
    expect(refusal).toEqual({ ok: false, error_code: 'INVALID_ARGUMENTS', safe_message: ERROR_CATALOG.INVALID_ARGUMENTS.safe_message, data: { invalid_fields: ['date'] } });
    expect(envelopeSchema.safeParse(refusal).success).toBe(true);
    expect(envelopeRefusal('NOT_VERIFIED')).not.toHaveProperty('data');
  });

  it("derives the tools folder's RUNTIME_ERROR_CODES from the envelope codes", () => {
    const envelopeCodes = codes.filter((c) => catalog[c]?.safe_message !== undefined);
    expect(Object.keys(RUNTIME_ERROR_CODES).sort()).toEqual(envelopeCodes.sort());
    expect(RUNTIME_ERROR_CODES.TOOL_NOT_AVAILABLE).toEqual({ safe_message: ERROR_CATALOG.TOOL_NOT_AVAILABLE.safe_message, recoverable: true });
  });

  it('gives each command failure its declared exit, and 3 to a code without one', () => {
    expect(exitCodeOf('BLUEJAY_UNREACHABLE')).toBe(1);
    expect(exitCodeOf('CONFIG_INVALID')).toBe(3);
    expect(exitCodeOf('CALL_ID_LIVE')).toBe(3);
  });

  it('types MivasError codes by the catalog', () => {
    expect(new ConfigError('PACK_INVALID', 'bad').code).toBe('PACK_INVALID');
    // @ts-expect-error an undeclared code does not compile (tsc --noEmit checks test/ too)
    expect(new MivasError('NOT_A_DECLARED_CODE', 'x').code).toBe('NOT_A_DECLARED_CODE');
  });
});

describe('docs/errors.md', () => {
  const docs = readFileSync(DOCS_FILE, 'utf8');

  it('lists every declared code in a table row', () => {
    expect(codes.filter((c) => !docs.includes(`\n| \`${c}\` |`))).toEqual([]);
  });

  it('is what the catalog renders (run `npm run docs:errors` after changing the catalog)', () => {
    expect(docs).toBe(renderErrorDocs());
  });

  it('puts a code in the first section its spec declares and escapes pipes', () => {
    const fake: Record<string, ErrorSpec> = {
      SPOKEN: { meaning: 'Spoken.', status: 404, safe_message: 'Sorry.', recoverable: true },
      ANSWERED: { meaning: 'A | B.', status: 409, exit: 3 },
      EXITED: { meaning: 'Exited.', exit: 1 },
      LOGGED: { meaning: 'Logged.' },
    };
    expect(Object.values(fake).map(errorDocSection)).toEqual(['envelope', 'http', 'cli', 'internal']);
    const text = renderErrorDocs(fake);
    expect(text).toContain('| `SPOKEN` | yes | 404 | Sorry. | Spoken. |');
    expect(text).toContain('| `ANSWERED` | 409 | 3 | A \\| B. |');
    expect(text.indexOf('`EXITED`')).toBeGreaterThan(text.indexOf('## Commands'));
    expect(text.indexOf('`LOGGED`')).toBeGreaterThan(text.indexOf('## Inside the server'));
  });
});
