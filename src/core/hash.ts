import { createHash, hash } from 'node:crypto';

/** Stable JSON: object keys sorted recursively, so equal values serialise to equal strings. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return Object.fromEntries(entries.map(([k, v]) => [k, sortKeys(v)]));
  }
  return value;
}

/** sha256 hex of the given parts, each length-prefixed so boundaries cannot shift. */
export function sha256Parts(parts: readonly (string | Buffer)[]): string {
  const h = createHash('sha256');
  for (const part of parts) {
    const buf = typeof part === 'string' ? Buffer.from(part) : part;
    h.update(`${buf.length}:`);
    h.update(buf);
  }
  return h.digest('hex');
}

/** Rows the way a database dump holds them. */
type Rows = readonly Readonly<Record<string, unknown>>[];

/** JSON text and digests of frozen row arrays, by array, and the text of frozen rows, by row. */
const frozenRowsJson = new WeakMap<Rows, string>();
const frozenRowsDigest = new WeakMap<Rows, string>();
const frozenRowJson = new WeakMap<object, string>();

/** True when two rows hold the same columns in the same order with identical values, so their JSON texts are equal. */
export function sameRow(a: Readonly<Record<string, unknown>>, b: Readonly<Record<string, unknown>>): boolean {
  const keys = Object.keys(a);
  const others = Object.keys(b);
  if (keys.length !== others.length) return false;
  return keys.every((key, i) => key === others[i] && a[key] === b[key]);
}

function rowJson(row: Readonly<Record<string, unknown>>): string {
  if (!Object.isFrozen(row)) return JSON.stringify(row);
  let text = frozenRowJson.get(row);
  if (text === undefined) {
    text = JSON.stringify(row);
    frozenRowJson.set(row, text);
  }
  return text;
}

/** True when the array and every row in it are frozen: nobody can change what they hold. */
function frozenRows(rows: Rows): boolean {
  return Object.isFrozen(rows) && rows.every((row) => Object.isFrozen(row));
}

/**
 * `JSON.stringify(rows)`. The text of an array frozen with every row in it (a template's table,
 * shared by every conversation that left that table as it was) is written once and kept, and so is
 * the text of each frozen row (a template's row in a table a conversation changed elsewhere).
 */
export function rowsJson(rows: Rows): string {
  const kept = frozenRowsJson.get(rows);
  if (kept !== undefined) return kept;
  const plain = rows.every((row) => row !== null && typeof row === 'object' && !Array.isArray(row));
  const text = plain ? `[${rows.map(rowJson).join(',')}]` : JSON.stringify(rows);
  if (frozenRows(rows)) frozenRowsJson.set(rows, text);
  return text;
}

/** The sha256 (base64) of `rowsJson(rows)`, kept for frozen arrays as their text is. */
export function rowsDigest(rows: Rows): string {
  const kept = frozenRowsDigest.get(rows);
  if (kept !== undefined) return kept;
  const digest = hash('sha256', rowsJson(rows), 'base64');
  if (frozenRows(rows)) frozenRowsDigest.set(rows, digest);
  return digest;
}
