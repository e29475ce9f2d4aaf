import type { SpeechSynth } from '../audio/index.ts';
import { mintId, type IdSource } from '../core/index.ts';
import type { Pack } from '../packs/index.ts';
import type { CallerFile } from '../snapshot/index.ts';
import { dialPrepared, prepareCaller, type CallerSettings } from './caller-setup.ts';
import { openingLineOf } from './caller-mind.ts';
import { dialOpeningLine, type CallerReport, type ConversationReport } from './conversation-caller.ts';

/** One planned call of a run. */
export interface PlannedCall {
  readonly callId: string;
  readonly taskId: string;
  readonly trial: number;
}

/** How a run dials. */
export interface RunPlan {
  readonly url: string;
  readonly runId: string;
  readonly pack: Pack;
  readonly taskIds: readonly string[];
  readonly trials: number;
  readonly concurrency: number;
  readonly paced: boolean;
  readonly auth: { readonly user: string; readonly pass: string } | null;
  readonly synth: SpeechSynth;
  readonly ids: IdSource;
  /** Checked before each new call: true once the run was interrupted (calls in flight finish). */
  readonly stopRequested?: () => boolean;
  readonly callTimeoutMs: number;
  /**
   * The caller of architecture.md §17 (any kind); absent: the scripted caller without a record
   * (`dialOpeningLine`), which says the opening line and waits.
   */
  readonly caller?: CallerSettings;
  /** Stores a call's `caller.json` (next to its snapshot); awaited before the call is reported done. */
  readonly saveCallerFile?: (file: CallerFile, call: PlannedCall) => Promise<void>;
}

/** A shard of a run: `index` of `count` (0-based, as a Kubernetes Indexed Job numbers its pods). */
export interface Shard {
  readonly index: number;
  readonly count: number;
}

/** Parses `I/N` (0 ≤ I < N); null when malformed. */
export function parseShard(text: string): Shard | null {
  const m = /^(\d+)\/(\d+)$/.exec(text.trim());
  if (!m) return null;
  const index = Number(m[1]);
  const count = Number(m[2]);
  return count >= 1 && index < count ? { index, count } : null;
}

/**
 * The share of a plan one shard dials: every call whose position in the full plan is `index`
 * modulo `count`. The plan's order depends only on the task ids and trials, so N shards dial
 * each (task, trial) exactly once between them, whatever machine each runs on.
 */
export function shardCalls<T>(calls: readonly T[], shard: Shard | null): T[] {
  return shard ? calls.filter((_, i) => i % shard.count === shard.index) : [...calls];
}

/** Every task × trial with a fresh `loc_<12 hex>` id, trials interleaved so a task's runs spread out. */
export function planCalls(plan: Pick<RunPlan, 'taskIds' | 'trials' | 'ids'>): PlannedCall[] {
  const calls: PlannedCall[] = [];
  for (let trial = 1; trial <= plan.trials; trial++) {
    for (const taskId of plan.taskIds) calls.push({ callId: mintId(plan.ids, 'local'), taskId, trial });
  }
  return calls;
}

/** Dials every planned call with bounded concurrency; reports each as it finishes. */
export async function runCalls(plan: RunPlan, calls: readonly PlannedCall[], onDone: (report: CallerReport, call: PlannedCall) => void): Promise<CallerReport[]> {
  const reports: CallerReport[] = new Array<CallerReport>(calls.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < calls.length && !plan.stopRequested?.()) {
      const index = next++;
      const call = calls[index] as PlannedCall;
      const task = plan.pack.tasks.get(call.taskId);
      if (plan.caller && task) {
        const report = await dialPlanned(plan, plan.caller, call, task);
        reports[index] = report;
        onDone(report, call);
        continue;
      }
      const report = await dialOpeningLine({
        url: plan.url,
        callId: call.callId,
        taskId: call.taskId,
        runId: plan.runId,
        auth: plan.auth,
        openingLine: openingLineOf(task?.intent ?? ''),
        synth: plan.synth,
        paced: plan.paced,
        timeoutMs: plan.callTimeoutMs,
        ids: plan.ids,
      });
      reports[index] = report;
      onDone(report, call);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(plan.concurrency, calls.length)) }, worker));
  return reports;
}

async function dialPlanned(plan: RunPlan, settings: CallerSettings, call: PlannedCall, task: NonNullable<ReturnType<Pack['tasks']['get']>>): Promise<ConversationReport> {
  const caller = prepareCaller(settings, task, call.trial);
  const report = await dialPrepared(caller, {
    url: plan.url,
    callId: call.callId,
    taskId: call.taskId,
    runId: plan.runId,
    auth: plan.auth,
    paced: plan.paced,
    timeoutMs: plan.callTimeoutMs,
    ids: plan.ids,
    ...(settings.clock ? { clock: settings.clock } : {}),
  });
  if (plan.saveCallerFile && report.refusedStatus === null) await plan.saveCallerFile(caller.record(report, { callId: call.callId, runId: plan.runId, trial: call.trial }), call);
  return report;
}
