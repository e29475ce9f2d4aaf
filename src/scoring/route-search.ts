import type { ExpectedCall, Pack } from '../packs/index.ts';
import { agentOwnsTool, handoffEdges } from '../packs/index.ts';
import type { RouteAction } from '../conversation/index.ts';

/** The shortest routes found by BFS over (agent, i): the count and, when unique, the hops. */
export interface ShortestRoute {
  readonly hops: number;
  readonly count: number;
  readonly path: readonly string[] | null;
}

function cover(pack: Pack, agent: string, calls: readonly ExpectedCall[], from: number): number {
  let i = from;
  while (i < calls.length && agentOwnsTool(pack, agent, (calls[i] as ExpectedCall).name)) i++;
  return i;
}

/**
 * BFS over states (agent, i) from the entry agent with i = 0, where i counts required calls
 * covered in order (scoring.md §11.4): an owner covers the next call without a hop, each blueprint
 * edge costs one hop. Counts the distinct shortest hop sequences; null when no route exists.
 */
export function shortestRoutes(pack: Pack, calls: readonly ExpectedCall[]): ShortestRoute | null {
  const edges = handoffEdges(pack.blueprint);
  const start = { agent: pack.entryAgent, i: cover(pack, pack.entryAgent, calls, 0) };
  const key = (s: { agent: string; i: number }): string => `${s.agent}#${s.i}`;
  let layer = new Map([[key(start), { state: start, count: 1, path: [] as string[] }]]);
  const seen = new Set([key(start)]);
  for (let depth = 0; layer.size; depth++) {
    const done = [...layer.values()].filter((n) => n.state.i === calls.length);
    if (done.length) {
      const count = done.reduce((s, n) => s + n.count, 0);
      return { hops: depth, count, path: count === 1 ? (done[0]?.path ?? null) : null };
    }
    const next = new Map<string, { state: { agent: string; i: number }; count: number; path: string[] }>();
    for (const node of [...layer.values()].sort((a, b) => (key(a.state) < key(b.state) ? -1 : 1))) {
      for (const target of edges.get(node.state.agent) ?? []) {
        const state = { agent: target, i: cover(pack, target, calls, node.state.i) };
        if (seen.has(key(state)) && !next.has(key(state))) continue;
        const existing = next.get(key(state));
        if (existing) existing.count += node.count;
        else next.set(key(state), { state, count: node.count, path: [...node.path, `transfer_to_${target}`] });
      }
    }
    for (const k of next.keys()) seen.add(k);
    layer = next;
  }
  return null;
}

/**
 * Interleaves hops and calls greedily (cover every call the active agent owns, then take the
 * next hop); null when a hop is not a declared edge or a call is never reachable by its owner.
 */
export function interleave(pack: Pack, path: readonly string[], calls: readonly ExpectedCall[]): RouteAction[] | null {
  const actions: RouteAction[] = [];
  let agent = pack.entryAgent;
  let i = 0;
  const coverHere = (): void => {
    const until = cover(pack, agent, calls, i);
    for (; i < until; i++) actions.push(callAction(calls[i] as ExpectedCall));
  };
  coverHere();
  for (const hop of path) {
    const target = pack.catalog.get(hop)?.handoffTo;
    if (!target || !agentOwnsTool(pack, agent, hop)) return null;
    actions.push({ kind: 'hop', to: target });
    agent = target;
    coverHere();
  }
  return i === calls.length ? actions : null;
}

/** The replay action of an expected call. */
export function callAction(call: ExpectedCall): RouteAction {
  return call.parameters ? { kind: 'call', name: call.name, parameters: call.parameters } : { kind: 'call', name: call.name };
}
