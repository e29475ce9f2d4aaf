import type { SpeechSynth } from '../audio/index.ts';
import type { IdSource } from '../core/index.ts';
import type { Pack } from '../packs/index.ts';
import { dialCall, openingLineOf, type CallerReport } from './local-caller.ts';

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
  readonly callTimeoutMs: number;
}

/** Every task × trial with a fresh `loc_<12 hex>` id, trials interleaved so a task's runs spread out. */
export function planCalls(plan: Pick<RunPlan, 'taskIds' | 'trials' | 'ids'>): PlannedCall[] {
  const calls: PlannedCall[] = [];
  for (let trial = 1; trial <= plan.trials; trial++) {
    for (const taskId of plan.taskIds) calls.push({ callId: `loc_${plan.ids.hex(12)}`, taskId, trial });
  }
  return calls;
}

/** Dials every planned call with bounded concurrency; reports each as it finishes. */
export async function runCalls(plan: RunPlan, calls: readonly PlannedCall[], onDone: (report: CallerReport, call: PlannedCall) => void): Promise<CallerReport[]> {
  const reports: CallerReport[] = new Array<CallerReport>(calls.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < calls.length) {
      const index = next++;
      const call = calls[index] as PlannedCall;
      const task = plan.pack.tasks.get(call.taskId);
      const report = await dialCall({
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
