import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock, seededIds } from '../../src/core/index.ts';
import { builtInCallers, EpisodeDesk, noopPolicy, scriptedPolicy, type EpisodeResult, type TextPolicy } from '../../src/episodes/index.ts';
import type { Task } from '../../src/packs/index.ts';
import { mulberry32 } from '../../src/scoring/index.ts';
import { episodePack, SCORED_PACKS, type EpisodePack } from '../support/episode-rig.ts';

const EPISODES = 200;
const rigs = new Map<string, EpisodePack>();

beforeAll(async () => {
  for (const id of SCORED_PACKS) rigs.set(id, await episodePack(id));
}, 120_000);

afterAll(() => {
  for (const rig of rigs.values()) rig.close();
});

/** True when the task's expected state differs from the template: its reference route writes. */
function writes(rig: EpisodePack, task: Task): boolean {
  return Object.entries(task.exp_db_state).some(([table, rows]) => JSON.stringify(rows) !== JSON.stringify(rig.templateDump[table] ?? []));
}

describe(`${EPISODES} concurrent text episodes in one process`, () => {
  it('keep their databases apart: every writing replay passes, every silent episode on a no-write task keeps a clean state', async () => {
    const clock = new ManualClock();
    const desk = new EpisodeDesk({
      packs: new Map([...rigs].map(([id, r]) => [id, { pack: r.pack, databases: r.databases, templateDump: r.templateDump }])),
      maxEpisodes: EPISODES,
      idleMs: 60_000,
      clock,
      ids: seededIds('concurrency'),
      callers: builtInCallers,
      store: () => undefined,
    });
    // Episodes over every pack: the scripted replay of writing tasks, noop on tasks that expect no writes.
    const plan: { pack: string; task: Task; policy: TextPolicy; writer: boolean }[] = [];
    const pools = [...rigs.values()].map((rig) => {
      const tasks = [...rig.pack.tasks.values()];
      return { rig, writers: tasks.filter((t) => writes(rig, t)), quiet: tasks.filter((t) => !writes(rig, t)) };
    });
    for (let i = 0; plan.length < EPISODES; i++) {
      const pool = pools[i % pools.length];
      if (!pool) break;
      const quiet = i % 5 === 4 && pool.quiet.length > 0;
      const list = quiet ? pool.quiet : pool.writers;
      const task = list[Math.floor(i / pools.length) % list.length] as Task;
      plan.push({ pack: pool.rig.pack.id, task, policy: quiet ? noopPolicy() : scriptedPolicy(), writer: !quiet });
    }
    expect(plan.filter((p) => p.writer).length).toBeGreaterThan(100);

    const opened = await Promise.all(plan.map((p) => desk.open({ pack: p.pack, taskId: p.task.task_id, policy: p.policy.name, handoffMode: 'native' })));
    expect(desk.count()).toBe(EPISODES);
    await expect(desk.open({ pack: 'healthcare', policy: 'scripted' })).rejects.toMatchObject({ code: 'EPISODES_FULL' });
    const files = new Set(opened.map((o) => o.episode.id));
    expect(files.size).toBe(EPISODES);

    // Every action waits a seeded number of event-loop turns first, so episodes interleave step by step.
    const random = mulberry32(17);
    const interleaved = opened.map(({ episode }) => ({
      pack: episode.pack,
      task: episode.task,
      isDone: () => episode.isDone(),
      step: async (action: Parameters<typeof episode.step>[0]) => {
        for (let n = Math.floor(random() * 4); n > 0; n--) await new Promise((r) => setImmediate(r));
        return desk.step(episode.id, action);
      },
    }));
    await Promise.all(plan.map((p, i) => p.policy.play(interleaved[i] as (typeof interleaved)[number], null)));
    const results: EpisodeResult[] = await Promise.all(opened.map((o) => desk.finish(o.episode.id, 'policy_stopped')));
    expect(desk.count()).toBe(0);

    const wrong = results.flatMap((r, i) => {
      const p = plan[i];
      if (!p) return [];
      if (p.writer && (r.status !== 'PASS' || r.reward_components.state !== 1)) return [`${r.episode_id} ${p.pack}/${p.task.task_id} ${r.status}: ${r.reasons.join('; ')}`];
      if (!p.writer && r.reward_components.state !== 1) return [`${r.episode_id} ${p.pack}/${p.task.task_id} (noop) state ${r.reward_components.state}: ${r.reasons.join('; ')}`];
      return [];
    });
    expect(wrong).toEqual([]);
    for (const rig of rigs.values()) expect(rig.databases.openCount()).toBe(0);
    await desk.close();
  }, 120_000);
});
