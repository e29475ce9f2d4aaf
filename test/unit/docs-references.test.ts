import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * Every citation of a numbered section (`wire.md §1.4`, `scoring.md §8.1–8.3`, `packs.md §2.3, §2.4`)
 * must land on a heading of `docs/<name>.md` that carries that number, and nothing may point at a
 * document outside the repository. Headings count as numbered when they start `## 4.`, `### 4.2`
 * or `### §4`.
 */

const ROOT = join(import.meta.dirname, '../..');
const SELF = 'test/unit/docs-references.test.ts';

const SECTION = String.raw`§\s?(\d+(?:\.\d+)?)`;
const FOLLOW_ON = String.raw`(?:\s?[–-]\s?\d+(?:\.\d+)?|,\s?§\s?\d+(?:\.\d+)?)*`;
const CITATION = new RegExp(String.raw`\b([A-Za-z][\w-]*)\.md\s?${SECTION}(${FOLLOW_ON})`, 'g');
const NUMBERED_HEADING = /^#{1,6}\s+§?(\d+(?:\.\d+)?)(?=[.\s]|$)/gm;

/** The old design document's name, spelled apart so that a grep for citations of it finds none here. */
const OLD_DESIGN = ['DES', 'IGN'].join('');

/** Documents that live outside the repository; a mention of one is a dead end for a reader. */
const OUTSIDE = [
  { pattern: new RegExp(`\\b${OLD_DESIGN}\\.md\\b`), why: `cites ${OLD_DESIGN}.md` },
  { pattern: /\bstyle(?:\.md)? rule \d+/i, why: 'cites a style rule' },
  { pattern: /\.\.\/shared\b|\bshared\/spec\b/, why: 'points outside the repository' },
  { pattern: /(?<![\w/.-])(?:style|providers-more)\.md\b/, why: 'cites a document not in docs/' },
];

interface Problem {
  file: string;
  line: number;
  text: string;
  why: string;
}

/** The section numbers a citation names: the first, then any `, §M` or range end after it. */
function citedNumbers(first: string, tail: string): string[] {
  return [first, ...[...tail.matchAll(/\d+(?:\.\d+)?/g)].map((m) => m[0])];
}

/** Section numbers of one Markdown document's headings. */
function headingNumbers(markdown: string): Set<string> {
  return new Set([...markdown.matchAll(NUMBERED_HEADING)].map((m) => m[1] ?? ''));
}

/** Problems in one file's text, given a reader of `docs/<name>.md` (null when absent). */
function referenceProblems(file: string, text: string, docHeadings: (name: string) => Set<string> | null): Problem[] {
  const problems: Problem[] = [];
  text.split('\n').forEach((lineText, index) => {
    const at = (why: string): void => {
      problems.push({ file, line: index + 1, text: lineText.trim().slice(0, 160), why });
    };
    for (const m of lineText.matchAll(CITATION)) {
      const name = m[1] ?? '';
      const headings = docHeadings(name);
      if (headings === null) {
        at(`cites ${name}.md, which is not in docs/`);
        continue;
      }
      for (const n of citedNumbers(m[2] ?? '', m[3] ?? '')) if (!headings.has(n)) at(`docs/${name}.md has no section ${n}`);
    }
    for (const { pattern, why } of OUTSIDE) if (pattern.test(lineText)) at(why);
  });
  return problems;
}

function trackedTextFiles(): string[] {
  const listed = execFileSync('git', ['ls-files', '-z'], { cwd: ROOT, encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 });
  return listed
    .split('\0')
    .filter((f) => f !== '' && f !== SELF && !/\.(png|jpe?g|gif|ico|wav|raw|db|sqlite|woff2?)$/i.test(f) && !f.startsWith('package-lock'));
}

function docReader(): (name: string) => Set<string> | null {
  const cache = new Map<string, Set<string> | null>();
  return (name) => {
    if (!cache.has(name)) {
      const path = join(ROOT, 'docs', `${name}.md`);
      cache.set(name, existsSync(path) ? headingNumbers(readFileSync(path, 'utf8')) : null);
    }
    return cache.get(name) ?? null;
  };
}

describe('the reference checker', () => {
  const docs = (name: string): Set<string> | null => (name === 'wire' ? new Set(['1', '1.4', '2.5', '2.6']) : null);

  it('reads numbered headings in both styles and ignores unnumbered ones', () => {
    expect([...headingNumbers('## 1. CHIRP\n### 1.4 Text frames\n### §7 Graph\n## Running it\n#### 6.12 Item')]).toEqual(['1', '1.4', '7', '6.12']);
  });

  it('accepts citations that land, including lists and ranges', () => {
    expect(referenceProblems('a.ts', '// wire.md §1.4, §2.5 and (wire.md §2.5–2.6)', docs)).toEqual([]);
  });

  it('flags a missing section, a range end, a missing document and outside pointers', () => {
    const text = ['wire.md §1.5', 'wire.md §2.5–2.7', 'rules.md §3', `see ${OLD_DESIGN}.md`, ['style', 'rule 4'].join(' '), '../shared/spec/wire.md', 'style.md'].join('\n');
    const whys = referenceProblems('a.ts', text, docs).map((p) => `${p.line}: ${p.why}`);
    expect(whys).toEqual([
      '1: docs/wire.md has no section 1.5',
      '2: docs/wire.md has no section 2.7',
      '3: cites rules.md, which is not in docs/',
      `4: cites ${OLD_DESIGN}.md`,
      '5: cites a style rule',
      '6: points outside the repository',
      '7: cites a document not in docs/',
    ]);
  });
});

describe('references in the repository', () => {
  it('every X.md §N lands on a numbered heading of docs/X.md, and nothing points outside the repo', () => {
    const docs = docReader();
    const files = trackedTextFiles();
    expect(files.length).toBeGreaterThan(100);
    const problems = files.flatMap((file) => {
      const text = readFileSync(join(ROOT, file), 'utf8');
      return text.includes('\0') ? [] : referenceProblems(file, text, docs);
    });
    expect(problems.map((p) => `${p.file}:${p.line}: ${p.why}: ${p.text}`)).toEqual([]);
  });
});
