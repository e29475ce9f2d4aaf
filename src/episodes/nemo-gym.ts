import { z } from 'zod';
import { openingLineOf } from '../caller/index.ts';
import { isPlainObject } from '../core/index.ts';
import type { Pack, Task } from '../packs/index.ts';
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

/**
 * What seed_session reads of the row it is sent. NeMo Gym's simple agent posts the whole row as
 * `body.model_dump()` (`responses_api_agents/simple_agent/app.py` `SimpleAgent.run`), so every
 * field of its create-params model it did not set arrives as null (`model`, `temperature`, …), and
 * its own resources servers take the seed body with pydantic's defaults (unknown fields ignored,
 * `Optional` fields null or absent). Here likewise: each field may be absent or null (null reads as
 * absent), and every other field is kept for verify to echo.
 */
export const seedBodySchema = z
  .object({
    task_id: z.string().min(1).max(64).nullish(),
    pack: z.string().nullish(),
    handoff_mode: z.string().nullish(),
    caller: z.string().nullish(),
    seed: z.number().int().nonnegative().nullish(),
    max_turns: z.number().int().nullish(),
    [ROLLOUT_INDEX_KEY]: z.number().int().nonnegative().nullish(),
    responses_create_params: z.object({ model: z.string().nullish() }).loose().nullish(),
  })
  .loose();

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

function numberOf(value: unknown): number | null {
  if (typeof value === 'boolean') return value ? 1 : 0;
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

/**
 * Calls `add` with every metric of one verify response, as NeMo Gym's reward profiler reads them
 * (`nemo_gym/reward_profile.py` `RewardProfiler.profile_from_data`): each top-level number or
 * boolean (as 1/0), then the numbers of `response.usage` (which win on a shared name); the task
 * and rollout indices are keys, not metrics. No fixed list: whatever verify adds is profiled.
 */
function eachMetric(row: Row, add: (name: string, value: number) => void): void {
  const usage = (row.response as { usage?: unknown } | null | undefined)?.usage;
  const usageRow: Row = isPlainObject(usage) ? usage : {};
  for (const [name, value] of Object.entries(row)) {
    if (name === TASK_INDEX_KEY || name === ROLLOUT_INDEX_KEY || name in usageRow) continue;
    const n = numberOf(value);
    if (n !== null) add(name, n);
  }
  for (const [name, value] of Object.entries(usageRow)) {
    const n = numberOf(value);
    if (n !== null) add(name, n);
  }
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

/** The k-th smallest value (0-based) by quickselect: expected linear time; reorders `values`. */
function kthSmallest(values: number[], k: number): number {
  let lo = 0;
  let hi = values.length - 1;
  while (lo < hi) {
    const pivot = values[(lo + hi) >> 1] as number;
    let i = lo;
    let j = hi;
    while (i <= j) {
      while ((values[i] as number) < pivot) i++;
      while ((values[j] as number) > pivot) j--;
      if (i <= j) {
        [values[i], values[j]] = [values[j] as number, values[i] as number];
        i++;
        j--;
      }
    }
    if (k <= j) hi = j;
    else if (k >= i) lo = i;
    else break;
  }
  return values[k] as number;
}

/** NeMo Gym's baseline statistics of one metric: mean, max, min, median, std (sample; 0 for one value). */
function describe(values: readonly number[], name: string, out: Record<string, number>): void {
  const n = values.length;
  let sum = 0;
  let min = Infinity;
  let max = -Infinity;
  for (const v of values) {
    sum += v;
    if (v < min) min = v;
    if (v > max) max = v;
  }
  const mean = sum / n;
  let squares = 0;
  for (const v of values) squares += (v - mean) ** 2;
  const scratch = [...values];
  const upper = kthSmallest(scratch, n >> 1);
  const median = n % 2 ? upper : (kthSmallest(scratch, (n >> 1) - 1) + upper) / 2;
  out[`mean/${name}`] = mean;
  out[`max/${name}`] = max;
  out[`min/${name}`] = min;
  out[`median/${name}`] = median;
  out[`std/${name}`] = n > 1 ? Math.sqrt(squares / (n - 1)) : 0;
}

/** The statistics of every metric the rows carry, in the order the metrics first appear. */
function profile(rows: readonly Row[]): Record<string, number> {
  const columns = new Map<string, number[]>();
  for (const row of rows) {
    eachMetric(row, (name, value) => {
      const column = columns.get(name);
      if (column) column.push(value);
      else columns.set(name, [value]);
    });
  }
  const out: Record<string, number> = {};
  for (const [name, values] of columns) describe(values, name, out);
  return out;
}

/** pass^k and pass@k of one task for k = 1..n, built term by term (the same products as passHatK / passAtK). */
function taskEstimators(n: number, c: number): { hat: number[]; at: number[] } {
  const hat: number[] = [];
  const at: number[] = [];
  let p = 1;
  let q = 1;
  for (let i = 0; i < n; i++) {
    p *= Math.max(0, c - i) / (n - i);
    q *= Math.max(0, n - c - i) / (n - i);
    hat.push(p);
    at.push(1 - q);
  }
  return { hat, at };
}

/**
 * `/aggregate_metrics`: the verify responses grouped by task (`_ng_task_index`, else `task_id`),
 * NeMo Gym's baseline statistics (`mean/`, `max/`, `min/`, `median/`, `std/`) of every numeric
 * field (sample std, 0 for one value), and mivas's estimators over scored rollouts only
 * (scoring.md §8.1): `pass@1` (mean per-task pass rate), `pass^k` (all k trials pass) and `pass@k`
 * (at least one of k passes) for every k some task has n ≥ k, as fractions in [0, 1]. Linear in the
 * number of fields (medians by quickselect, estimators term by term).
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
  const hatSums: number[] = [];
  const atSums: number[] = [];
  const reaching: number[] = [];
  let numScored = 0;
  const group_level_metrics = [...groups.values()].map((g) => {
    const scoredRows = g.rows.filter(scored);
    const n = scoredRows.length;
    const c = scoredRows.filter(passed).length;
    numScored += n;
    const { hat, at } = taskEstimators(n, c);
    const metrics: Record<string, unknown> = { ...g.key, ...profile(g.rows), num_rollouts: g.rows.length, num_scored: n, num_passed: c };
    for (let k = 1; k <= n; k++) {
      metrics[`pass^${k}`] = hat[k - 1];
      metrics[`pass@${k}`] = at[k - 1];
      hatSums[k - 1] = (hatSums[k - 1] ?? 0) + (hat[k - 1] as number);
      atSums[k - 1] = (atSums[k - 1] ?? 0) + (at[k - 1] as number);
      reaching[k - 1] = (reaching[k - 1] ?? 0) + 1;
    }
    return metrics;
  });
  const maxK = reaching.length;
  const agent_metrics: Record<string, number> = { ...profile(verifyResponses), num_rollouts: verifyResponses.length, num_scored: numScored, num_tasks: groups.size };
  for (let k = 1; k <= maxK; k++) {
    const tasks = reaching[k - 1] as number;
    agent_metrics[`pass^${k}`] = (hatSums[k - 1] as number) / tasks;
    agent_metrics[`pass@${k}`] = (atSums[k - 1] as number) / tasks;
  }
  const key_metrics: Record<string, number> = {};
  for (const name of ['mean/reward', 'pass@1', `pass^${maxK}`]) if (agent_metrics[name] !== undefined) key_metrics[name] = agent_metrics[name];
  return { group_level_metrics, agent_metrics, key_metrics };
}
