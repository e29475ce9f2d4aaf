import { z } from 'zod';
import type { Blueprint } from '../packs/index.ts';
import { expectedNodes } from './path-graph.ts';

/** The page of one task: pack and task id, with anything outside `[A-Za-z0-9_-]` replaced. */
export function taskSlug(pack: string, taskId: string): string {
  return `${pack}.${taskId}`.replace(/[^A-Za-z0-9_.-]/g, '_');
}

/**
 * What the task page shows about a task from its pack: what it measures, the locked caller
 * script and the expected route. Read leniently (only the fields shown), so a task file with
 * fields this page does not know still renders.
 */
const taskFileSchema = z
  .object({
    task_id: z.string(),
    task_name: z.string(),
    intent: z.string(),
    customer_name: z.string().optional(),
    traits: z.array(z.object({ trait_name: z.string(), value: z.union([z.string(), z.number(), z.boolean()]) }).loose()).default([]),
    exp_handoff_path: z.array(z.string()).default([]),
    exp_tool_calls: z.array(z.object({ name: z.string(), parameters: z.record(z.string(), z.unknown()).optional() }).loose()).default([]),
    scripted_responses: z.array(z.object({ match_phrase: z.string(), response_value: z.string(), occurrence_mode: z.string().optional(), occurrence_n: z.number().optional() }).loose()).default([]),
    forbidden_tools: z.array(z.string()).default([]),
    exp_db_state: z.record(z.string(), z.unknown()).default({}),
    behaviors: z.object({ creativity: z.number() }).loose().optional(),
    metadata: z.object({ category: z.string().optional(), category_slug: z.string().optional(), difficulty: z.string().optional(), audio_condition: z.string().optional() }).loose().optional(),
    variant_of: z.string().optional(),
  })
  .loose();

/** One task as the task page shows it. */
export interface TaskInfo {
  readonly slug: string;
  readonly pack: string;
  readonly taskId: string;
  /** The task name without its `<id>: ` prefix. */
  readonly title: string;
  /** One sentence: the route, the graded calls and the tables the task checks. */
  readonly measures: string;
  readonly intent: string;
  readonly opening: string | null;
  readonly closing: string | null;
  readonly customerName: string | null;
  readonly traits: readonly { readonly name: string; readonly value: string }[];
  readonly pins: readonly { readonly when: string; readonly say: string; readonly occurrence: string }[];
  readonly creativity: number | null;
  readonly hops: readonly string[];
  /** The expected agents in order (entry first), when the blueprint was read. */
  readonly route: readonly string[] | null;
  readonly calls: readonly { readonly name: string; readonly parameters: Readonly<Record<string, unknown>> }[];
  readonly forbidden: readonly string[];
  readonly tables: readonly string[];
  readonly variantOf: string | null;
}

function quoted(intent: string, verb: 'Open' | 'Close'): string | null {
  return new RegExp(`${verb} with exactly:\\s*"([^"]+)"`).exec(intent)?.[1] ?? null;
}

function list(items: readonly string[]): string {
  return items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`;
}

/** The sentence "what this task measures", built from the task's own expectations (arguments are in the table beside it). */
export function measuresSentence(t: Pick<TaskInfo, 'hops' | 'route' | 'calls' | 'forbidden' | 'tables'>): string {
  const parts: string[] = [];
  if (t.hops.length) parts.push(t.route ? `routes ${t.route.join(' → ')} (${t.hops.join(', ')})` : `hands off by ${t.hops.join(', ')}`);
  else parts.push('stays with the entry agent (no handoff)');
  parts.push(t.calls.length ? `calls ${list([...new Set(t.calls.map((c) => c.name))])} with the caller's facts` : 'makes no graded tool call');
  if (t.tables.length) parts.push(t.tables.length <= 3 ? `leaves ${list(t.tables)} exactly as expected` : `leaves the ${t.tables.length} checked tables exactly as expected`);
  const tail = t.forbidden.length ? `, never calling ${list(t.forbidden)}` : '';
  return `Whether the agent ${list(parts)}${tail}.`;
}

/** Parses one task file of a pack; null when it is not a task. */
export function parseTaskInfo(pack: string, bytes: Buffer | Uint8Array | string, blueprint: Blueprint | null): TaskInfo | null {
  let raw: unknown;
  try {
    raw = JSON.parse(typeof bytes === 'string' ? bytes : Buffer.from(bytes).toString('utf8'));
  } catch {
    return null;
  }
  const parsed = taskFileSchema.safeParse(raw);
  if (!parsed.success) return null;
  const t = parsed.data;
  const entry = blueprint?.agents[0]?.name ?? null;
  const base = {
    hops: t.exp_handoff_path,
    route: blueprint && entry ? expectedNodes(blueprint, entry, t.exp_handoff_path) : null,
    calls: t.exp_tool_calls.map((c) => ({ name: c.name, parameters: c.parameters ?? {} })),
    forbidden: t.forbidden_tools,
    tables: Object.keys(t.exp_db_state).sort(),
  };
  return {
    ...base,
    slug: taskSlug(pack, t.task_id),
    pack,
    taskId: t.task_id,
    title: t.task_name.startsWith(`${t.task_id}: `) ? t.task_name.slice(t.task_id.length + 2) : t.task_name,
    measures: measuresSentence(base),
    intent: t.intent,
    opening: quoted(t.intent, 'Open'),
    closing: quoted(t.intent, 'Close'),
    customerName: t.customer_name ?? null,
    traits: t.traits.map((x) => ({ name: x.trait_name, value: String(x.value) })),
    pins: t.scripted_responses.map((p) => ({ when: p.match_phrase, say: p.response_value, occurrence: p.occurrence_mode === 'first_n' ? `first ${p.occurrence_n ?? 1}` : 'always' })),
    creativity: t.behaviors?.creativity ?? null,
    variantOf: t.variant_of ?? null,
  };
}

/** File access for `readPackFacts` (injected: rendering code never touches the disk itself). */
export interface PackFiles {
  /** The bytes of `<pack>/<relative path>` under the packs folder, or null. */
  read(pack: string, path: string): Buffer | Uint8Array | null;
  /** File names in `<pack>/tasks`, or none. */
  taskFiles(pack: string): readonly string[];
}

/** Each pack's blueprint and every task's facts (what it measures, caller script), for the pages. */
export function readPackFacts(packIds: Iterable<string>, files: PackFiles, parseBlueprint: (bytes: Buffer | Uint8Array | null) => Blueprint | null): { blueprints: Map<string, Blueprint | null>; taskInfo: Map<string, TaskInfo> } {
  const blueprints = new Map<string, Blueprint | null>();
  const taskInfo = new Map<string, TaskInfo>();
  for (const pack of [...new Set(packIds)].sort()) {
    if (!/^[a-z][a-z0-9-]*$/.test(pack)) continue;
    const bp = parseBlueprint(files.read(pack, 'blueprint.json'));
    blueprints.set(pack, bp);
    for (const name of files.taskFiles(pack).filter((f) => /^[A-Za-z0-9_.-]+\.json$/.test(f))) {
      const bytes = files.read(pack, `tasks/${name}`);
      const info = bytes ? parseTaskInfo(pack, bytes, bp) : null;
      if (info) taskInfo.set(info.slug, info);
    }
  }
  return { blueprints, taskInfo };
}
