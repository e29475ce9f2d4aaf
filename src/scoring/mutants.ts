import type { z } from 'zod';
import { agentOwnsTool, type ExpectedCall, type Matcher, type Pack, type Task } from '../packs/index.ts';
import { replayValue, type RouteAction } from '../conversation/index.ts';
import { interleave } from './route-search.ts';

/** Mutant classes of scoring.md §11.8: each must FAIL. */
export type MutantClass = 'drop_call' | 'perturb_argument' | 'drop_hop' | 'swap_hops' | 'forbidden_tool' | 'extra_write' | 'wrong_agent';
/** Equivalent classes of scoring.md §11.9: each must PASS with the stated reward. */
export type EquivalentClass = 'extra_read' | 'extra_hop' | 'failed_retry' | 'text_case' | 'snapshot_noise';

/** One generated conversation to replay and score. */
export interface Variant {
  readonly kind: 'mutant' | 'equivalent';
  readonly class: MutantClass | EquivalentClass;
  readonly description: string;
  readonly actions: readonly RouteAction[];
  /** Reward an equivalent must earn. */
  readonly reward?: number;
  /** Applies snapshot noise to the final state. */
  readonly noise?: boolean;
  /** An extra write that leaves policy-visible state unchanged becomes an equivalent (reward 1). */
  readonly reclassifyIfUnchanged?: boolean;
  /**
   * Tampered evidence: the recorded event of action `action` claims `agent` made it. The engine
   * refuses another desk's tool, so no live conversation records this; the scorer must still
   * reject such a snapshot.
   */
  readonly relabel?: { readonly action: number; readonly agent: string };
}

type CallAction = Extract<RouteAction, { kind: 'call' }>;
const isCall = (a: RouteAction): a is CallAction => a.kind === 'call';

function addDays(date: string, days: number): string {
  const d = new Date(`${date.slice(0, 10)}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + days);
  return d.toISOString().slice(0, 10) + date.slice(10);
}

function enumOf(pack: Pack, tool: string, field: string): unknown[] {
  const props = pack.catalog.get(tool)?.inputSchema.properties as Record<string, { enum?: unknown[] }> | undefined;
  return props?.[field]?.enum ?? [];
}

function literalAlternatives(value: string | number | boolean): unknown[] {
  if (typeof value === 'boolean') return [!value];
  if (typeof value === 'number') return [value + 1, value - 1];
  if (/^\d{4}-\d{2}-\d{2}/.test(value)) return [addDays(value, 1), addDays(value, 2)];
  const last = value.slice(-1);
  return [`${value.slice(0, -1)}${last === '0' ? '1' : '0'}`, `${value}x`, `x${value}`];
}

/** A value that breaks the matcher: another valid enum or patterned value, one outside `$any_of`, or a blank. */
export function perturbedValue(pack: Pack, tool: string, field: string, matcher: Matcher): unknown {
  if (typeof matcher === 'object' && '$present' in matcher) return '';
  const excluded = typeof matcher === 'object' ? matcher.$any_of : [matcher];
  const schema = (pack.catalog.get(tool)?.input.shape as Record<string, z.ZodType> | undefined)?.[field];
  const candidates = [...enumOf(pack, tool, field), ...excluded.flatMap(literalAlternatives)].filter((v) => !excluded.includes(v as never));
  return candidates.find((v) => schema?.safeParse(v).success) ?? candidates[0] ?? `${String(excluded[0])}x`;
}

/** Arguments drawn from the task itself (same-named expected parameters), for extra or forbidden calls. */
export function derivedParameters(pack: Pack, task: Task, tool: string): Record<string, Matcher> {
  const shape = pack.catalog.get(tool)?.input.shape ?? {};
  const known = new Map<string, Matcher>();
  for (const call of task.exp_tool_calls) for (const [k, v] of Object.entries(call.parameters ?? {})) if (!known.has(k)) known.set(k, replayValue(v));
  return Object.fromEntries(Object.keys(shape).flatMap((k) => (known.has(k) ? [[k, known.get(k) as Matcher]] : [])));
}

/** The active agent before each action (and, last, after all of them). */
export function agentsAlong(pack: Pack, actions: readonly RouteAction[]): string[] {
  const agents = [pack.entryAgent];
  for (const a of actions) agents.push(a.kind === 'hop' ? a.to : (agents[agents.length - 1] ?? pack.entryAgent));
  return agents;
}

function effectOf(pack: Pack, tool: string): 'read' | 'write' | undefined {
  return pack.catalog.get(tool)?.definition?.effect;
}

function insertAt(actions: readonly RouteAction[], index: number, ...added: RouteAction[]): RouteAction[] {
  return [...actions.slice(0, index), ...added, ...actions.slice(index)];
}

function callMutants(pack: Pack, task: Task, oracle: readonly RouteAction[]): Variant[] {
  const out: Variant[] = [];
  const agents = [pack.entryAgent, ...task.exp_handoff_path.flatMap((h) => pack.catalog.get(h)?.handoffTo ?? [])];
  oracle.forEach((action, i) => {
    if (!isCall(action)) return;
    const label = `${action.name} (#${oracle.slice(0, i + 1).filter(isCall).length})`;
    out.push({ kind: 'mutant', class: 'drop_call', description: `drop ${label}`, actions: oracle.filter((_, j) => j !== i) });
    for (const [field, matcher] of Object.entries(action.parameters ?? {})) {
      const value = perturbedValue(pack, action.name, field, matcher);
      out.push({ kind: 'mutant', class: 'perturb_argument', description: `${label}: ${field}=${JSON.stringify(value)}`, actions: oracle.map((a, j) => (j === i ? { ...action, overrides: { [field]: value } } : a)) });
    }
    const stranger = agents.find((a) => !agentOwnsTool(pack, a, action.name));
    if (stranger) out.push({ kind: 'mutant', class: 'wrong_agent', description: `${label} executed by ${stranger}`, actions: oracle, relabel: { action: i, agent: stranger } });
  });
  return out;
}

function hopMutants(oracle: readonly RouteAction[], task: Task, pack: Pack): Variant[] {
  const out: Variant[] = [];
  const calls = task.exp_tool_calls;
  task.exp_handoff_path.forEach((hop, j) => {
    const path = task.exp_handoff_path.filter((_, k) => k !== j);
    out.push({ kind: 'mutant', class: 'drop_hop', description: `drop hop ${hop}`, actions: withPath(pack, path, calls, oracle) });
    const next = task.exp_handoff_path[j + 1];
    if (next) {
      const swapped = [...task.exp_handoff_path];
      [swapped[j], swapped[j + 1]] = [next, hop];
      out.push({ kind: 'mutant', class: 'swap_hops', description: `swap ${hop} and ${next}`, actions: withPath(pack, swapped, calls, oracle) });
    }
  });
  return out;
}

/** Replays a changed path: the runtime refuses undeclared hops and unowned calls, as it would live. */
function withPath(pack: Pack, path: readonly string[], calls: readonly ExpectedCall[], oracle: readonly RouteAction[]): RouteAction[] {
  const planned = interleave(pack, path, calls);
  if (planned) return planned;
  const hops: RouteAction[] = path.map((h) => ({ kind: 'hop', to: pack.catalog.get(h)?.handoffTo ?? h }));
  return [...hops, ...oracle.filter(isCall)];
}

function writeMutants(pack: Pack, task: Task, oracle: readonly RouteAction[]): Variant[] {
  const out: Variant[] = [];
  for (const name of task.forbidden_tools) {
    out.push({ kind: 'mutant', class: 'forbidden_tool', description: `call forbidden ${name}`, actions: [...oracle, { kind: 'call', name, parameters: derivedParameters(pack, task, name) }] });
  }
  const lastWrite = oracle.map((a, i) => [a, i] as const).filter(([a]) => isCall(a) && effectOf(pack, a.name) === 'write').pop();
  if (lastWrite && isCall(lastWrite[0])) {
    const [write, i] = lastWrite;
    out.push({ kind: 'mutant', class: 'extra_write', description: `repeat ${write.name}`, actions: insertAt(oracle, i + 1, { ...write, overrides: {} }), reclassifyIfUnchanged: true });
    const [field, matcher] = Object.entries(write.parameters ?? {})[0] ?? [];
    if (field && matcher !== undefined) {
      const value = perturbedValue(pack, write.name, field, matcher);
      out.push({ kind: 'mutant', class: 'extra_write', description: `extra ${write.name} with ${field}=${JSON.stringify(value)}`, actions: insertAt(oracle, i + 1, { ...write, overrides: { [field]: value } }), reclassifyIfUnchanged: true });
    }
  }
  return out;
}

/** Every mutant of scoring.md §11.8 for a task, from its oracle route. */
export function mutantsOf(pack: Pack, task: Task, oracle: readonly RouteAction[]): Variant[] {
  return [...callMutants(pack, task, oracle), ...hopMutants(oracle, task, pack), ...writeMutants(pack, task, oracle)];
}
