import type { z } from 'zod';
import { ENVELOPE_ERROR_CODES } from '../core/index.ts';
import { agentOwnsTool, END_CALL, taskSchema, type ExpectedCall, type Pack, type Task } from '../packs/index.ts';
import { isProseField } from './matchers.ts';
import { shortestRoutes } from './route-search.ts';
import { toolShapes } from './verdict.ts';

/** Columns of every table in the pack's template database. */
export type SchemaColumns = ReadonlyMap<string, ReadonlySet<string>>;

/** Output-schema property names of a tool's success data, when it declares them. */
function outputFields(pack: Pack, name: string): Set<string> | null {
  const envelope = pack.catalog.get(name)?.outputSchema as { properties?: { data?: { properties?: Record<string, unknown> } } } | undefined;
  const props = envelope?.properties?.data?.properties;
  return props ? new Set(Object.keys(props)) : null;
}

/** Fields later calls may leave out because replay carries them forward (tokens, hold ids). */
export function carryForwardFields(pack: Pack): Set<string> {
  return new Set(['token', ...[...pack.catalog.values()].flatMap((t) => t.definition?.carryForward ?? [])]);
}

function matcherValues(matcher: NonNullable<ExpectedCall['parameters']>[string]): unknown[] {
  if (typeof matcher !== 'object') return [matcher];
  return '$any_of' in matcher ? matcher.$any_of : [];
}

function checkCall(pack: Pack, call: ExpectedCall, index: number): string[] {
  const where = `exp_tool_calls[${index}] ${call.name}`;
  const tool = pack.catalog.get(call.name);
  if (!tool) return [`${where}: unknown tool`];
  if (tool.kind === 'handoff' || call.name === END_CALL) return [`${where}: handoffs and end_call never appear in exp_tool_calls`];
  const problems: string[] = [];
  const shape = tool.input.shape as Record<string, z.ZodType>;
  const required = Array.isArray(tool.inputSchema.required) ? tool.inputSchema.required.filter((r): r is string => typeof r === 'string') : [];
  const carry = carryForwardFields(pack);
  for (const field of required) if (!(field in (call.parameters ?? {})) && !carry.has(field)) problems.push(`${where}: required input ${field} is not given`);
  const toolShape = toolShapes(pack).get(call.name);
  for (const [field, matcher] of Object.entries(call.parameters ?? {})) {
    const schema = shape[field];
    if (!schema) {
      problems.push(`${where}: ${field} is not an input of the tool`);
      continue;
    }
    if (typeof matcher === 'object' && '$present' in matcher && toolShape && !isProseField(toolShape, field)) problems.push(`${where}: $present on ${field}, which is not a prose field`);
    for (const value of matcherValues(matcher)) if (!schema.safeParse(value).success) problems.push(`${where}: ${field}=${JSON.stringify(value)} does not validate against the input schema`);
  }
  problems.push(...checkOutput(pack, call, where));
  return problems;
}

function checkOutput(pack: Pack, call: ExpectedCall, where: string): string[] {
  const out = call.output;
  if (!out) return [];
  const problems: string[] = [];
  if (out.error_code && !(out.error_code in pack.module.errorCodes) && !(out.error_code in ENVELOPE_ERROR_CODES)) problems.push(`${where}: error_code ${out.error_code} is not catalogued`);
  const fields = outputFields(pack, call.name);
  if (out.ok && out.data && fields) for (const key of Object.keys(out.data)) if (!fields.has(key)) problems.push(`${where}: output field ${key} is not returned by the tool`);
  return problems;
}

function checkCompareOverride(task: Task, columns: SchemaColumns): string[] {
  const problems: string[] = [];
  for (const [table, policy] of Object.entries(task.compare?.tables ?? {})) {
    const known = columns.get(table);
    if (!known) {
      problems.push(`compare.tables.${table}: no such table`);
      continue;
    }
    const named = [...(policy.key ?? []), ...(policy.ignore ?? []), ...Object.keys(policy.normalise ?? {})];
    for (const column of named) if (!known.has(column)) problems.push(`compare.tables.${table}: no column ${column}`);
  }
  return problems;
}

function routeAgents(pack: Pack, path: readonly string[]): string[] {
  return [pack.entryAgent, ...path.flatMap((hop) => pack.catalog.get(hop)?.handoffTo ?? [])];
}

function checkEdges(pack: Pack, path: readonly string[]): string[] {
  const problems: string[] = [];
  let agent = pack.entryAgent;
  for (const [i, hop] of path.entries()) {
    const target = pack.catalog.get(hop)?.handoffTo;
    if (!target) problems.push(`exp_handoff_path[${i}]: ${hop} is not a handoff tool`);
    else if (!agentOwnsTool(pack, agent, hop)) problems.push(`exp_handoff_path[${i}]: edge ${agent} → ${target} is not declared`);
    agent = target ?? agent;
  }
  return problems;
}

/** The static checks of scoring.md §11 items 1–4: schema extras, tools, ownership and edges, shortest route. */
export function staticTaskProblems(pack: Pack, task: Task, columns: SchemaColumns): string[] {
  const problems = [...checkCompareOverride(task, columns)];
  for (const name of task.forbidden_tools) {
    if (!pack.catalog.has(name)) problems.push(`forbidden_tools: ${name} is not a tool`);
    if (task.exp_tool_calls.some((c) => c.name === name)) problems.push(`forbidden_tools: ${name} is also expected`);
  }
  task.exp_tool_calls.forEach((call, i) => problems.push(...checkCall(pack, call, i)));
  const edgeProblems = checkEdges(pack, task.exp_handoff_path);
  problems.push(...edgeProblems);
  const agents = routeAgents(pack, task.exp_handoff_path);
  task.exp_tool_calls.forEach((call, i) => {
    if (pack.catalog.has(call.name) && !agents.some((a) => agentOwnsTool(pack, a, call.name))) problems.push(`exp_tool_calls[${i}] ${call.name}: owned by no agent on the route (${agents.join(', ')})`);
  });
  if (problems.length) return problems;
  const route = shortestRoutes(pack, task.exp_tool_calls);
  if (!route) return ['route: no route reaches the owners of the expected calls'];
  if (route.count > 1) return [`route: ${route.count} shortest routes of ${route.hops} hop(s); the task is ambiguous`];
  const shortest = route.path ?? [];
  if (shortest.join(',') !== task.exp_handoff_path.join(',')) return [`route: exp_handoff_path [${task.exp_handoff_path.join(', ')}] is not the shortest route [${shortest.join(', ')}]`];
  return [];
}

/** Schema problems of a raw task file (scoring.md §11.1), named by field. */
export function taskSchemaProblems(raw: unknown): string[] {
  const parsed = taskSchema.safeParse(raw);
  return parsed.success ? [] : parsed.error.issues.map((i) => `schema: ${i.path.length ? i.path.join('.') : '(root)'}: ${i.message}`);
}
