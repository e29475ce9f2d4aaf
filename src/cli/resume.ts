import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import type { Pack } from '../packs/index.ts';
import { loadSnapshots, scoreRun, snapshotRunId, type SnapshotSource } from '../scoring/index.ts';
import type { RerunJob } from './rerun-voids.ts';

/** What `mivas run` records when it starts, so `mivas run --resume RUN` can finish the same plan. */
export const runRecordSchema = z
  .object({
    run_id: z.string().regex(/^run_[A-Za-z0-9_-]{1,60}$/),
    pack: z.string().min(1),
    harness: z.string().min(1),
    mode: z.enum(['voice', 'text']),
    trials: z.number().int().min(1),
    tasks: z.array(z.string().min(1)).min(1),
    fast: z.boolean(),
  })
  .strict();

export type RunRecord = z.infer<typeof runRecordSchema>;

/** `<dataDir>/runs/<run id>.json`. */
export function runRecordPath(dataDir: string, runId: string): string {
  return join(dataDir, 'runs', `${runId}.json`);
}

/** Writes the run's record unless one exists (a resumed run keeps its first plan). */
export function writeRunRecord(dataDir: string, record: RunRecord): void {
  const file = runRecordPath(dataDir, record.run_id);
  if (existsSync(file)) return;
  mkdirSync(join(dataDir, 'runs'), { recursive: true });
  writeFileSync(file, `${JSON.stringify(runRecordSchema.parse(record), null, 2)}\n`);
}

/** The record of a run, null when it has none, or the problem with it (to print). */
export function readRunRecord(dataDir: string, runId: string): RunRecord | null | { problem: string } {
  const file = runRecordPath(dataDir, runId);
  if (!existsSync(file)) return null;
  try {
    const parsed = runRecordSchema.safeParse(JSON.parse(readFileSync(file, 'utf8')));
    return parsed.success ? parsed.data : { problem: `${file} is not a run record: ${parsed.error.issues[0]?.message ?? 'invalid'}` };
  } catch (err) {
    return { problem: `${file} is not readable JSON: ${err instanceof Error ? err.message : String(err)}` };
  }
}

/** What a run still lacks: the (task, trial) jobs to play, and how many of the plan are scored already. */
export interface ResumePlan {
  readonly jobs: readonly RerunJob[];
  readonly scored: number;
  readonly planned: number;
}

/**
 * The trials a run is missing: for every task of the plan, `trials` minus its scored (PASS or FAIL)
 * conversations of this run in the store. A trial never played, one lost in a crash (no snapshot
 * or no summary) and a VOID all count as missing; voids stay in the store and in the run's void
 * counts. Trial numbers already taken (from each scored conversation's caller record) are skipped.
 */
export async function missingTrials(source: SnapshotSource, pack: Pack, plan: { runId: string; taskIds: readonly string[]; trials: number; minCallMs: number }): Promise<ResumePlan> {
  const loaded = (await loadSnapshots(source, pack.id)).filter((s) => snapshotRunId(s) === plan.runId);
  const report = scoreRun(loaded, new Map([[pack.id, pack]]), new Map(), { k: 1, seed: 1, resamples: 0, minCallMs: plan.minCallMs, allowPackDrift: false, pack: pack.id, stamp: null, flags: {} });
  const trialOf = new Map(loaded.map((s) => [s.callId, s.caller?.trial ?? null]));
  const jobs: RerunJob[] = [];
  let scored = 0;
  for (const taskId of plan.taskIds) {
    const done = report.conversations.filter((c) => c.task_id === taskId && (c.status === 'PASS' || c.status === 'FAIL'));
    scored += Math.min(done.length, plan.trials);
    const taken = new Set(done.map((c) => trialOf.get(c.conversation_id)));
    const free = Array.from({ length: plan.trials * 2 }, (_, i) => i + 1).filter((t) => !taken.has(t));
    for (let i = 0; i < plan.trials - done.length; i++) jobs.push({ taskId, trial: free[i] ?? plan.trials + i + 1 });
  }
  return { jobs, scored, planned: plan.taskIds.length * plan.trials };
}

/** Complete snapshot sets (a summary present) still in the local spool `<dataDir>/spool/<pack>/`, by pack. */
export function spooledSets(dataDir: string, pack?: string): { pack: string; callId: string }[] {
  const spool = join(dataDir, 'spool');
  if (!existsSync(spool)) return [];
  const packs = readdirSync(spool).filter((p) => (!pack || p === pack) && statSync(join(spool, p)).isDirectory());
  return packs.flatMap((p) =>
    readdirSync(join(spool, p)).flatMap((name) => {
      const m = /^(.+)\.summary\.json$/.exec(name);
      return m?.[1] ? [{ pack: p, callId: m[1] }] : [];
    }),
  );
}
