import type { Blueprint, ComparePolicy, ExpectedCall } from '../packs/index.ts';
import type { TimelineEvent } from '../snapshot/index.ts';
import { matchArguments, matchOutput, type ToolShape } from './matchers.ts';
import type { ActualCall, CallRef, CandidateReason, MatcherFailure, MissingCall, ToolGateResult } from './types.ts';

type ToolEvent = Extract<TimelineEvent, { type: 'tool' }>;

/** Everything gate 2 needs besides the timeline. */
export interface ToolGateInput {
  readonly expected: readonly ExpectedCall[];
  readonly forbidden: readonly string[];
  readonly policy: ComparePolicy;
  readonly blueprint: Blueprint;
  /** Input schema and written tables per tool name; unknown tools get an empty shape. */
  readonly tools: ReadonlyMap<string, ToolShape>;
}

/** Agents that list `tool` in the blueprint, in blueprint order. */
export function ownersOf(blueprint: Blueprint, tool: string): string[] {
  const byTool = ownersByBlueprint.get(blueprint) ?? new Map<string, readonly string[]>();
  ownersByBlueprint.set(blueprint, byTool);
  const owners = byTool.get(tool) ?? blueprint.agents.filter((a) => a.tools.some((t) => t.name === tool)).map((a) => a.name);
  byTool.set(tool, owners);
  return [...owners];
}

/** Each tool's owners, read from the blueprint once per run (every call of every conversation asks). */
const ownersByBlueprint = new WeakMap<Blueprint, Map<string, readonly string[]>>();

function toolEvents(events: readonly TimelineEvent[]): ToolEvent[] {
  return events.filter((e): e is ToolEvent => e.type === 'tool').sort((a, b) => a.seq - b.seq);
}

function actualCall(e: ToolEvent): ActualCall {
  const ok = typeof e.output.ok === 'boolean' ? e.output.ok : null;
  const code = typeof e.output.error_code === 'string' ? e.output.error_code : null;
  return { seq: e.seq, at_ms: e.at_ms, name: e.name, kind: e.kind, agent: e.agent, executed: e.executed, refusal: e.refusal, ok, error_code: code, canonical_arguments: e.canonical_arguments };
}

/** Why candidate `a` cannot satisfy expected call `e`; empty when they are compatible (§5.5). */
function failuresOf(input: ToolGateInput, expected: ExpectedCall, event: ToolEvent): MatcherFailure[] {
  const failures: MatcherFailure[] = [];
  if (!event.executed) failures.push({ argument: '(executed)', reason: 'not_executed', expected: true, actual: false, rule: event.refusal ?? 'refused' });
  const owners = ownersOf(input.blueprint, event.name);
  if (event.executed && !owners.includes(event.agent)) failures.push({ argument: '(agent)', reason: 'out_of_scope', expected: owners, actual: event.agent, rule: 'ownership' });
  const shape = input.tools.get(expected.name) ?? { name: expected.name, inputSchema: {}, writes: [] };
  failures.push(...matchArguments(input.policy, shape, expected, event.canonical_arguments));
  failures.push(...matchOutput(expected.output, event.output));
  return failures;
}

/**
 * Maximum bipartite matching by augmenting paths (Kuhn), never greedy first-fit: expected calls
 * are tried in declared order and candidates in seq order, so the result is stable.
 */
export function maximumMatching(edges: readonly (readonly number[])[], rightCount: number): number[] {
  const owner: number[] = new Array<number>(rightCount).fill(-1);
  const augment = (left: number, seen: Set<number>): boolean => {
    // A free candidate (earliest seq) is taken before any earlier pairing is re-routed, so a
    // matching that needs no re-routing keeps calls in their natural order.
    const free = (edges[left] ?? []).find((right) => !seen.has(right) && (owner[right] ?? -1) < 0);
    if (free !== undefined) {
      owner[free] = left;
      return true;
    }
    for (const right of edges[left] ?? []) {
      if (seen.has(right)) continue;
      seen.add(right);
      const holder = owner[right] ?? -1;
      if (holder < 0 || augment(holder, seen)) {
        owner[right] = left;
        return true;
      }
    }
    return false;
  };
  edges.forEach((_, left) => augment(left, new Set<number>()));
  return owner;
}

function missingCall(input: ToolGateInput, index: number, candidates: readonly ToolEvent[], owner: readonly number[], all: readonly ToolEvent[]): MissingCall {
  const expected = input.expected[index] as ExpectedCall;
  const sameName = candidates.map((event, position) => ({ event, position })).filter(({ event }) => event.name === expected.name);
  const reasons: CandidateReason[] = sameName.map(({ event, position }) => {
    const failures = failuresOf(input, expected, event);
    const holder = owner[position] ?? -1;
    return { seq: event.seq, agent: event.agent, failures, used_by: failures.length === 0 && holder >= 0 ? holder + 1 : null };
  });
  reasons.sort((a, b) => a.failures.length - b.failures.length || a.seq - b.seq);
  return { index: index + 1, name: expected.name, never_called: !all.some((e) => e.name === expected.name), candidates: reasons.slice(0, 3) };
}

function ref(e: ToolEvent): CallRef {
  return { seq: e.seq, name: e.name, agent: e.agent };
}

/**
 * Gate 2 (scoring.md §5): every expected call matched by a distinct compatible actual call, no
 * forbidden tool called at all, and no executed call by an agent that does not own the tool.
 */
export function judgeTools(input: ToolGateInput, events: readonly TimelineEvent[]): ToolGateResult {
  const all = toolEvents(events);
  const candidates = all.filter((e) => e.kind !== 'handoff' && e.name !== 'end_call');
  const edges = input.expected.map((exp) => candidates.flatMap((event, i) => (event.name === exp.name && failuresOf(input, exp, event).length === 0 ? [i] : [])));
  const owner = maximumMatching(edges, candidates.length);
  const matched = owner.flatMap((left, right) => (left >= 0 ? [{ expected: left + 1, seq: candidates[right]?.seq ?? -1 }] : [])).sort((a, b) => a.expected - b.expected);
  const matchedLeft = new Set(matched.map((m) => m.expected - 1));
  const missing = input.expected.flatMap((_, i) => (matchedLeft.has(i) ? [] : [missingCall(input, i, candidates, owner, all)]));
  const forbiddenSet = new Set(input.forbidden);
  const forbidden = all.filter((e) => forbiddenSet.has(e.name)).map((e) => ({ ...ref(e), executed: e.executed }));
  const scopeViolations = all
    .filter((e) => e.executed && !ownersOf(input.blueprint, e.name).includes(e.agent))
    .map((e) => ({ ...ref(e), owners: ownersOf(input.blueprint, e.name) }));
  const scopeRefusals = all.filter((e) => e.refusal === 'TOOL_NOT_AVAILABLE').map(ref);
  const extra = candidates.filter((e, i) => (owner[i] ?? -1) < 0 && e.refusal !== 'TOOL_NOT_AVAILABLE').map(ref);
  return {
    pass: missing.length === 0 && forbidden.length === 0 && scopeViolations.length === 0,
    score: input.expected.length === 0 ? 1 : matched.length / input.expected.length,
    matched,
    missing,
    forbidden,
    scope_violations: scopeViolations,
    extra,
    scope_refusals: scopeRefusals,
    expected_calls: input.expected,
    actual_calls: all.map(actualCall),
  };
}

function describeFailure(f: MatcherFailure): string {
  const shown = (v: unknown): string => JSON.stringify(v ?? null);
  if (f.reason === 'absent') return `${f.argument} absent (expected ${shown(f.expected)})`;
  if (f.reason === 'not_executed') return `not executed (${f.rule})`;
  if (f.reason === 'out_of_scope') return `run by ${shown(f.actual)}, owners ${shown(f.expected)}`;
  return `${f.argument} expected ${shown(f.expected)}, got ${shown(f.actual)} (${f.reason === 'mismatch' ? f.rule : `${f.reason}, ${f.rule}`})`;
}

/** One line per tool-gate failure: missing calls with the nearest candidate, forbidden and scope. */
export function describeToolFailures(result: ToolGateResult): string[] {
  const lines = result.missing.map((m) => {
    const best = m.candidates[0];
    if (m.never_called || !best) return `tools: #${m.index} ${m.name} never called`;
    if (best.used_by !== null) return `tools: #${m.index} ${m.name}: its only compatible call is used by expected #${best.used_by}`;
    return `tools: #${m.index} ${m.name}: ${best.failures.map(describeFailure).join('; ')}`;
  });
  for (const f of result.forbidden) lines.push(`tools: forbidden ${f.name} called by ${f.agent} (seq ${f.seq}${f.executed ? '' : ', refused'})`);
  for (const s of result.scope_violations) lines.push(`scope: ${s.name} executed by ${s.agent}; owners: ${s.owners.join(', ') || 'none'}`);
  return lines;
}
