import { createHash } from 'node:crypto';

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
