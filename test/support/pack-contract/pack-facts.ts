/**
 * Facts read off an assembled pack (its dispatchable tools, handoff graph, error codes and sources)
 * and off database dumps, shared by the pack contract suites.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { canonicalJson } from '../../../src/core/index.ts';
import type { CatalogTool, Pack } from '../../../src/packs/index.ts';
import type { DatabaseDump } from '../../../src/store/index.ts';
import { RUNTIME_ERROR_CODES } from '../../../src/tools/index.ts';
import type { SchemaNode } from './schema-walk.ts';

/** The per-call session tables, which are never reference data and never scored. */
export const SESSION_TABLES: readonly string[] = ['call_session', 'holds'];

/** Every file below a folder, depth first in name order; none when the folder is missing. */
export function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).sort().flatMap((n) => (statSync(join(dir, n)).isDirectory() ? filesUnder(join(dir, n)) : [join(dir, n)]));
}

/** The sorted names of the tables whose rows differ between two dumps. */
export function changedTables(before: DatabaseDump, after: DatabaseDump): string[] {
  const names = new Set([...Object.keys(before), ...Object.keys(after)]);
  return [...names].filter((t) => canonicalJson(before[t] ?? []) !== canonicalJson(after[t] ?? [])).sort();
}

/** The catalog tools that have a definition the executor runs, sorted by name. */
export function dispatchable(pack: Pack): CatalogTool[] {
  return [...pack.catalog.values()].filter((t) => t.definition !== undefined).sort((a, b) => (a.name < b.name ? -1 : 1));
}

/** The names of the session tools other than end_call, that is the human transfer. */
export function humanTransferNames(pack: Pack): string[] {
  return [...new Set(pack.blueprint.agents.flatMap((a) => a.tools.filter((t) => t.session && t.name !== 'end_call').map((t) => t.name)))];
}

/** The agents an agent can hand off to. */
export function handoffTargets(pack: Pack, agent: string): string[] {
  return (pack.blueprint.agents.find((a) => a.name === agent)?.tools ?? []).flatMap((t) => (t.handoff && t.handoff_to ? [t.handoff_to] : []));
}

/** The agents reachable by handoffs from `start`, never passing through `skip`. */
export function reachableFrom(pack: Pack, start: string, skip?: string): Set<string> {
  const seen = new Set([start]);
  const queue = [start];
  for (let node = queue.shift(); node !== undefined; node = queue.shift()) {
    for (const next of handoffTargets(pack, node)) if (next !== skip && !seen.has(next)) seen.add(next) && queue.push(next);
  }
  return seen;
}

/** The fixed sentences a safe_message may be: the pack's catalogued ones and the runtime's. */
export function allowedSafeMessages(pack: Pack): Set<string> {
  return new Set([...Object.values(pack.module.errorCodes), ...Object.values(RUNTIME_ERROR_CODES)].map((e) => e.safe_message));
}

/** The source text of the pack's tools.ts and every file under its lib folder. */
export function packSource(pack: Pack): string {
  return [join(pack.dir, 'tools.ts'), ...filesUnder(join(pack.dir, 'lib'))].map((f) => readFileSync(f, 'utf8')).join('\n');
}

/** The error codes a piece of source passes to refuse(). */
export function refusedCodes(source: string): string[] {
  // Under vitest an imported call reads `(0, __vite_ssr_import_0__.refuse)("CODE")`.
  return [...source.matchAll(/refuse\)?\(\s*['"]([A-Z][A-Z0-9_]*)['"]/g)].map((m) => m[1] ?? '');
}

/** The codes a tool description lists after its last `Errors:`, or undefined when it has none. */
export function listedErrors(description: string): string[] | undefined {
  const at = description.lastIndexOf('Errors:');
  if (at < 0) return undefined;
  const tail = description.slice(at + 'Errors:'.length).replace(/\bnone( beyond invalid arguments)?\b/i, 'none');
  return tail.replace(/[.,;]|\band\b|\bor\b/g, ' ').split(/\s+/).filter(Boolean);
}

/** The argument names the runtime fills from earlier results, so a task need not give them. */
export function carryFields(pack: Pack): Set<string> {
  return new Set(['token', ...dispatchable(pack).flatMap((t) => t.definition?.carryForward ?? [])]);
}

/** Whether a schema node is free prose: a length-bounded string with no enum or pattern. */
export function isProse(node: SchemaNode | undefined): boolean {
  return node !== undefined && node.type === 'string' && node.enum === undefined && node.pattern === undefined && typeof node.maxLength === 'number';
}
