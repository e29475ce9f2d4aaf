import { z } from 'zod';
import { openingLineOf } from '../caller/index.ts';
import type { Pack, Task } from '../packs/index.ts';
import { passAtK, passHatK } from '../scoring/index.ts';
import { episodeInstructions, greetingOf, offeredTools, type HandoffMode } from './framing.ts';
import { REWARD_VERSION } from './reward.ts';
import type { EpisodeResult } from './text-episode.ts';

/**
 * The NeMo Gym resources-server contract (NVIDIA-NeMo/Gym `nemo_gym/base_resources_server.py`,
 * `responses_api_agents/simple_agent/app.py`, `nemo_gym/reward_profile.py`; PrimeIntellect
 * verifiers `v1/tasksets/nemo_gym/`): dataset rows, the seed body, the verify reply and
 * aggregate metrics, as pure shapes. The routes are in `src/server/rl-routes.ts`.
 */

/** NeMo Gym's task and rollout index fields (`nemo_gym/global_config.py`). */
export const TASK_INDEX_KEY = '_ng_task_index';
export const ROLLOUT_INDEX_KEY = '_ng_rollout_index';

/** A Responses-API function tool, as a dataset row lists it. */
export interface ResponsesFunctionTool {
  readonly type: 'function';
  readonly name: string;
  readonly description: string;
  readonly parameters: Readonly<Record<string, unknown>>;
  readonly strict: boolean;
}

/** One JSONL row: the request a policy starts from, plus the task and episode settings seed_session reads. */
export interface DatasetRow {
  readonly responses_create_params: {
    readonly input: readonly { readonly role: 'system' | 'assistant' | 'user'; readonly content: string }[];
    readonly tools: readonly ResponsesFunctionTool[];
    readonly parallel_tool_calls: boolean;
  };
  readonly pack: string;
  readonly task_id: string;
  readonly handoff_mode: HandoffMode;
  readonly caller: string;
  readonly max_turns: number;
  readonly reward_version: string;
  readonly [TASK_INDEX_KEY]: number;
}

/**
 * The dataset row of a task. A NeMo Gym rollout keeps one tool list, so rows use soft handoffs
 * (every desk's tools; ownership is still enforced and a handoff's result carries the new desk's
 * instructions). `input` is the entry agent's instructions, the greeting already said, and the
 * caller's opening line (the task's pinned line, which every caller kind opens with).
 */
export function datasetRow(pack: Pack, task: Task, index: number, options: { readonly caller?: string; readonly maxTurns?: number } = {}): DatasetRow {
  const mode: HandoffMode = 'soft';
  const tools = offeredTools(pack, pack.entryAgent, mode).map((t): ResponsesFunctionTool => ({ type: 'function', name: t.name, description: t.description, parameters: t.parameters, strict: false }));
  return {
    responses_create_params: {
      input: [
        { role: 'system', content: episodeInstructions(pack, pack.entryAgent, mode) },
        { role: 'assistant', content: greetingOf(pack) },
        { role: 'user', content: openingLineOf(task.intent) },
      ],
      tools,
      parallel_tool_calls: false,
    },
    pack: pack.id,
    task_id: task.task_id,
    handoff_mode: mode,
    caller: options.caller ?? 'scripted',
    max_turns: options.maxTurns ?? 60,
    reward_version: REWARD_VERSION,
    [TASK_INDEX_KEY]: index,
  };
}

/** Every task of a pack as rows, in task-id order (the index is the row's `_ng_task_index`). */
export function datasetRows(pack: Pack, options: { readonly caller?: string; readonly maxTurns?: number } = {}): DatasetRow[] {
  const tasks = [...pack.tasks.values()].sort((a, b) => (a.task_id < b.task_id ? -1 : a.task_id > b.task_id ? 1 : 0));
  return tasks.map((task, i) => datasetRow(pack, task, i, options));
}

/** What seed_session reads of the row it is sent (NeMo Gym posts the whole row; extra fields are kept). */
export const seedBodySchema = z
  .object({
    task_id: z.string().min(1).max(64).optional(),
    pack: z.string().optional(),
    handoff_mode: z.string().optional(),
    caller: z.string().optional(),
    seed: z.number().int().nonnegative().optional(),
    max_turns: z.number().int().optional(),
    [ROLLOUT_INDEX_KEY]: z.number().int().nonnegative().optional(),
    responses_create_params: z.object({ model: z.string().optional() }).loose().optional(),
  })
  .loose();
export type SeedBody = z.infer<typeof seedBodySchema>;

/** The policy's final assistant text in a Responses-API `response` (what it said instead of a tool call), or null. */
export function trailingAssistantText(response: unknown): string | null {
  const output = (response as { output?: unknown } | null)?.output;
  if (!Array.isArray(output)) return null;
  const last = output.at(-1) as { type?: unknown; role?: unknown; content?: unknown } | undefined;
  if (!last || last.type !== 'message' || last.role !== 'assistant' || !Array.isArray(last.content)) return null;
  const text = last.content.flatMap((c: { type?: unknown; text?: unknown }) => (c?.type === 'output_text' && typeof c.text === 'string' ? [c.text] : [])).join(' ');
  return text.trim() || null;
}

/** The reward fields verify adds to the body it echoes (NeMo Gym `BaseMultiRewardVerifyResponse` plus flat metrics). */
export function verifyFields(result: EpisodeResult): Record<string, unknown> {
  const c = result.reward_components;
  return {
    reward: result.reward,
    reward_components: { ...c },
    // Top-level numbers: NeMo Gym's metrics and verifiers' trace metrics read only flat numeric fields.
    state: c.state,
    tools: c.tools,
    handoff: c.handoff,
    route: c.route,
    pass: result.status === 'PASS',
    valid: result.valid,
    turns: result.turns,
    status: result.status,
    reasons: result.reasons,
    reward_version: result.reward_version,
    episode_id: result.episode_id,
    task_id: result.task_id,
    end_reason: result.end_reason,
    truncated: result.truncated,
    snapshot: result.snapshot,
  };
}

/** Aggregate metrics in NeMo Gym's shape (`nemo_gym/config_types.py` AggregateMetrics). */
export interface AggregateMetrics {
  readonly group_level_metrics: Record<string, unknown>[];
  readonly agent_metrics: Record<string, number>;
  readonly key_metrics: Record<string, number>;
}

type Row = Readonly<Record<string, unknown>>;

/** The metric fields profiled per rollout: the reward and its components. */
const PROFILED = ['reward', 'state', 'tools', 'handoff', 'route', 'pass'] as const;

function numberOf(value: unknown): number | null {
  if (typeof value === 'boolean') return value ? 1 : 0;
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

/** A rollout counts toward pass@k and pass^k only when it was scored (PASS or FAIL): voids are not the policy's. */
function scored(row: Row): boolean {
  if (typeof row.valid === 'boolean') return row.valid;
  return row.status === undefined ? numberOf(row.reward) !== null : row.status === 'PASS' || row.status === 'FAIL';
}

function passed(row: Row): boolean {
  if (typeof row.pass === 'boolean') return row.pass;
  if (row.status !== undefined) return row.status === 'PASS';
  return (numberOf(row.reward) ?? 0) >= 1;
}

function describe(values: readonly number[], name: string, out: Record<string, number>): void {
  if (!values.length) return;
  const sorted = [...values].sort((a, b) => a - b);
  const mean = values.reduce((s, v) => s + v, 0) / values.length;
  const mid = Math.floor(sorted.length / 2);
  const median = sorted.length % 2 ? (sorted[mid] ?? 0) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
  const variance = values.length > 1 ? values.reduce((s, v) => s + (v - mean) ** 2, 0) / (values.length - 1) : 0;
  out[`mean/${name}`] = mean;
  out[`max/${name}`] = sorted.at(-1) ?? 0;
  out[`min/${name}`] = sorted[0] ?? 0;
  out[`median/${name}`] = median;
  out[`std/${name}`] = Math.sqrt(variance);
}

function profile(rows: readonly Row[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const name of PROFILED) describe(rows.flatMap((r) => (numberOf(r[name]) === null ? [] : [numberOf(r[name]) as number])), name, out);
  return out;
}

/**
 * `/aggregate_metrics`: the verify responses grouped by task (`_ng_task_index`, else `task_id`),
 * NeMo Gym's baseline statistics (`mean/`, `max/`, `min/`, `median/`, `std/` of the reward and
 * each component; sample std, 0 for one value), and mivas's estimators over scored rollouts only
 * (scoring.md §8.1): `pass@1` (mean per-task pass rate), `pass^k` (all k trials pass) and `pass@k`
 * (at least one of k passes) for every k some task has n ≥ k, as fractions in [0, 1].
 */
export function aggregateMetrics(verifyResponses: readonly Row[]): AggregateMetrics {
  const groups = new Map<string, { key: Record<string, unknown>; rows: Row[] }>();
  for (const row of verifyResponses) {
    const index = numberOf(row[TASK_INDEX_KEY]);
    const key: Record<string, unknown> = index !== null ? { [TASK_INDEX_KEY]: index } : typeof row.task_id === 'string' ? { task_id: row.task_id } : { [TASK_INDEX_KEY]: 0 };
    const id = JSON.stringify(key);
    const group: { key: Record<string, unknown>; rows: Row[] } = groups.get(id) ?? { key, rows: [] };
    group.rows.push(row);
    groups.set(id, group);
  }
  const tasks = [...groups.values()].map((g) => {
    const scoredRows = g.rows.filter(scored);
    return { ...g, n: scoredRows.length, c: scoredRows.filter(passed).length };
  });
  const maxK = Math.max(0, ...tasks.map((t) => t.n));
  const estimators = (list: typeof tasks, k: number) => {
    const hats = list.flatMap((t) => (passHatK(t.n, t.c, k) === null ? [] : [passHatK(t.n, t.c, k) as number]));
    const ats = list.flatMap((t) => (passAtK(t.n, t.c, k) === null ? [] : [passAtK(t.n, t.c, k) as number]));
    return { hat: hats.length ? hats.reduce((s, v) => s + v, 0) / hats.length : null, at: ats.length ? ats.reduce((s, v) => s + v, 0) / ats.length : null };
  };
  const group_level_metrics = tasks.map((t) => {
    const metrics: Record<string, unknown> = { ...t.key, ...profile(t.rows), num_rollouts: t.rows.length, num_scored: t.n, num_passed: t.c };
    for (let k = 1; k <= t.n; k++) {
      metrics[`pass^${k}`] = passHatK(t.n, t.c, k);
      metrics[`pass@${k}`] = passAtK(t.n, t.c, k);
    }
    return metrics;
  });
  const agent_metrics: Record<string, number> = { ...profile(verifyResponses), num_rollouts: verifyResponses.length, num_scored: tasks.reduce((s, t) => s + t.n, 0), num_tasks: tasks.length };
  for (let k = 1; k <= maxK; k++) {
    const { hat, at } = estimators(tasks, k);
    if (hat !== null) agent_metrics[`pass^${k}`] = hat;
    if (at !== null) agent_metrics[`pass@${k}`] = at;
  }
  const key_metrics: Record<string, number> = {};
  for (const name of ['mean/reward', 'pass@1', `pass^${maxK}`]) if (agent_metrics[name] !== undefined) key_metrics[name] = agent_metrics[name];
  return { group_level_metrics, agent_metrics, key_metrics };
}
