/** One sample of the Prometheus text exposition format. */
export interface PromSample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})?\s+(-?(?:[0-9.eE+-]+|NaN|\+Inf|-Inf))(\s+-?\d+)?$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;
const META = /^# (HELP|TYPE) ([a-zA-Z_:][a-zA-Z0-9_:]*) (.*)$/;

/**
 * Parses Prometheus text format 0.0.4 strictly: every line is a HELP/TYPE comment, a sample, or
 * blank; every sample belongs to a family with a TYPE line. Throws on anything else.
 */
export function parsePrometheus(text: string): { samples: PromSample[]; types: Map<string, string> } {
  const samples: PromSample[] = [];
  const types = new Map<string, string>();
  for (const [i, line] of text.split('\n').entries()) {
    if (line.trim() === '') continue;
    const meta = META.exec(line);
    if (meta) {
      if (meta[1] === 'TYPE') types.set(meta[2] ?? '', meta[3] ?? '');
      continue;
    }
    const m = SAMPLE.exec(line);
    if (!m) throw new Error(`line ${i + 1} is not Prometheus text: ${line}`);
    const labels: Record<string, string> = {};
    for (const l of (m[3] ?? '').matchAll(LABEL)) labels[l[1] ?? ''] = l[2] ?? '';
    const name = m[1] ?? '';
    const family = [...types.keys()].find((t) => name === t || /^(_bucket|_sum|_count|_total|_created)$/.test(name.slice(t.length)) && name.startsWith(t));
    if (!family) throw new Error(`sample ${name} has no TYPE line`);
    samples.push({ name, labels, value: Number(m[4]) });
  }
  return { samples, types };
}

/** Sum of the samples of one name whose labels include the given ones. */
export function sumOf(samples: readonly PromSample[], name: string, labels: Record<string, string> = {}): number {
  return samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v)).reduce((a, s) => a + s.value, 0);
}
