import { canonicalJson } from '../core/index.ts';
import type { ComparePolicy, Task, TablePolicy } from './schema.ts';

/** compare.json with a task's override merged per table (scoring.md §4.1). */
export function effectivePolicy(base: ComparePolicy, override: Task['compare']): ComparePolicy {
  if (!override) return base;
  const tables: Record<string, TablePolicy> = { ...base.tables };
  for (const [name, policy] of Object.entries(override.tables ?? {})) tables[name] = { ...(tables[name] ?? {}), ...policy };
  return {
    defaults: {
      ignore: override.defaults?.ignore ?? base.defaults.ignore,
      strings: override.defaults?.strings ?? base.defaults.strings,
    },
    tables,
    arguments: { ...(base.arguments ?? {}), ...(override.arguments ?? {}) },
  };
}

/** Names of the scored tables, sorted. */
export function scoredTables(policy: ComparePolicy): string[] {
  return Object.entries(policy.tables)
    .filter(([, p]) => p.scored)
    .map(([name]) => name)
    .sort();
}

/** Columns the policy leaves out of a table's comparison. */
export function ignoredColumns(policy: ComparePolicy, table: string): Set<string> {
  return new Set([...policy.defaults.ignore, ...(policy.tables[table]?.ignore ?? [])]);
}

function sortKey(row: Readonly<Record<string, unknown>>, key: readonly string[] | undefined): string {
  return canonicalJson(key ? key.map((k) => row[k]) : row);
}

/**
 * Projects a database dump onto the scored tables: ignored columns dropped, rows sorted by the
 * table's key (whole-row order without one). This is the shape of a task's exp_db_state.
 */
export function projectState(dump: Readonly<Record<string, readonly Record<string, unknown>[]>>, policy: ComparePolicy): Record<string, Record<string, unknown>[]> {
  const out: Record<string, Record<string, unknown>[]> = {};
  for (const table of scoredTables(policy)) {
    const ignored = ignoredColumns(policy, table);
    const rows = (dump[table] ?? []).map((row) => Object.fromEntries(Object.entries(row).filter(([col]) => !ignored.has(col))));
    const key = policy.tables[table]?.key;
    out[table] = rows.sort((a, b) => {
      const ka = sortKey(a, key);
      const kb = sortKey(b, key);
      return ka < kb ? -1 : ka > kb ? 1 : 0;
    });
  }
  return out;
}
