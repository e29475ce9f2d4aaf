import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentOwnsTool, effectivePolicy, loadPack, projectState, type Pack, type Task } from '../../../src/packs/index.ts';
import { CallDatabases, dumpDatabase, ensureTemplate } from '../../../src/store/index.ts';
import { replayReference } from '../../../src/conversation/index.ts';

const PACKS_DIR = join(import.meta.dirname, '../../../packs');
const VARIANT_FIELDS = new Set(['task_id', 'task_name', 'variant_of', 'metadata']);

/** Declared output data is a recursive subset of the real data; arrays compare element-wise. */
function subsetProblems(want: unknown, got: unknown, path: string): string[] {
  if (Array.isArray(want)) {
    if (!Array.isArray(got) || got.length !== want.length) return [`${path}: expected ${want.length} items`];
    return want.flatMap((w, i) => subsetProblems(w, got[i], `${path}[${i}]`));
  }
  if (want !== null && typeof want === 'object') {
    return Object.entries(want).flatMap(([k, w]) => subsetProblems(w, (got as Record<string, unknown> | undefined)?.[k], `${path}.${k}`));
  }
  return want === got ? [] : [`${path}: expected ${JSON.stringify(want)}, got ${JSON.stringify(got)}`];
}

/** Number of shortest routes (and their length) that cover the required calls in order (scoring.md §11.4). */
function shortestRoutes(pack: Pack, task: Task): { hops: number; count: number; path: string[] } {
  const names = task.exp_tool_calls.map((c) => c.name);
  const edges = new Map(pack.blueprint.agents.map((a) => [a.name, a.tools.filter((t) => t.handoff).map((t) => t.name)]));
  const cover = (agent: string, i: number): number => {
    let j = i;
    while (j < names.length && agentOwnsTool(pack, agent, names[j] ?? '')) j++;
    return j;
  };
  type State = { agent: string; i: number; path: string[] };
  let frontier: State[] = [{ agent: pack.entryAgent, i: cover(pack.entryAgent, 0), path: [] }];
  for (let hops = 0; hops <= 6; hops++) {
    const done = frontier.filter((s) => s.i === names.length);
    if (done.length) return { hops, count: done.length, path: done[0]?.path ?? [] };
    frontier = frontier.flatMap((s) =>
      (edges.get(s.agent) ?? []).map((tool) => {
        const to = pack.catalog.get(tool)?.handoffTo ?? s.agent;
        return { agent: to, i: cover(to, s.i), path: [...s.path, tool] };
      }),
    );
  }
  return { hops: -1, count: 0, path: [] };
}

describe('healthcare tasks', () => {
  let pack: Pack;
  let tasks: Task[];
  let dir: string;
  let dbs: CallDatabases;

  beforeAll(async () => {
    pack = await loadPack(PACKS_DIR, 'healthcare');
    // The correction variants (issue 33) are counted by the contract's test 34b; these counts are the 72 of the brief.
    tasks = [...pack.tasks.values()].filter((t) => !t.task_id.endsWith('-COR'));
    dir = mkdtempSync(join(tmpdir(), 'mivas-healthcare-tasks-'));
    dbs = new CallDatabases(join(dir, 'calls'), ensureTemplate(join(dir, 'templates'), pack));
  });
  afterAll(() => {
    dbs.closeAll();
    rmSync(dir, { recursive: true, force: true });
  });

  it('has 72 tasks besides its correction variants: 12 per category, 24/24/24 by difficulty, 60/6/6 by audio condition', () => {
    expect(tasks).toHaveLength(72);
    const count = (f: (t: Task) => string): Record<string, number> => tasks.reduce<Record<string, number>>((acc, t) => ({ ...acc, [f(t)]: (acc[f(t)] ?? 0) + 1 }), {});
    expect(count((t) => t.metadata.category)).toEqual({ C1: 12, C2: 12, C3: 12, C4: 12, C5: 12, R: 12 });
    expect(count((t) => t.metadata.difficulty)).toEqual({ easy: 24, medium: 24, hard: 24 });
    expect(count((t) => t.metadata.audio_condition)).toEqual({ perfect: 60, background_noise: 6, bad_signal: 6 });
    const base = tasks.filter((t) => !t.variant_of);
    for (const cat of ['C1', 'C2', 'C3', 'C4', 'C5', 'R']) {
      const ids = base.filter((t) => t.metadata.category === cat).map((t) => t.task_id.split('-')[1]).sort();
      expect(ids).toEqual(['E1', 'E2', 'H1', 'H2', 'H3', 'H4', 'M1', 'M2', 'M3', 'M4']);
    }
  });

  it('keeps C1-E1 exactly as the brief gives it', () => {
    const t = pack.tasks.get('C1-E1');
    expect(t?.exp_handoff_path).toEqual(['transfer_to_coverage']);
    expect(t?.exp_tool_calls).toEqual([{ name: 'check_plan_accepted', why: { because: 'answers_caller' }, parameters: { carrier: 'aetna', location_id: 'loc_park_ave' }, output: { ok: true, data: { status: 'accepted' } } }]);
  });

  it('makes audio variants differ from their E1 only in the allowed fields', () => {
    for (const v of tasks.filter((t) => t.variant_of)) {
      const source = pack.tasks.get(v.variant_of ?? '');
      expect(source?.task_id.endsWith('-E1'), v.task_id).toBe(true);
      const keys = new Set([...Object.keys(v), ...Object.keys(source ?? {})]);
      for (const key of keys) {
        if (VARIANT_FIELDS.has(key)) continue;
        expect((v as Record<string, unknown>)[key], `${v.task_id}.${key}`).toEqual((source as Record<string, unknown> | undefined)?.[key]);
      }
      expect({ ...v.metadata, audio_condition: 'perfect' }).toEqual(source?.metadata);
    }
  });

  it('meets the pack minimums: writes, refusals and escalations, long paths, human transfers', () => {
    const base = tasks.filter((t) => !t.variant_of);
    const seedState = projectState(dumpDatabase(dbs.create('seed_probe').sqlite), pack.compare);
    const writes = base.filter((t) => JSON.stringify(t.exp_db_state) !== JSON.stringify(seedState));
    expect(writes.length).toBeGreaterThanOrEqual(12);
    const human = base.filter((t) => t.exp_tool_calls.some((c) => c.name === 'transfer_to_human'));
    expect(human.length).toBeGreaterThanOrEqual(6);
    expect(new Set(human.map((t) => t.metadata.category)).size).toBeGreaterThanOrEqual(4);
    expect(base.filter((t) => t.forbidden_tools.length > 0 || human.includes(t)).length).toBeGreaterThanOrEqual(8);
    expect(base.filter((t) => t.exp_handoff_path.length >= 2).length).toBeGreaterThanOrEqual(6);
    const used = new Set(tasks.flatMap((t) => t.exp_tool_calls.map((c) => c.name)));
    expect(pack.module.tools.map((t) => t.name).filter((n) => !used.has(n))).toEqual([]);
  });

  it('fits the difficulty ladder and takes the unique shortest route', () => {
    const ladder = { easy: [1, 2, 0, 1], medium: [3, 6, 0, 2], hard: [7, 12, 1, 3] } as const;
    for (const t of tasks) {
      const [minCalls, maxCalls, minHops, maxHops] = ladder[t.metadata.difficulty];
      const calls = t.exp_tool_calls.length;
      const hops = t.exp_handoff_path.length;
      expect(calls >= minCalls && calls <= maxCalls && hops >= minHops && hops <= maxHops, `${t.task_id}: ${calls} calls, ${hops} hops`).toBe(true);
      const route = shortestRoutes(pack, t);
      expect([route.count, route.path], t.task_id).toEqual([1, t.exp_handoff_path]);
    }
  });

  it('replays every task to its declared outputs and its exp_db_state', () => {
    for (const task of tasks) {
      const callId = `replay_${task.task_id.replaceAll('-', '_')}`;
      const replayed = replayReference(task, { pack, databases: dbs, callId, taskId: task.task_id });
      const executions = replayed.calls.map((r) => r.event);
      expect(executions.map((e) => e.name), task.task_id).toEqual(task.exp_tool_calls.map((c) => c.name));
      task.exp_tool_calls.forEach((c, i) => {
        const got = executions[i]?.output as { ok?: boolean; error_code?: string; data?: unknown } | undefined;
        const want = c.output ?? { ok: true };
        expect([got?.ok, want.error_code ? got?.error_code : undefined], `${task.task_id} #${i + 1} ${c.name}`).toEqual([want.ok, want.error_code]);
        expect(subsetProblems(want.data ?? {}, got?.data, `${task.task_id} #${i + 1} ${c.name}`)).toEqual([]);
        expect(executions[i]?.internal_fault ?? null).toBeNull();
      });
      expect(projectState(replayed.final, effectivePolicy(pack.compare, task.compare)), task.task_id).toEqual(task.exp_db_state);
    }
  });
});
