// Lists exports of src/ that nothing uses: `tsx scripts/dead-exports.ts` (exits 1 when any; --all also
// lists exports used only inside their own file, where only the `export` keyword is too many).
// A name counts as used when it appears as a whole word in any other file of src/, test/, bench/,
// scripts/, bin/ or packs/ (pack code imports the tool kit). Text, not types: a shared word can hide
// a dead export, never invent one.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

const ROOT = join(import.meta.dirname, '..');
const CONSUMERS = ['src', 'test', 'bench', 'scripts', 'bin', 'packs'];
const DECLARED = /^export\s+(?:declare\s+)?(?:default\s+)?(?:abstract\s+)?(?:async\s+)?(?:function\*?|const|let|class|interface|type|enum)\s+([A-Za-z_$][\w$]*)/gm;

function filesUnder(dir: string): string[] {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
  return entries.flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return e.name === 'node_modules' ? [] : filesUnder(path);
    return /\.(ts|js|mjs)$/.test(e.name) ? [path] : [];
  });
}

const texts = new Map(CONSUMERS.flatMap((d) => filesUnder(join(ROOT, d))).map((f) => [f, readFileSync(f, 'utf8')]));
const dead: string[] = [];
const exportOnly: string[] = [];
for (const [file, text] of texts) {
  if (!relative(ROOT, file).startsWith('src/')) continue;
  for (const [, name] of text.matchAll(DECLARED)) {
    if (!name) continue;
    const word = new RegExp(`\\b${name.replace(/\$/g, '\\$')}\\b`);
    if ([...texts].some(([other, body]) => other !== file && word.test(body))) continue;
    // Named only where it is declared: dead code. Used in its own file only: an export too many.
    const inFile = text.match(new RegExp(word.source, 'g'))?.length ?? 0;
    (inFile > 1 ? exportOnly : dead).push(`${relative(ROOT, file)}: ${name}`);
  }
}
if (process.argv.includes('--all')) process.stdout.write(`${exportOnly.map((e) => `${e} (used only in its file)`).join('\n')}\n`);
process.stdout.write(dead.length ? `${dead.join('\n')}\n${dead.length} exports named nowhere else, not even in their own file\n` : 'no dead exports\n');
process.stdout.write(`${exportOnly.length} exports used only in their own file (--all lists them)\n`);
process.exitCode = dead.length ? 1 : 0;
