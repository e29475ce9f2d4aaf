/**
 * Tiny readers for the subset of YAML and TOML our deploy manifests use (no YAML or TOML package is
 * installed). They throw on anything outside that subset, so "it parses" still means something:
 * block mappings and sequences, `- key: value` items, quoted and plain scalars, flow `[..]`/`{..}`,
 * `---` documents; TOML tables, arrays of tables, `key = value` with strings, numbers, booleans.
 */

type Yaml = string | number | boolean | null | Yaml[] | { [key: string]: Yaml };

interface Line {
  readonly indent: number;
  readonly text: string;
  readonly no: number;
}

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

/** Splits `key: value` at the first colon outside quotes that is followed by a space or the end. */
function splitKey(text: string): [string, string] | null {
  let quote: string | null = null;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (quote) {
      if (ch === quote) quote = null;
    } else if (ch === '"' || ch === "'") quote = ch;
    else if (ch === ':' && (i + 1 === text.length || text[i + 1] === ' ')) return [unquote(text.slice(0, i).trim()), text.slice(i + 1).trim()];
  }
  return null;
}

function unquote(text: string): string {
  if ((text.startsWith('"') && text.endsWith('"')) || (text.startsWith("'") && text.endsWith("'"))) return text.slice(1, -1);
  return text;
}

function scalar(text: string, no: number): Yaml {
  if (text === '') return null;
  if (text.startsWith('[')) {
    if (!text.endsWith(']')) throw new Error(`line ${no}: unclosed flow sequence`);
    return splitTopLevel(text.slice(1, -1)).map((p) => scalar(p, no));
  }
  if (text.startsWith('{')) {
    if (!text.endsWith('}')) throw new Error(`line ${no}: unclosed flow mapping`);
    const out: Record<string, Yaml> = {};
    for (const part of splitTopLevel(text.slice(1, -1))) {
      const kv = splitKey(part);
      if (!kv) throw new Error(`line ${no}: bad flow mapping entry "${part}"`);
      out[kv[0]] = scalar(kv[1], no);
    }
    return out;
  }
  if (/^["']/.test(text)) {
    if (text.length < 2 || text[text.length - 1] !== text[0]) throw new Error(`line ${no}: unclosed quote`);
    return text.slice(1, -1);
  }
  if (text === '|' || text === '>') throw new Error(`line ${no}: block scalars are outside the subset`);
  if (/^-?\d+(\.\d+)?$/.test(text)) return Number(text);
  if (text === 'true' || text === 'false') return text === 'true';
  if (text === 'null' || text === '~') return null;
  return text;
}

function parseBlock(lines: readonly Line[], pos: { i: number }, indent: number): Yaml {
  const first = lines[pos.i];
  if (!first) return null;
  if (first.text.startsWith('- ') || first.text === '-') return parseSequence(lines, pos, first.indent);
  return parseMapping(lines, pos, first.indent > indent ? first.indent : indent);
}

function parseSequence(lines: readonly Line[], pos: { i: number }, indent: number): Yaml[] {
  const out: Yaml[] = [];
  while (pos.i < lines.length) {
    const line = lines[pos.i];
    if (!line || line.indent < indent) break;
    if (line.indent > indent || !line.text.startsWith('-')) throw new Error(`line ${line.no}: unexpected indentation in a sequence`);
    const rest = line.text.slice(1).trim();
    const kv = rest.startsWith('{') || rest.startsWith('[') || /^["']/.test(rest) ? null : splitKey(rest);
    if (kv) {
      // `- key: value` starts a mapping whose keys sit at indent + 2.
      const virtual: Line[] = [{ indent: indent + 2, text: rest, no: line.no }];
      pos.i++;
      while (pos.i < lines.length && (lines[pos.i]?.indent ?? 0) > indent) virtual.push(lines[pos.i++] as Line);
      out.push(parseMapping(virtual, { i: 0 }, indent + 2));
    } else if (rest === '') {
      pos.i++;
      out.push(parseBlock(lines, pos, indent + 1));
    } else {
      out.push(scalar(rest, line.no));
      pos.i++;
    }
  }
  return out;
}

function parseMapping(lines: readonly Line[], pos: { i: number }, indent: number): Record<string, Yaml> {
  const out: Record<string, Yaml> = {};
  while (pos.i < lines.length) {
    const line = lines[pos.i];
    if (!line || line.indent < indent) break;
    if (line.indent > indent) throw new Error(`line ${line.no}: unexpected indentation`);
    const kv = splitKey(line.text);
    if (!kv) throw new Error(`line ${line.no}: expected "key: value", got "${line.text}"`);
    if (kv[0] in out) throw new Error(`line ${line.no}: duplicate key ${kv[0]}`);
    pos.i++;
    if (kv[1] !== '') out[kv[0]] = scalar(kv[1], line.no);
    else {
      const next = lines[pos.i];
      const nested = next && (next.indent > indent || (next.indent === indent && next.text.startsWith('- ')));
      out[kv[0]] = nested ? parseBlock(lines, pos, indent) : null;
    }
  }
  return out;
}

/** Parses every `---`-separated document of a YAML manifest (subset; see the file comment). */
export function parseYamlDocuments(text: string): Yaml[] {
  const docs: Line[][] = [[]];
  text.split('\n').forEach((raw, idx) => {
    if (/^---\s*$/.test(raw)) return void docs.push([]);
    if (raw.includes('\t')) throw new Error(`line ${idx + 1}: tab in indentation`);
    const body = stripComment(raw);
    if (body.trim() === '') return;
    docs.at(-1)?.push({ indent: body.length - body.trimStart().length, text: body.trim(), no: idx + 1 });
  });
  return docs.filter((d) => d.length).map((lines) => {
    const pos = { i: 0 };
    const value = parseBlock(lines, pos, 0);
    if (pos.i !== lines.length) throw new Error(`line ${lines[pos.i]?.no}: trailing content`);
    return value;
  });
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
