import type { Blueprint } from './schema.ts';

/** Handoff edges of the blueprint as adjacency lists. */
export function handoffEdges(blueprint: Blueprint): Map<string, string[]> {
  const edges = new Map<string, string[]>();
  for (const agent of blueprint.agents) {
    edges.set(
      agent.name,
      agent.tools.filter((t) => t.handoff && t.handoff_to).map((t) => t.handoff_to as string),
    );
  }
  return edges;
}

function reachable(edges: ReadonlyMap<string, readonly string[]>, start: string, skip?: string): Set<string> {
  const seen = new Set<string>([start]);
  const queue = [start];
  while (queue.length) {
    const node = queue.shift() as string;
    for (const next of edges.get(node) ?? []) {
      if (next === skip || seen.has(next)) continue;
      seen.add(next);
      queue.push(next);
    }
  }
  return seen;
}

function hasCycle(edges: ReadonlyMap<string, readonly string[]>): boolean {
  const state = new Map<string, 'active' | 'done'>();
  const visit = (node: string): boolean => {
    if (state.get(node) === 'active') return true;
    if (state.get(node) === 'done') return false;
    state.set(node, 'active');
    const cyclic = (edges.get(node) ?? []).some(visit);
    state.set(node, 'done');
    return cyclic;
  };
  return [...edges.keys()].some(visit);
}

/** Graph contract checks (packs.md §6 items 2, 7): names, reachability, acyclicity, sinks, gates. */
export function checkGraph(blueprint: Blueprint, rules: { sinks: readonly string[]; gates: Readonly<Record<string, readonly string[]>> }): string[] {
  const problems: string[] = [];
  const names = blueprint.agents.map((a) => a.name);
  const duplicates = names.filter((n, i) => names.indexOf(n) !== i);
  if (duplicates.length) problems.push(`blueprint.json: agents: duplicate names ${[...new Set(duplicates)].join(', ')}`);
  const edges = handoffEdges(blueprint);
  const entry = names[0] ?? '';
  const seen = reachable(edges, entry);
  for (const name of names) if (!seen.has(name)) problems.push(`blueprint.json: agents[${name}]: not reachable from the entry agent ${entry}`);
  if (hasCycle(edges)) problems.push('blueprint.json: the handoff graph has a cycle');
  for (const sink of rules.sinks) {
    if (!edges.has(sink)) problems.push(`tools.ts: graphRules.sinks: ${sink} is not an agent`);
    else if ((edges.get(sink) ?? []).length) problems.push(`tools.ts: graphRules.sinks: ${sink} has outgoing handoffs`);
  }
  for (const [gate, protectedAgents] of Object.entries(rules.gates)) {
    if (!edges.has(gate)) problems.push(`tools.ts: graphRules.gates: ${gate} is not an agent`);
    const withoutGate = reachable(edges, entry, gate);
    for (const agent of protectedAgents) {
      if (withoutGate.has(agent)) problems.push(`tools.ts: graphRules.gates.${gate}: ${agent} is reachable without passing ${gate}`);
    }
  }
  return problems;
}
