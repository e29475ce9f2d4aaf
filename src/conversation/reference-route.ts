import type { ExpectedCall, Matcher, Pack, Task } from '../packs/index.ts';
import { agentOwnsTool } from '../packs/index.ts';
import type { ToolExecution } from '../tools/index.ts';

/** The fixed text replay puts into a `$present` prose argument. */
export const PRESENT_PLACEHOLDER = 'Details as the caller gave them.';

/** Output fields that always carry forward to later calls. */
const DEFAULT_CARRY_FIELDS = ['token'];

/** One action of a replayed conversation: a hop the runtime applies or refuses, or a tool call. */
export type RouteAction =
  | { readonly kind: 'hop'; readonly to: string }
  | {
      readonly kind: 'call';
      readonly name: string;
      readonly parameters?: Readonly<Record<string, Matcher>>;
      /** Values that replace resolved arguments (perturbations, blanks); undefined deletes the key. */
      readonly overrides?: Readonly<Record<string, unknown>>;
    };

/** One step of a task's reference route: a hop, or an expected call made by an agent. */
export type RouteStep =
  | { readonly kind: 'hop'; readonly tool: string; readonly from: string; readonly to: string }
  | { readonly kind: 'call'; readonly index: number; readonly call: ExpectedCall; readonly agent: string };

/** The value replay sends for a matcher: a literal, the first `$any_of`, or the prose placeholder. */
export function replayValue(matcher: Matcher): string | number | boolean {
  if (typeof matcher !== 'object') return matcher;
  if ('$any_of' in matcher) return matcher.$any_of[0] as string | number | boolean;
  return PRESENT_PLACEHOLDER;
}

/**
 * Interleaves a task's hops and expected calls: before each call, take hops along the expected
 * path until the active agent owns the tool; trailing hops follow the last call. Problems (a call
 * no agent on the path owns, a hop that is not an edge from the active agent) are returned.
 */
export function planRoute(pack: Pack, task: Pick<Task, 'exp_handoff_path' | 'exp_tool_calls'>): { steps: RouteStep[]; problems: string[] } {
  const steps: RouteStep[] = [];
  const problems: string[] = [];
  let agent = pack.entryAgent;
  let hop = 0;
  const takeHop = (): boolean => {
    const tool = task.exp_handoff_path[hop++];
    if (!tool) return false;
    const target = pack.catalog.get(tool)?.handoffTo;
    if (!target || !agentOwnsTool(pack, agent, tool)) problems.push(`hop ${tool} is not a declared edge from ${agent}`);
    steps.push({ kind: 'hop', tool, from: agent, to: target ?? agent });
    agent = target ?? agent;
    return true;
  };
  task.exp_tool_calls.forEach((call, index) => {
    while (!agentOwnsTool(pack, agent, call.name) && takeHop()) {
      /* hop until the owner is reached */
    }
    if (!agentOwnsTool(pack, agent, call.name)) problems.push(`expected call #${index + 1} ${call.name} is owned by no agent on the path`);
    steps.push({ kind: 'call', index, call, agent });
  });
  while (takeHop()) {
    /* trailing hops */
  }
  return { steps, problems };
}

/** Carry-forward values collected from earlier outputs (tokens, hold ids). */
export class CarryForward {
  private readonly values = new Map<string, unknown>();

  /** Records the carry-forward fields of a successful output. */
  record(pack: Pack, execution: Pick<ToolExecution, 'name' | 'output'>): void {
    if (!execution.output.ok || typeof execution.output.data !== 'object' || execution.output.data === null) return;
    const fields = [...DEFAULT_CARRY_FIELDS, ...(pack.catalog.get(execution.name)?.definition?.carryForward ?? [])];
    const data = execution.output.data as Record<string, unknown>;
    for (const field of fields) if (field in data) this.values.set(field, data[field]);
  }

  /** Arguments for an expected call: its matchers resolved, plus carried fields the input needs. */
  argumentsFor(pack: Pack, call: ExpectedCall): Record<string, unknown> {
    const args: Record<string, unknown> = {};
    for (const [key, matcher] of Object.entries(call.parameters ?? {})) args[key] = replayValue(matcher);
    const shape = pack.catalog.get(call.name)?.input.shape ?? {};
    for (const key of Object.keys(shape)) {
      if (!(key in args) && this.values.has(key)) args[key] = this.values.get(key);
    }
    return args;
  }
}

/** The reference route as replay actions (hops by target, calls with their matchers). */
export function routeActions(steps: readonly RouteStep[]): RouteAction[] {
  return steps.map((s): RouteAction => (s.kind === 'hop' ? { kind: 'hop', to: s.to } : { kind: 'call', name: s.call.name, ...(s.call.parameters ? { parameters: s.call.parameters } : {}) }));
}

/** The handoff tool from `agent` to `to`: the declared edge, or the conventional name (which the runtime refuses). */
export function handoffToolTo(pack: Pack, agent: string, to: string): string {
  const declared = pack.blueprint.agents.find((a) => a.name === agent)?.tools.find((t) => t.handoff && pack.catalog.get(t.name)?.handoffTo === to);
  return declared?.name ?? `transfer_to_${to}`;
}

/** A handoff into a gate names the desk the route goes to next (the generated next_desk enum); else no arguments. */
export function handoffArguments(pack: Pack, tool: string, nextHopTarget: string | undefined): Record<string, unknown> {
  const entry = pack.catalog.get(tool);
  if (!entry || !('next_desk' in (entry.input.shape ?? {}))) return {};
  const options = (entry.inputSchema.properties as { next_desk?: { enum?: string[] } } | undefined)?.next_desk?.enum ?? [];
  return { next_desk: nextHopTarget && options.includes(nextHopTarget) ? nextHopTarget : options[0] };
}
