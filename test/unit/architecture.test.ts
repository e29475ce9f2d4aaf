import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import architecture from '../../architecture.json' with { type: 'json' };

const SRC = resolve(import.meta.dirname, '../../src');

/**
 * Folders each src folder may import (docs/architecture.md, convention 1). The same table
 * drives eslint.config.js (import-x/no-restricted-paths), which also keeps every folder's public
 * surface to its index.ts; this test is the resolver-free backing check of direction and cycles.
 */
const ALLOWED: Readonly<Record<string, readonly string[]>> = architecture.allowed;

/** Folders a folder may reach only through their `index.ts` (the caller speaks CHIRP through the codec's public face). */
const INDEX_ONLY: Readonly<Record<string, readonly string[]>> = {
  caller: ['chirp'],
};

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = join(dir, name);
    return statSync(full).isDirectory() ? sourceFiles(full) : name.endsWith('.ts') ? [full] : [];
  });
}

function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/^(?:import|export)[^'"]*from\s+'(\.{1,2}\/[^']+)'/gm)].map((m) => m[1] ?? '');
}

describe('dependency direction', () => {
  const files = sourceFiles(SRC);

  it('covers every src folder with a rule', () => {
    const folders = new Set(files.map((f) => relative(SRC, f).split('/')[0]).filter((f) => !f?.endsWith('.ts')));
    expect([...folders].filter((f) => f && !(f in ALLOWED))).toEqual([]);
  });

  it('lets each folder import only the folders below it in the flow', () => {
    const violations: string[] = [];
    for (const file of files) {
      const from = relative(SRC, file).split('/')[0] ?? '';
      const allowed = ALLOWED[from];
      if (!allowed || allowed.includes('*')) continue;
      for (const spec of importsOf(file)) {
        const target = relative(SRC, resolve(file, '..', spec)).split('/')[0] ?? '';
        if (target === from || target.startsWith('..')) continue;
        if (!allowed.includes(target)) violations.push(`${relative(SRC, file)} imports ${spec}`);
      }
    }
    expect(violations).toEqual([]);
  });

  it('lets a folder reach an index-only folder through its index.ts alone', () => {
    const violations: string[] = [];
    for (const file of files) {
      const from = relative(SRC, file).split('/')[0] ?? '';
      for (const spec of importsOf(file)) {
        const target = relative(SRC, resolve(file, '..', spec));
        const folder = target.split('/')[0] ?? '';
        if (folder !== from && INDEX_ONLY[from]?.includes(folder) && target !== `${folder}/index.ts`) violations.push(`${relative(SRC, file)} imports ${spec}`);
      }
    }
    expect(violations).toEqual([]);
  });

  it('has no import cycle between folders', () => {
    const edges = new Map<string, Set<string>>();
    for (const file of files) {
      const from = relative(SRC, file).split('/')[0] ?? '';
      for (const spec of importsOf(file)) {
        const target = relative(SRC, resolve(file, '..', spec)).split('/')[0] ?? '';
        if (target !== from && !target.startsWith('..')) edges.set(from, new Set([...(edges.get(from) ?? []), target]));
      }
    }
    const cycles: string[] = [];
    const visit = (node: string, path: string[]): void => {
      if (path.includes(node)) {
        cycles.push([...path.slice(path.indexOf(node)), node].join(' → '));
        return;
      }
      for (const next of edges.get(node) ?? []) visit(next, [...path, node]);
    };
    for (const node of edges.keys()) visit(node, []);
    expect(cycles).toEqual([]);
  });

  it('keeps scoring free of the server, calls, providers and model SDKs', () => {
    const scoring = files.filter((f) => relative(SRC, f).startsWith('scoring/'));
    for (const file of scoring) {
      const text = readFileSync(file, 'utf8');
      expect(text, file).not.toMatch(/from '(openai|ws|fastify)[^']*'/);
    }
  });

  it("states each folder's allowed imports in its README exactly as architecture.json lists them", () => {
    const mismatches: string[] = [];
    for (const [folder, allowed] of Object.entries(ALLOWED)) {
      const readme = readFileSync(join(SRC, folder, 'README.md'), 'utf8');
      const line = /^Imports: (.*)$/m.exec(readme)?.[1] ?? '';
      const named = line.startsWith('anything') ? ['*'] : [...line.replace(/\(.*\)/, '').matchAll(/`([^`]+)`/g)].map((m) => m[1] ?? '');
      if ([...named].sort().join(',') !== [...allowed].sort().join(',')) mismatches.push(`${folder}: README says [${named.join(', ')}], architecture.json [${allowed.join(', ')}]`);
    }
    expect(mismatches).toEqual([]);
  });

  it('has no import cycle between files', () => {
    const edges = new Map(files.map((file) => [file, importsOf(file).map((spec) => resolve(file, '..', spec))]));
    const state = new Map<string, 'open' | 'done'>();
    const cycles: string[] = [];
    const visit = (file: string, path: string[]): void => {
      if (state.get(file) === 'done') return;
      if (state.get(file) === 'open') {
        cycles.push([...path.slice(path.indexOf(file)), file].map((f) => relative(SRC, f)).join(' → '));
        return;
      }
      state.set(file, 'open');
      for (const next of edges.get(file) ?? []) if (edges.has(next)) visit(next, [...path, file]);
      state.set(file, 'done');
    };
    for (const file of edges.keys()) visit(file, []);
    expect(cycles).toEqual([]);
  });
});
