import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = resolve(import.meta.dirname, '../../src');

/** Folders each src folder may import (DESIGN.md data flow; style.md house rule 1). */
const ALLOWED: Readonly<Record<string, readonly string[]>> = {
  core: [],
  packs: ['core'],
  store: ['core', 'packs'],
  tools: ['core', 'packs', 'store'],
  snapshot: ['core'],
  audio: ['core'],
  chirp: ['core', 'audio'],
  conversation: ['core', 'packs', 'tools', 'snapshot', 'store'],
  providers: ['core', 'packs', 'tools', 'snapshot', 'audio', 'conversation', 'store', 'config.ts'],
  call: ['core', 'packs', 'tools', 'snapshot', 'audio', 'conversation', 'chirp', 'providers', 'store'],
  caller: ['core', 'audio', 'chirp', 'packs'],
  scoring: ['core', 'packs', 'store', 'tools', 'conversation', 'snapshot', 'config.ts'],
  report: ['core', 'packs', 'snapshot', 'scoring'],
  episodes: ['core', 'packs', 'store', 'tools', 'snapshot', 'audio', 'conversation', 'call', 'caller', 'scoring'],
  telemetry: ['core', 'call', 'snapshot', 'config.ts'],
  bluejay: ['core', 'call', 'snapshot', 'packs', 'config.ts'],
  server: ['core', 'packs', 'store', 'tools', 'snapshot', 'audio', 'chirp', 'conversation', 'providers', 'call', 'config.ts', 'report', 'scoring', 'telemetry', 'bluejay', 'episodes', 'caller'],
  cli: ['*'],
};

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
});
