import { z } from 'zod';
import type { Blueprint, BlueprintAgent } from './schema.ts';
import { HUMAN_TRANSFER, humanTransferDefinition } from './human-transfer.ts';
import type { ToolDefinition } from './tool-kit.ts';

/** How the runtime treats a tool; taken from the blueprint flags alone (architecture.md §6). */
export type ToolKind = 'industry' | 'handoff' | 'session';

/** A JSON Schema object as generated from zod. */
export type JsonSchema = Readonly<Record<string, unknown>>;

/** One tool as the runtime and the model see it. */
export interface CatalogTool {
  readonly name: string;
  readonly description: string;
  readonly kind: ToolKind;
  readonly input: z.ZodObject;
  readonly inputSchema: JsonSchema;
  readonly outputSchema: JsonSchema;
  /** Present for tools the executor runs (industry tools and the human-transfer tool). */
  readonly definition?: ToolDefinition;
  /** Target agent of a handoff tool. */
  readonly handoffTo?: string;
}

/** The pure session tool on every agent. */
export const END_CALL = 'end_call';
/** Tool names the runtime declares; a pack's tools.ts may not define them. */
export const RUNTIME_TOOL_NAMES: readonly string[] = [END_CALL, HUMAN_TRANSFER];
/** end_call's closed reason list (packs.md §1.4). */
export const END_CALL_REASONS = ['caller_done', 'wrong_number', 'spam'] as const;

const SAFE_INTEGER_BOUND = Number.MAX_SAFE_INTEGER;

function stripNoise(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(stripNoise);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    if (k === '$schema') continue;
    if ((k === 'minimum' && v === -SAFE_INTEGER_BOUND) || (k === 'maximum' && v === SAFE_INTEGER_BOUND)) continue;
    out[k] = stripNoise(v);
  }
  return out;
}

/** JSON Schema of a zod schema, without the draft marker and safe-integer noise. */
export function jsonSchemaOf(schema: z.ZodType): JsonSchema {
  const generated = stripNoise(z.toJSONSchema(schema, { unrepresentable: 'any' }));
  return generated as JsonSchema;
}

/** The response envelope around a tool's data schema (packs.md §1.4). */
export function envelopeSchema(data: JsonSchema): JsonSchema {
  return {
    type: 'object',
    properties: {
      ok: { type: 'boolean' },
      data,
      error_code: { type: 'string', pattern: '^[A-Z][A-Z0-9_]*$' },
      safe_message: { type: 'string' },
    },
    required: ['ok'],
    additionalProperties: false,
  };
}

/** Agents a gate agent hands on to, when the agent is a gate leading to more than one desk. */
function onwardDesks(blueprint: Blueprint, gates: Readonly<Record<string, readonly string[]>>, target: string): string[] {
  if (!(target in gates)) return [];
  const agent = blueprint.agents.find((a) => a.name === target);
  const desks = (agent?.tools ?? []).filter((t) => t.handoff && t.handoff_to).map((t) => t.handoff_to as string);
  return desks.length > 1 ? desks : [];
}

function handoffTool(blueprint: Blueprint, gates: Readonly<Record<string, readonly string[]>>, target: BlueprintAgent): CatalogTool {
  const desks = onwardDesks(blueprint, gates, target.name);
  const input =
    desks.length > 0
      ? z.object({ next_desk: z.enum(desks as [string, ...string[]]).describe('The desk the caller needs after this one.') })
      : z.object({});
  const output = z.object({ assistant: z.literal(target.name) });
  return {
    name: `transfer_to_${target.name}`,
    description: target.description,
    kind: 'handoff',
    input,
    inputSchema: jsonSchemaOf(input),
    outputSchema: jsonSchemaOf(output),
    handoffTo: target.name,
  };
}

function endCallTool(): CatalogTool {
  const input = z.object({ reason: z.enum(END_CALL_REASONS).describe('Why the call ends.') });
  return {
    name: END_CALL,
    description:
      'Use when: the caller has nothing else and the farewell has been said, or the call is a wrong number or spam. Returns: nothing; the call ends after your last words. Do not use for: transfers to a person.',
    kind: 'session',
    input,
    inputSchema: jsonSchemaOf(input),
    outputSchema: envelopeSchema({}),
  };
}

function definedTool(def: ToolDefinition, kind: ToolKind): CatalogTool {
  return {
    name: def.name,
    description: def.description,
    kind,
    input: def.input,
    inputSchema: jsonSchemaOf(def.input),
    outputSchema: envelopeSchema(jsonSchemaOf(def.output)),
    definition: def,
  };
}

/**
 * Builds the catalogue of every tool any agent references: generated handoffs, the runtime's
 * session tools (end_call, and transfer_to_human from the blueprint's human_transfer vocabulary)
 * and the pack's defined tools. Unknown references are reported as problems, not thrown.
 */
export function buildCatalog(
  blueprint: Blueprint,
  defined: readonly ToolDefinition[],
  gates: Readonly<Record<string, readonly string[]>>,
): { tools: Map<string, CatalogTool>; problems: string[] } {
  const byName = new Map(defined.map((d) => [d.name, d]));
  const agents = new Map(blueprint.agents.map((a) => [a.name, a]));
  const tools = new Map<string, CatalogTool>();
  const problems: string[] = [];
  for (const name of RUNTIME_TOOL_NAMES) {
    if (byName.has(name)) problems.push(`tools.ts: ${name} is declared by the runtime; a pack only lists it on its agents in blueprint.json`);
  }
  const humanTransfer = blueprint.human_transfer ? definedTool(humanTransferDefinition(blueprint.human_transfer), 'session') : undefined;
  for (const agent of blueprint.agents) {
    for (const [i, ref] of agent.tools.entries()) {
      const where = `blueprint.json: agents[${agent.name}].tools[${i}] (${ref.name})`;
      if (ref.handoff) {
        const target = ref.handoff_to ? agents.get(ref.handoff_to) : undefined;
        if (!target) problems.push(`${where}: handoff_to names no agent`);
        else if (ref.name !== `transfer_to_${target.name}`) problems.push(`${where}: a handoff must be named transfer_to_${target.name}`);
        else if (target.name === agent.name) problems.push(`${where}: an agent cannot hand off to itself`);
        else tools.set(ref.name, handoffTool(blueprint, gates, target));
      } else if (ref.name === END_CALL) {
        if (!ref.session) problems.push(`${where}: end_call must be marked session: true`);
        tools.set(END_CALL, endCallTool());
      } else if (ref.name === HUMAN_TRANSFER) {
        if (!ref.session) problems.push(`${where}: ${HUMAN_TRANSFER} must be marked session: true`);
        if (!humanTransfer) problems.push(`${where}: the blueprint has no human_transfer block with the reasons this pack allows`);
        else tools.set(HUMAN_TRANSFER, humanTransfer);
      } else if (ref.session) {
        problems.push(`${where}: only the runtime's ${END_CALL} and ${HUMAN_TRANSFER} are session tools`);
      } else {
        const def = byName.get(ref.name);
        if (!def) problems.push(`${where}: no tool of that name in tools.ts`);
        else tools.set(ref.name, definedTool(def, 'industry'));
      }
    }
  }
  if (humanTransfer && !tools.has(HUMAN_TRANSFER)) problems.push(`blueprint.json: human_transfer: no agent lists ${HUMAN_TRANSFER}`);
  return { tools, problems };
}

/** tools.json's content: every referenced tool, sorted by name. */
export function toolsJson(tools: ReadonlyMap<string, CatalogTool>): { tools: { name: string; description: string; inputSchema: JsonSchema; outputSchema: JsonSchema }[] } {
  const sorted = [...tools.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return { tools: sorted.map((t) => ({ name: t.name, description: t.description, inputSchema: t.inputSchema, outputSchema: t.outputSchema })) };
}
