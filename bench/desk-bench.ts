import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { loadConfig } from '../src/config.ts';
import { EpisodeDesk, scriptedPolicy, type EpisodeAction, type PlayableEpisode, type TextEpisode } from '../src/episodes/index.ts';
import type { Task } from '../src/packs/index.ts';
import { closeAppContext, createAppContext } from '../src/server/index.ts';
import { ROOT } from './bench-context.ts';
import type { EpisodeRow, Timed } from './episode-bench.ts';
import { summarize, type LatencySummary } from './stats.ts';

/**
 * One concurrency level of text episodes driven on the episode desk directly (no HTTP): `step` is
 * one `desk.step` from the call until its promise resolves, `seed` is `desk.open` (fresh database,
 * greeting, the caller's opening line), `verify` is `desk.finish` after the policy ended the call.
 */
export interface DeskRow extends EpisodeRow {
  readonly steps: number;
  /** Steps per second of this process's CPU time (user + system): steps/s one core sustains. */
  readonly stepsPerCoreS: number;
  /**
   * A step's own work: from the call until `desk.step` returns. With the scripted caller a step
   * never waits on the event loop, so its work (the ending step's snapshot and scoring included)
   * is done by then; the bench checks that of every step.
   */
  readonly stepService: LatencySummary;
  /**
   * The same span in this process's CPU time (user + system): the step's own work without the
   * moments the operating system gave the core to another process (on a shared machine those
   * dominate `stepService`'s tail; see the one-episode row). Garbage collection inside the span
   * counts, and so does whatever the process's other threads (the file system's pool, writing
   * earlier episodes' snapshots) ran in it. (Per-thread CPU time, `process.threadCpuUsage`, read
   * 0 for most steps here: too coarse.)
   */
  readonly stepServiceCpu: LatencySummary;
  /**
   * From the return until the step's promise resolves: the wait behind the other episodes' steps
   * that the event loop runs first (`step` = `stepService` + this).
   */
  readonly stepQueue: LatencySummary;
  /** `stepServiceCpu` of the steps that ended their episode (snapshot, scoring and reward included), and of the others. */
  readonly endingStepServiceCpu: LatencySummary;
  readonly otherStepServiceCpu: LatencySummary;
}

interface DeskTimes extends Timed {
  readonly service: number[];
  readonly serviceCpu: number[];
  readonly queue: number[];
  readonly endingCpu: number[];
  readonly otherCpu: number[];
}

async function timed<T>(into: number[], work: () => Promise<T>): Promise<T> {
  const started = performance.now();
  try {
    return await work();
  } finally {
    into.push(performance.now() - started);
  }
}

/** One step, timed three ways (see DeskRow); throws if the step left work for later, so `stepService` would not be all of it. */
async function timedStep<T>(times: DeskTimes, episode: TextEpisode, work: () => Promise<T>): Promise<T> {
  const wasDone = episode.isDone();
  const cpu = process.cpuUsage();
  const started = performance.now();
  const pending = work();
  const returned = performance.now();
  const used = process.cpuUsage(cpu);
  if (episode.busy()) throw new Error(`a step of ${episode.id} was still running when desk.step returned: its service time is not measurable this way`);
  const result = await pending;
  const resolved = performance.now();
  times.step.push(resolved - started);
  times.service.push(returned - started);
  times.serviceCpu.push((used.user + used.system) / 1000);
  times.queue.push(resolved - returned);
  (episode.isDone() && !wasDone ? times.endingCpu : times.otherCpu).push((used.user + used.system) / 1000);
  return result;
}

/** One episode: open, the scripted route step by step, finish. Returns whether it passed. */
async function runOne(desk: EpisodeDesk, packId: string, task: Task, times: DeskTimes): Promise<boolean> {
  const { episode } = await timed(times.seed, () => desk.open({ pack: packId, taskId: task.task_id, handoffMode: 'soft', policy: 'nemo-gym', reapUntouched: true }));
  const playable: PlayableEpisode = {
    pack: episode.pack,
    task,
    isDone: () => episode.isDone(),
    step: (action: EpisodeAction) => timedStep(times, episode, () => desk.step(episode.id, action)),
  };
  await scriptedPolicy().play(playable, null);
  const result = await timed(times.verify, () => desk.finish(episode.id, 'policy_stopped'));
  return result.status === 'PASS';
}

const noTimes = (): DeskTimes => ({ seed: [], step: [], verify: [], service: [], serviceCpu: [], queue: [], endingCpu: [], otherCpu: [] });

/**
 * Text episodes on the episode desk in this process, as the RL routes run them (the app's own
 * databases, callers and outbox), without HTTP: the desk's own cost per step. Each concurrency
 * level runs `rounds` batches of `concurrent` episodes over the pack's tasks in id order.
 */
export async function benchDesk(options: { readonly concurrency: readonly number[]; readonly rounds: number; readonly pack?: string }): Promise<DeskRow[]> {
  const dataDir = mkdtempSync(join(tmpdir(), 'mivas-bench-desk-'));
  const packId = options.pack ?? 'healthcare';
  const parsed = loadConfig({ MIVAS_DATA_DIR: dataDir, MIVAS_PACK: packId, MIVAS_PACKS_DIR: join(ROOT, 'packs'), MIVAS_MIGRATIONS_DIR: join(ROOT, 'migrations'), MIVAS_RL: '1', MIVAS_LOG_LEVEL: 'silent' });
  if (!parsed.ok) throw new Error(parsed.problems.join('\n'));
  const ctx = await createAppContext(parsed.config, { log: pino({ level: 'silent' }) });
  const desk = new EpisodeDesk({
    packs: new Map([[packId, { pack: ctx.pack, databases: ctx.databases, templateDump: ctx.templateDump }]]),
    maxEpisodes: Math.max(...options.concurrency),
    idleMs: 600_000,
    clock: ctx.clock,
    ids: ctx.ids,
    callers: ctx.rl.callers,
    store: (pack, callId, parts) => void ctx.outbox.store(pack, callId, parts).catch(() => undefined),
  });
  const tasks = [...ctx.pack.tasks.values()].sort((a, b) => (a.task_id < b.task_id ? -1 : 1));
  try {
    // Warm-up, not measured: the first episodes compile the code paths and fill the pack's caches.
    const warmup = noTimes();
    await Promise.all(tasks.slice(0, 8).map((task) => runOne(desk, packId, task, warmup)));
    const out: DeskRow[] = [];
    for (const n of options.concurrency) {
      const times = noTimes();
      let passed = 0;
      const cpu = process.cpuUsage();
      const started = performance.now();
      for (let round = 0; round < options.rounds; round++) {
        const batch = Array.from({ length: n }, (_, i) => tasks[(round * n + i) % tasks.length] as Task);
        passed += (await Promise.all(batch.map((task) => runOne(desk, packId, task, times)))).filter(Boolean).length;
      }
      const wallS = (performance.now() - started) / 1000;
      const used = process.cpuUsage(cpu);
      const cpuS = (used.user + used.system) / 1e6;
      const episodes = n * options.rounds;
      out.push({
        pack: packId,
        concurrent: n,
        episodes,
        passed,
        steps: times.step.length,
        wallS: Math.round(wallS * 100) / 100,
        stepsPerCoreS: Math.round(times.step.length / Math.max(cpuS, 1e-6)),
        episodesPerS: Math.round((episodes / wallS) * 10) / 10,
        step: summarize(times.step),
        stepService: summarize(times.service),
        stepServiceCpu: summarize(times.serviceCpu),
        stepQueue: summarize(times.queue),
        endingStepServiceCpu: summarize(times.endingCpu),
        otherStepServiceCpu: summarize(times.otherCpu),
        seed: summarize(times.seed),
        verify: summarize(times.verify),
      });
    }
    return out;
  } finally {
    await desk.close();
    await closeAppContext(ctx);
    rmSync(dataDir, { recursive: true, force: true });
  }
}
