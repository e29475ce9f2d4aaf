/**
 * Tiny readers for the TOML and .env subsets of railway.toml, fly.toml and
 * deploy/railway.variables.env (YAML manifests are read with the `yaml` package). They throw on
 * anything outside that subset, so "it parses" still means something: TOML tables, arrays of
 * tables, `key = value` with strings, numbers, booleans and arrays; `KEY=value` lines and comments.
 */

function stripComment(line: string): string {
  let quote: string | null = null;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i];
    if (quote) {
      if (ch === quote) quote = null;
    } else if (ch === '"' || ch === "'") quote = ch;
    else if (ch === '#' && (i === 0 || /\s/.test(line[i - 1] ?? ''))) return line.slice(0, i).trimEnd();
  }
  return line.trimEnd();
}

function splitTopLevel(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let quote: string | null = null;
  let current = '';
  for (const ch of text) {
    if (quote) {
      if (ch === quote) quote = null;
    } else if (ch === '"' || ch === "'") quote = ch;
    else if (ch === '[' || ch === '{') depth++;
    else if (ch === ']' || ch === '}') depth--;
    else if (ch === ',' && depth === 0) {
      parts.push(current.trim());
      current = '';
      continue;
    }
    current += ch;
  }
  if (current.trim()) parts.push(current.trim());
  return parts;
}

type Toml = string | number | boolean | Toml[] | { [key: string]: Toml };

function tomlValue(text: string, no: number): Toml {
  if (text.startsWith('"')) {
    if (!/^"([^"\\]|\\.)*"$/.test(text)) throw new Error(`line ${no}: bad string`);
    return JSON.parse(text) as string;
  }
  if (text.startsWith('[')) return splitTopLevel(text.slice(1, -1)).map((p) => tomlValue(p, no));
  if (/^-?\d+(\.\d+)?$/.test(text)) return Number(text);
  if (text === 'true' || text === 'false') return text === 'true';
  throw new Error(`line ${no}: unsupported TOML value ${text}`);
}

/** Parses the TOML subset of railway.toml and fly.toml: tables, arrays of tables, dotted table names. */
export function parseToml(text: string): Record<string, Toml> {
  const root: Record<string, Toml> = {};
  let current: Record<string, Toml> = root;
  const walk = (path: string[], asArray: boolean, no: number): Record<string, Toml> => {
    let node: Record<string, Toml> = root;
    path.forEach((key, i) => {
      const last = i === path.length - 1;
      let next = node[key];
      if (last && asArray) {
        if (next === undefined) next = node[key] = [];
        if (!Array.isArray(next)) throw new Error(`line ${no}: ${key} is not an array of tables`);
        const table: Record<string, Toml> = {};
        next.push(table);
        node = table;
        return;
      }
      if (next === undefined) next = node[key] = {};
      if (Array.isArray(next)) next = next.at(-1) as Record<string, Toml>;
      if (typeof next !== 'object') throw new Error(`line ${no}: ${key} is not a table`);
      node = next as Record<string, Toml>;
    });
    return node;
  };
  text.split('\n').forEach((raw, idx) => {
    const line = stripComment(raw).trim();
    if (!line) return;
    const table = /^\[(\[)?([A-Za-z0-9_.-]+)\]?\]$/.exec(line);
    if (table) return void (current = walk((table[2] ?? '').split('.'), table[1] === '[', idx + 1));
    const kv = /^([A-Za-z0-9_-]+)\s*=\s*(.+)$/.exec(line);
    if (!kv?.[1] || !kv[2]) throw new Error(`line ${idx + 1}: expected key = value, got "${line}"`);
    if (kv[1] in current) throw new Error(`line ${idx + 1}: duplicate key ${kv[1]}`);
    current[kv[1]] = tomlValue(kv[2].trim(), idx + 1);
  });
  return root;
}

/** Parses `KEY=value` lines (comments and blank lines skipped); a duplicate key or any other line throws. */
export function parseEnvFile(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  text.split('\n').forEach((raw, idx) => {
    const line = raw.trim();
    if (!line || line.startsWith('#')) return;
    const kv = /^([A-Z][A-Z0-9_]*)=(.*)$/.exec(line);
    if (!kv?.[1] || kv[2] === undefined) throw new Error(`line ${idx + 1}: expected KEY=value, got "${line}"`);
    if (kv[1] in out) throw new Error(`line ${idx + 1}: duplicate key ${kv[1]}`);
    out[kv[1]] = kv[2];
  });
  return out;
}
