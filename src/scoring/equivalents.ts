import { effectivePolicy, ignoredColumns, type ComparePolicy, type Pack, type Task } from '../packs/index.ts';
import { argumentNormaliser } from './matchers.ts';
import { toolShapes } from './verdict.ts';
import type { FinalState } from '../snapshot/index.ts';
import { agentsAlong, derivedParameters, type Variant } from './mutants.ts';
import { interleave } from './route-search.ts';
import type { RouteAction } from '../conversation/index.ts';

type CallAction = Extract<RouteAction, { kind: 'call' }>;
const isCall = (a: RouteAction): a is CallAction => a.kind === 'call';

function readToolsOf(pack: Pack, agent: string): string[] {
  const def = pack.blueprint.agents.find((a) => a.name === agent);
  return (def?.tools ?? []).flatMap((t) => (pack.catalog.get(t.name)?.definition?.effect === 'read' ? [t.name] : []));
}

function extraRead(pack: Pack, task: Task, oracle: readonly RouteAction[]): Variant | null {
  const agents = agentsAlong(pack, oracle);
  for (let p = oracle.length; p >= 0; p--) {
    const [tool] = readToolsOf(pack, agents[p] ?? pack.entryAgent);
    if (!tool) continue;
    const known = task.exp_tool_calls.find((c) => c.name === tool);
    const call: RouteAction = { kind: 'call', name: tool, parameters: known?.parameters ?? derivedParameters(pack, task, tool) };
    return { kind: 'equivalent', class: 'extra_read', description: `extra ${tool} by ${agents[p]}`, actions: [...oracle.slice(0, p), call, ...oracle.slice(p)], reward: 1 };
  }
  return null;
}

function extraHop(pack: Pack, task: Task): Variant | null {
  const path = task.exp_handoff_path;
  const targets = pack.blueprint.agents.map((a) => `transfer_to_${a.name}`).filter((h) => pack.catalog.has(h));
  for (let j = 0; j <= path.length; j++) {
    for (const hop of targets) {
      const longer = [...path.slice(0, j), hop, ...path.slice(j)];
      const actions = interleave(pack, longer, task.exp_tool_calls);
      const reward = (1 + path.length) / (2 + path.length);
      if (actions) return { kind: 'equivalent', class: 'extra_hop', description: `extra hop ${hop} at ${j}`, actions, reward };
    }
  }
  return null;
}

function failedRetry(pack: Pack, oracle: readonly RouteAction[]): Variant | null {
  const index = oracle.findIndex((a) => isCall(a) && pack.catalog.get(a.name)?.definition?.effect === 'read' && Object.keys(a.parameters ?? {}).length > 0);
  const read = oracle[index];
  if (!read || !isCall(read)) return null;
  const [field] = Object.keys(read.parameters ?? {});
  if (!field) return null;
  const failed: RouteAction = { ...read, overrides: { [field]: undefined } };
  return { kind: 'equivalent', class: 'failed_retry', description: `${read.name} without ${field}, then retried`, actions: [...oracle.slice(0, index), failed, ...oracle.slice(index)], reward: 1 };
}

/**
 * Free text said in other capitals: an argument graded by a case-folding normaliser whose value
 * is a literal with letters, sent upper-cased. A correct agent that writes a name as heard must
 * still pass, so the state the tool writes must be graded the same way (issue 18, defect 9).
 */
function textCase(pack: Pack, task: Task, oracle: readonly RouteAction[]): Variant | null {
  const policy = effectivePolicy(pack.compare, task.compare);
  const shapes = toolShapes(pack);
  for (const [i, action] of oracle.entries()) {
    if (!isCall(action)) continue;
    const shape = shapes.get(action.name);
    if (!shape) continue;
    for (const [field, matcher] of Object.entries(action.parameters ?? {})) {
      if (typeof matcher !== 'string' || !/[a-z]/.test(matcher)) continue;
      const normaliser = argumentNormaliser(policy, shape, field);
      if (normaliser !== 'text' && normaliser !== 'set_text') continue;
      const actions = oracle.map((a, j) => (j === i ? { ...action, overrides: { [field]: matcher.toUpperCase() } } : a));
      return { kind: 'equivalent', class: 'text_case', description: `${action.name}.${field} in capitals`, actions, reward: 1 };
    }
  }
  return null;
}

/** The equivalent variants of scoring.md §11.9 that apply to a task (an inapplicable class is skipped). */
export function equivalentsOf(pack: Pack, task: Task, oracle: readonly RouteAction[]): Variant[] {
  const noise: Variant = { kind: 'equivalent', class: 'snapshot_noise', description: 'shuffled rows, seconds, new created_at, prose in ignored columns', actions: oracle, reward: 1, noise: true };
  return [extraRead(pack, task, oracle), extraHop(pack, task), failedRetry(pack, oracle), textCase(pack, task, oracle), noise].filter((v): v is Variant => v !== null);
}

/** Snapshot noise: rows reversed, seconds on minute datetimes, new timestamps and prose in ignored columns. */
export function addSnapshotNoise(final: FinalState, policy: ComparePolicy): FinalState {
  const out: FinalState = {};
  for (const [table, rows] of Object.entries(final)) {
    const ignored = ignoredColumns(policy, table);
    const normalise = policy.tables[table]?.normalise ?? {};
    out[table] = [...rows].reverse().map((row) =>
      Object.fromEntries(
        Object.entries(row).map(([col, value]) => {
          if (normalise[col] === 'datetime_minute' && typeof value === 'string' && /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}$/.test(value)) return [col, `${value}:00`];
          if (ignored.has(col)) return [col, /_at$/.test(col) ? '2031-01-01T00:00:00' : 'Noise: prose the agent wrote.'];
          return [col, value];
        }),
      ),
    );
  }
  return out;
}
