/** One row of a pack README's pronunciation table (packs.md §1.3). */
export interface PronunciationEntry {
  readonly word: string;
  readonly sayIt: string;
  readonly source: string;
}

/** The rows of the table under `## Pronunciation` in a pack README; empty when there is none. */
export function pronunciationTable(readme: string): PronunciationEntry[] {
  const lines = readme.split('\n');
  const start = lines.findIndex((l) => /^## Pronunciation\s*$/.test(l));
  if (start < 0) return [];
  const entries: PronunciationEntry[] = [];
  let header = true;
  for (const line of lines.slice(start + 1)) {
    if (line.startsWith('## ')) break;
    if (!line.startsWith('|')) continue;
    const cells = line.split('|').slice(1, -1).map((c) => c.trim());
    if (header || cells.every((c) => /^:?-+:?$/.test(c))) {
      header = false;
      continue;
    }
    const [word = '', sayIt = '', source = ''] = cells;
    if (word) entries.push({ word, sayIt, source });
  }
  return entries;
}
