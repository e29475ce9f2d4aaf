/**
 * Walking the JSON schemas of a pack's tools, and building schema-valid sample arguments from them
 * and from values found in the seeded template.
 */
import type { CatalogTool } from '../../../src/packs/index.ts';

/** One node of a JSON schema, as a plain object. */
export type SchemaNode = Record<string, unknown>;

/** String values found in the seeded template, by column and in all, plus the pack clock's today. */
export type ValuePool = { byColumn: Map<string, string[]>; all: string[]; today: string };

/** Values tried against a string pattern when the seed has none that fit. */
export const GENERIC_SAMPLES: readonly string[] = ['2026-10-07', '2026-10-07T10:00', '2010-05-14', '+12125550100', '10017', 'caller_request', 'Routine question from the caller.'];

/** Whether a value is a plain object (not null, not an array). */
export function isRecord(v: unknown): v is SchemaNode {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** The object-valued entries of a schema node's `properties`, or none. */
export function propsOf(node: unknown): Record<string, SchemaNode> {
  const props = isRecord(node) && isRecord(node.properties) ? node.properties : {};
  return Object.fromEntries(Object.entries(props).filter((e): e is [string, SchemaNode] => isRecord(e[1])));
}

/** The string entries of a schema node's `required`, or none. */
export function requiredOf(node: unknown): string[] {
  return isRecord(node) && Array.isArray(node.required) ? node.required.filter((r): r is string => typeof r === 'string') : [];
}

/** A schema node's `enum` as strings, or undefined when it has none. */
export function enumOf(node: SchemaNode): string[] | undefined {
  return Array.isArray(node.enum) ? node.enum.map(String) : undefined;
}

/** Visits every schema node with the property name it sits under. */
export function walk(node: unknown, name: string, visit: (node: SchemaNode, name: string) => void): void {
  if (!isRecord(node)) return;
  visit(node, name);
  for (const [k, child] of Object.entries(propsOf(node))) walk(child, k, visit);
  if (node.items) walk(node.items, name, visit);
  for (const key of ['anyOf', 'oneOf', 'allOf'] as const) {
    const list = node[key];
    if (Array.isArray(list)) for (const child of list) walk(child, name, visit);
  }
}

/** Every string inside a value, however deeply nested in arrays and objects. */
export function stringsIn(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(stringsIn);
  if (isRecord(value)) return Object.values(value).flatMap(stringsIn);
  return [];
}

function stringSample(node: SchemaNode, name: string, pool: ValuePool): string | undefined {
  const values = enumOf(node);
  if (values) return values[0];
  if (typeof node.const === 'string') return node.const;
  const max = typeof node.maxLength === 'number' ? node.maxLength : 200;
  if (typeof node.pattern !== 'string') return 'Routine question from the caller.'.slice(0, max);
  const pattern = new RegExp(node.pattern);
  return [...(pool.byColumn.get(name) ?? []), ...GENERIC_SAMPLES, ...pool.all].find((v) => pattern.test(v) && v.length <= max);
}

function numberSample(node: SchemaNode, name: string): number {
  const min = typeof node.minimum === 'number' ? node.minimum : typeof node.exclusiveMinimum === 'number' ? node.exclusiveMinimum + 1 : -1e9;
  const max = typeof node.maximum === 'number' ? node.maximum : typeof node.exclusiveMaximum === 'number' ? node.exclusiveMaximum - 1 : 1e9;
  return Math.min(max, Math.max(min, name.endsWith('_cents') ? 5000 : 1));
}

function sample(node: SchemaNode, name: string, pool: ValuePool, allProps: boolean): unknown {
  if (node.const !== undefined) return node.const;
  for (const key of ['anyOf', 'oneOf'] as const) {
    const list = node[key];
    if (Array.isArray(list)) return list.filter(isRecord).map((n) => sample(n, name, pool, allProps)).find((v) => v !== undefined);
  }
  if (node.type === 'string' || enumOf(node)) return stringSample(node, name, pool);
  if (node.type === 'integer' || node.type === 'number') return numberSample(node, name);
  if (node.type === 'boolean') return true;
  if (node.type === 'array') {
    const item = isRecord(node.items) ? sample(node.items, name, pool, allProps) : undefined;
    return item === undefined ? [] : Array.from({ length: Math.max(1, Number(node.minItems ?? 1)) }, () => item);
  }
  const required = requiredOf(node);
  const out: Record<string, unknown> = {};
  for (const [k, child] of Object.entries(propsOf(node))) {
    if (!allProps && !required.includes(k)) continue;
    const value = sample(child, k, pool, allProps);
    if (value !== undefined) out[k] = value;
  }
  return out;
}

/** Schema-valid arguments built from the input schema and values found in the seed. */
export function validArgs(tool: CatalogTool, pool: ValuePool): Record<string, unknown> | undefined {
  for (const allProps of [false, true]) {
    const args = sample(tool.inputSchema, '', pool, allProps);
    if (isRecord(args) && tool.input.safeParse(args).success) return args;
  }
  return undefined;
}
