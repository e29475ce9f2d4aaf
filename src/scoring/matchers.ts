import { isPlainObject } from '../core/index.ts';
import type { ComparePolicy, ExpectedCall, Matcher, NormaliserName } from '../packs/index.ts';
import { normalise, sameValue } from './normalisers.ts';
import type { MatcherFailure } from './types.ts';

/** What the argument matchers need to know about one tool. */
export interface ToolShape {
  readonly name: string;
  readonly inputSchema: Readonly<Record<string, unknown>>;
  readonly writes: readonly string[];
}

const SAMPLE_DATE = '2026-10-07';
const SAMPLE_MINUTE = '2026-10-07T09:30';
/** Free text a date pattern must refuse: a pattern that takes it types names, not dates. */
const SAMPLE_TEXT = 'Ohio Valley Medical';

function firstConcrete(schema: Record<string, unknown>): Record<string, unknown> {
  const options = schema.anyOf ?? schema.oneOf;
  if (!Array.isArray(options)) return schema;
  const concrete = options.find((o) => isPlainObject(o) && o.type !== 'null');
  return isPlainObject(concrete) ? concrete : schema;
}

function patternMatches(pattern: unknown, sample: string): boolean {
  if (typeof pattern !== 'string') return false;
  try {
    return new RegExp(pattern).test(sample);
  } catch {
    return false;
  }
}

/** The type default of scoring.md §5.3, read from the tool's generated JSON Schema. */
function typeDefault(property: Record<string, unknown> | undefined, strings: NormaliserName): NormaliserName {
  if (!property) return 'exact';
  const p = firstConcrete(property);
  if (p.type === 'number' || p.type === 'integer') return 'number';
  if (p.type === 'boolean') return 'bool';
  if (p.type === 'array') return isPlainObject(p.items) && firstConcrete(p.items).type === 'string' ? 'set_text' : 'exact';
  if (p.type !== 'string' && !Array.isArray(p.enum)) return 'exact';
  // A pattern types a date only if it takes a date and refuses free text (a name field whose
  // pattern also accepts a date string stays text: scoring.md stricter readings).
  const textToo = patternMatches(p.pattern, SAMPLE_TEXT);
  if (p.format === 'date' || (patternMatches(p.pattern, SAMPLE_DATE) && !patternMatches(p.pattern, SAMPLE_MINUTE) && !textToo)) return 'date';
  if (p.format === 'date-time' || (patternMatches(p.pattern, SAMPLE_MINUTE) && !textToo)) return 'datetime_minute';
  return strings;
}

function inputProperty(tool: ToolShape, field: string): Record<string, unknown> | undefined {
  const props = tool.inputSchema.properties;
  const property = isPlainObject(props) ? props[field] : undefined;
  return isPlainObject(property) ? property : undefined;
}

/**
 * The normaliser for argument `field` of `tool` (scoring.md §5.3): a same-named state column's
 * declared normaliser (tables the tool writes first), then `arguments["tool.field"]`, then the
 * type default from the input schema.
 */
export function argumentNormaliser(policy: ComparePolicy, tool: ToolShape, field: string): NormaliserName {
  const byTool = normalisersByPolicy.get(policy) ?? new WeakMap<ToolShape, Map<string, NormaliserName>>();
  normalisersByPolicy.set(policy, byTool);
  const byField = byTool.get(tool) ?? new Map<string, NormaliserName>();
  byTool.set(tool, byField);
  const known = byField.get(field);
  if (known) return known;
  const name = findArgumentNormaliser(policy, tool, field);
  byField.set(field, name);
  return name;
}

/** Each argument's normaliser, worked out once per policy, tool and field (a run matches the same arguments many times). */
const normalisersByPolicy = new WeakMap<ComparePolicy, WeakMap<ToolShape, Map<string, NormaliserName>>>();

function findArgumentNormaliser(policy: ComparePolicy, tool: ToolShape, field: string): NormaliserName {
  const tables = [...tool.writes, ...Object.keys(policy.tables).sort()];
  for (const table of tables) {
    const declared = policy.tables[table]?.normalise?.[field];
    if (declared) return declared;
  }
  return policy.arguments?.[`${tool.name}.${field}`] ?? typeDefault(inputProperty(tool, field), policy.defaults.strings);
}

/** True when the argument is a free-prose string (no enum, pattern or format): where `$present` is allowed. */
export function isProseField(tool: ToolShape, field: string): boolean {
  const property = inputProperty(tool, field);
  if (!property) return false;
  const p = firstConcrete(property);
  return p.type === 'string' && p.enum === undefined && p.pattern === undefined && p.format === undefined && p.const === undefined;
}

function matchOne(argument: string, matcher: Matcher, actual: unknown, rule: NormaliserName): MatcherFailure | null {
  const fail = (reason: MatcherFailure['reason']): MatcherFailure => ({ argument, reason, expected: matcher, actual: actual ?? null, rule });
  if (actual === undefined) return fail('absent');
  if (typeof matcher === 'object' && '$present' in matcher) {
    return actual === null || (typeof actual === 'string' && actual.trim() === '') ? fail('blank') : null;
  }
  const got = normalise(rule, actual);
  const options = typeof matcher === 'object' ? matcher.$any_of : [matcher];
  if (options.some((o) => sameValue(normalise(rule, o).value, got.value))) return null;
  if (got.unparsed) return fail('unparsed');
  return fail(typeof matcher === 'object' ? 'not_any_of' : 'mismatch');
}

/** Runs every argument matcher of an expected call on the recorded canonical arguments. */
export function matchArguments(policy: ComparePolicy, tool: ToolShape, expected: ExpectedCall, actual: Readonly<Record<string, unknown>> | null): MatcherFailure[] {
  const failures: MatcherFailure[] = [];
  for (const [field, matcher] of Object.entries(expected.parameters ?? {}).sort(([a], [b]) => (a < b ? -1 : 1))) {
    const value = actual && Object.hasOwn(actual, field) ? actual[field] : undefined;
    const failure = matchOne(field, matcher, value, argumentNormaliser(policy, tool, field));
    if (failure) failures.push(failure);
  }
  return failures;
}

function isMatcherObject(value: unknown): value is Matcher {
  return isPlainObject(value) && (Object.hasOwn(value, '$any_of') || Object.hasOwn(value, '$present'));
}

function matchData(path: string, expected: unknown, actual: unknown, out: MatcherFailure[]): void {
  const fail = (reason: MatcherFailure['reason']): void => void out.push({ argument: path, reason, expected, actual: actual ?? null, rule: 'subset, exact' });
  if (actual === undefined) return fail('absent');
  if (isMatcherObject(expected) || !isPlainObject(expected) && !Array.isArray(expected)) {
    const failure = matchOne(path, isMatcherObject(expected) ? expected : (expected as Matcher), actual, 'exact');
    if (failure) out.push({ ...failure, rule: 'subset, exact' });
    return;
  }
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual) || actual.length !== expected.length) return fail('mismatch');
    expected.forEach((item, i) => matchData(`${path}[${i}]`, item, actual[i], out));
    return;
  }
  if (!isPlainObject(actual)) return fail('mismatch');
  for (const key of Object.keys(expected).sort()) {
    matchData(`${path}.${key}`, expected[key], Object.hasOwn(actual, key) ? actual[key] : undefined, out);
  }
}

/**
 * The output matcher (scoring.md §5.4): `ok` always (an omitted output means `{ok:true}`),
 * `error_code` when declared, and `data` as a recursive subset.
 */
export function matchOutput(expected: ExpectedCall['output'], actual: Readonly<Record<string, unknown>>): MatcherFailure[] {
  const want = expected ?? { ok: true };
  const out: MatcherFailure[] = [];
  if (typeof actual.ok !== 'boolean') out.push({ argument: 'output.ok', reason: 'absent', expected: want.ok, actual: null, rule: 'exact' });
  else if (actual.ok !== want.ok) out.push({ argument: 'output.ok', reason: 'mismatch', expected: want.ok, actual: actual.ok, rule: 'exact' });
  if (want.error_code !== undefined && actual.error_code !== want.error_code) {
    out.push({ argument: 'output.error_code', reason: actual.error_code === undefined ? 'absent' : 'mismatch', expected: want.error_code, actual: actual.error_code ?? null, rule: 'exact' });
  }
  if (want.data !== undefined) matchData('output.data', want.data, actual.data, out);
  return out;
}
