import { canonicalJson, rowsDigest } from '../core/index.ts';
import { ignoredColumns, scoredTables, type ComparePolicy, type NormaliserName, type TablePolicy } from '../packs/index.ts';
import { normalise, sameValue } from './normalisers.ts';
import type { StateDiffEntry, StateGateResult } from './types.ts';

/** Rows of every table, as in final.json and exp_db_state. */
export type StateTables = Readonly<Record<string, readonly Readonly<Record<string, unknown>>[]>>;

/** The state gate judged the tables, or could not run because scored tables are absent from the dump. */
export type StateGateOutcome = { readonly kind: 'judged'; readonly result: StateGateResult } | { readonly kind: 'missing_tables'; readonly tables: readonly string[] };

interface PreparedRow {
  readonly raw: Readonly<Record<string, unknown>>;
  readonly norm: Readonly<Record<string, unknown>>;
  readonly rules: Readonly<Record<string, NormaliserName>>;
  readonly unparsed: ReadonlySet<string>;
  readonly order: string;
}

interface TableRules {
  readonly table: string;
  readonly mode: 'exact' | 'subset';
  readonly key: readonly string[] | undefined;
  readonly ignored: ReadonlySet<string>;
  readonly policy: TablePolicy;
  readonly strings: NormaliserName;
}

function normaliserFor(rules: TableRules, column: string, value: unknown): NormaliserName {
  return rules.policy.normalise?.[column] ?? (typeof value === 'string' ? rules.strings : 'exact');
}

function prepareRow(rules: TableRules, row: Readonly<Record<string, unknown>>): PreparedRow {
  const raw: Record<string, unknown> = {};
  const norm: Record<string, unknown> = {};
  const used: Record<string, NormaliserName> = {};
  const unparsed = new Set<string>();
  for (const column of Object.keys(row).sort()) {
    if (rules.ignored.has(column)) continue;
    const value = row[column];
    const name = normaliserFor(rules, column, value);
    const out = normalise(name, value);
    raw[column] = value;
    norm[column] = out.value;
    used[column] = name;
    if (out.unparsed) unparsed.add(column);
  }
  return { raw, norm, rules: used, unparsed, order: canonicalJson(norm) };
}

function keyOf(rules: TableRules, row: PreparedRow): string {
  return rules.key ? canonicalJson(rules.key.map((k) => row.norm[k] ?? null)) : row.order;
}

function rawKey(rules: TableRules, row: PreparedRow): Record<string, unknown> | null {
  return rules.key ? Object.fromEntries(rules.key.map((k) => [k, row.raw[k] ?? null])) : null;
}

function differingFields(a: PreparedRow, b: PreparedRow): string[] {
  // Equal canonical rows differ nowhere (most rows a call never touched).
  if (a.order === b.order) return [];
  const columns = [...new Set([...Object.keys(a.norm), ...Object.keys(b.norm)])].sort();
  return columns.filter((c) => !(c in a.norm) || !(c in b.norm) || !sameValue(a.norm[c], b.norm[c]));
}

/**
 * Pairs the rows of one key group with the fewest differing fields in total; ties go to the
 * earlier row in canonical-JSON order (rows arrive sorted). Without a key, groups hold equal
 * rows, so a keyless table is a multiset reported only as missing and extra.
 */
function pairGroup(expected: readonly PreparedRow[], actual: readonly PreparedRow[]): [number, number][] {
  const swap = expected.length > actual.length;
  const small = swap ? actual : expected;
  const large = swap ? expected : actual;
  if (small.length === 0) return [];
  if (large.length === 1) return [[0, 0]];
  const cost = small.map((s) => large.map((l) => differingFields(s, l).length));
  const pairs: [number, number][] = [];
  if (large.length > 12) {
    // Beyond exact search: each row in order takes the cheapest free partner (earliest on ties).
    const used = new Set<number>();
    small.forEach((_, i) => {
      let pick = -1;
      large.forEach((__, j) => {
        if (!used.has(j) && (pick < 0 || (cost[i]?.[j] ?? 0) < (cost[i]?.[pick] ?? 0))) pick = j;
      });
      used.add(pick);
      pairs.push([i, pick]);
    });
  } else {
    const memo = new Map<string, { total: number; picks: number[] }>();
    const best = (i: number, mask: number): { total: number; picks: number[] } => {
      if (i === small.length) return { total: 0, picks: [] };
      const id = `${i}:${mask}`;
      const hit = memo.get(id);
      if (hit) return hit;
      let found = { total: Infinity, picks: [] as number[] };
      for (let j = 0; j < large.length; j++) {
        if (mask & (1 << j)) continue;
        const rest = best(i + 1, mask | (1 << j));
        const total = (cost[i]?.[j] ?? 0) + rest.total;
        if (total < found.total) found = { total, picks: [j, ...rest.picks] };
      }
      memo.set(id, found);
      return found;
    };
    best(0, 0).picks.forEach((j, i) => pairs.push([i, j]));
  }
  return pairs.map(([i, j]) => (swap ? [j, i] : [i, j]));
}

function ruleText(rules: TableRules, normaliser?: NormaliserName): string {
  return normaliser ? `${rules.mode}, ${normaliser}` : rules.mode;
}

function changedEntries(rules: TableRules, exp: PreparedRow, act: PreparedRow): StateDiffEntry[] {
  return differingFields(exp, act).map((field) => ({
    table: rules.table,
    kind: 'changed' as const,
    key: rawKey(rules, exp),
    field,
    expected: exp.raw[field] ?? null,
    actual: act.raw[field] ?? null,
    expected_normalised: exp.norm[field] ?? null,
    actual_normalised: act.norm[field] ?? null,
    rule: ruleText(rules, exp.rules[field] ?? act.rules[field]),
    allowed: false,
    unparsed: exp.unparsed.has(field) || act.unparsed.has(field),
  }));
}

function wholeRowEntry(rules: TableRules, row: PreparedRow, kind: 'missing' | 'extra', allowed: boolean): StateDiffEntry {
  const isMissing = kind === 'missing';
  return {
    table: rules.table,
    kind,
    key: rawKey(rules, row),
    field: null,
    expected: isMissing ? row.raw : null,
    actual: isMissing ? null : row.raw,
    expected_normalised: isMissing ? row.norm : null,
    actual_normalised: isMissing ? null : row.norm,
    rule: ruleText(rules),
    allowed,
    unparsed: row.unparsed.size > 0,
  };
}

function groupRows(rules: TableRules, rows: readonly PreparedRow[]): Map<string, PreparedRow[]> {
  const groups = new Map<string, PreparedRow[]>();
  const sorted = [...rows].sort((a, b) => (a.order < b.order ? -1 : a.order > b.order ? 1 : 0));
  for (const row of sorted) {
    const key = keyOf(rules, row);
    groups.set(key, [...(groups.get(key) ?? []), row]);
  }
  return groups;
}

/** Rows prepared under one table's rules, remembered by their JSON text (the seed rows every call carries are prepared once a run). */
interface CompiledTable {
  readonly rules: TableRules;
  readonly rows: Map<string, PreparedRow>;
  /** Frozen rows prepared (a template's rows, which every conversation's dump shares), by row. */
  readonly frozenRows: WeakMap<object, PreparedRow>;
  /** Each task's expected rows, prepared and grouped once, with the outcomes already found against them (by the actual rows' digest). */
  readonly expected: WeakMap<readonly Readonly<Record<string, unknown>>[], ExpectedTable>;
}

interface ExpectedTable {
  readonly groups: Map<string, PreparedRow[]>;
  readonly outcomes: Map<string, TableOutcome>;
}

type TableOutcome = { readonly pass: boolean; readonly diff: StateDiffEntry[] };

/** At most this many prepared rows are remembered per table's rules, and outcomes per task's table; past it the memory starts over. */
const PREPARED_ROWS_CAP = 20_000;
const OUTCOMES_CAP = 64;
const NO_ROWS: readonly Readonly<Record<string, unknown>>[] = [];
/** A policy compiled: its scored tables in order, each with its rules and memos. */
interface CompiledPolicy {
  readonly scored: readonly string[];
  readonly tables: ReadonlyMap<string, CompiledTable>;
}

const compiledPolicies = new WeakMap<ComparePolicy, CompiledPolicy>();

function compiledPolicy(policy: ComparePolicy): CompiledPolicy {
  const known = compiledPolicies.get(policy);
  if (known) return known;
  const scored = scoredTables(policy);
  const compiled = { scored, tables: new Map(scored.map((table) => [table, compileTable(policy, table)])) };
  compiledPolicies.set(policy, compiled);
  return compiled;
}

function compileTable(policy: ComparePolicy, table: string): CompiledTable {
  const tablePolicy = policy.tables[table] ?? { scored: true };
  const rules: TableRules = { table, mode: tablePolicy.mode ?? 'exact', key: tablePolicy.key, ignored: ignoredColumns(policy, table), policy: tablePolicy, strings: policy.defaults.strings };
  return { rules, rows: new Map<string, PreparedRow>(), frozenRows: new WeakMap(), expected: new WeakMap() };
}

/** The policy's scored tables, in order (`scoredTables`, worked out once per policy). */
export function scoredTablesOf(policy: ComparePolicy): readonly string[] {
  return compiledPolicy(policy).scored;
}

function preparedRow(compiled: CompiledTable, row: Readonly<Record<string, unknown>>): PreparedRow {
  const frozen = Object.isFrozen(row);
  const same = frozen ? compiled.frozenRows.get(row) : undefined;
  if (same) return same;
  const text = JSON.stringify(row);
  let prepared = compiled.rows.get(text);
  if (!prepared) {
    if (compiled.rows.size >= PREPARED_ROWS_CAP) compiled.rows.clear();
    prepared = prepareRow(compiled.rules, row);
    compiled.rows.set(text, prepared);
  }
  if (frozen) compiled.frozenRows.set(row, prepared);
  return prepared;
}

function expectedTable(compiled: CompiledTable, rows: readonly Readonly<Record<string, unknown>>[]): ExpectedTable {
  const known = compiled.expected.get(rows);
  if (known) return known;
  const table = { groups: groupRows(compiled.rules, rows.map((r) => prepareRow(compiled.rules, r))), outcomes: new Map<string, TableOutcome>() };
  compiled.expected.set(rows, table);
  return table;
}

/**
 * One table's outcome. The same actual rows (by the digest of their JSON text) against the same
 * expected rows always give the same outcome, so a table a call left as it found it is compared
 * once a run, not once a call.
 */
function compareTable(compiled: CompiledTable, expectedRows: readonly Readonly<Record<string, unknown>>[], actualRows: readonly Readonly<Record<string, unknown>>[]): TableOutcome {
  const expected = expectedTable(compiled, expectedRows);
  // A table the conversation left as it was is its template's frozen array: its digest is kept.
  const digest = rowsDigest(actualRows);
  const known = expected.outcomes.get(digest);
  if (known) return known;
  if (expected.outcomes.size >= OUTCOMES_CAP) expected.outcomes.clear();
  const outcome = diffTable(compiled, expected.groups, expectedRows.length, actualRows);
  expected.outcomes.set(digest, outcome);
  return outcome;
}

function diffTable(compiled: CompiledTable, expected: Map<string, PreparedRow[]>, expectedCount: number, actualRows: readonly Readonly<Record<string, unknown>>[]): TableOutcome {
  const { rules } = compiled;
  const actual = groupRows(rules, actualRows.map((r) => preparedRow(compiled, r)));
  const extrasAllowed = rules.mode === 'subset' && (expectedCount > 0 || rules.policy.extra_when_empty === true);
  const diff: StateDiffEntry[] = [];
  for (const key of [...new Set([...expected.keys(), ...actual.keys()])].sort()) {
    const exp = expected.get(key) ?? [];
    const act = actual.get(key) ?? [];
    const pairs = pairGroup(exp, act);
    const pairedExp = new Set(pairs.map(([i]) => i));
    const pairedAct = new Set(pairs.map(([, j]) => j));
    for (const [i, j] of pairs) {
      const e = exp[i];
      const a = act[j];
      if (e && a) diff.push(...(rules.key ? changedEntries(rules, e, a) : []));
    }
    exp.forEach((row, i) => pairedExp.has(i) || diff.push(wholeRowEntry(rules, row, 'missing', false)));
    act.forEach((row, j) => pairedAct.has(j) || diff.push(wholeRowEntry(rules, row, 'extra', extrasAllowed)));
  }
  return { pass: diff.every((d) => d.allowed), diff };
}

/**
 * Gate 1 (scoring.md §4): compares the final state with exp_db_state under the comparison policy.
 * A scored table absent from the dump is never read as empty: the gate reports it instead.
 * Each policy's table rules and each task's expected rows are compiled once (kept while the
 * policy and the task's rows live), and a row seen before under the same rules is not prepared
 * again, so a run pays for the rows its calls changed.
 */
export function judgeState(expectedState: StateTables, actualState: StateTables, policy: ComparePolicy): StateGateOutcome {
  const compiled = compiledPolicy(policy);
  const absent = compiled.scored.filter((t) => !Object.hasOwn(actualState, t));
  if (absent.length) return { kind: 'missing_tables', tables: absent };
  const results = compiled.scored.map((table) => {
    const rules = compiled.tables.get(table) ?? compileTable(policy, table);
    return { table, mode: rules.rules.mode, ...compareTable(rules, expectedState[table] ?? NO_ROWS, actualState[table] ?? NO_ROWS) };
  });
  const diff = results.flatMap((r) => r.diff);
  const count = (kind: StateDiffEntry['kind']): number => diff.filter((d) => d.kind === kind).length;
  return {
    kind: 'judged',
    result: {
      pass: results.every((r) => r.pass),
      missing: count('missing'),
      extra: count('extra'),
      changed: count('changed'),
      tables: results.map(({ table, mode, pass }) => ({ table, mode, pass })),
      diff,
    },
  };
}
