import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** One (task, trial) of a run to play again. */
export interface RerunJob {
  readonly taskId: string;
  readonly trial: number;
}

/**
 * The VOID conversations of an earlier run of `pack`, read from the scores that run wrote
 * (`<dataDir>/scores/<runId>/scores.json`), each as the (task, trial) to play again under the same
 * run id. Scoring the run then counts the new conversations beside the voids (voids are never
 * scored trials). A string is the problem, for the command to print.
 */
export function voidsOfRun(dataDir: string, runId: string, pack: string): RerunJob[] | string {
  const file = join(dataDir, 'scores', runId, 'scores.json');
  if (!existsSync(file)) return `run ${runId} has no scores at ${file}; score it first (mivas score --snapshots DIR --run ${runId} --out ${join(dataDir, 'scores', runId)})`;
  let conversations: { pack?: string; task_id?: string | null; status?: string; trial_index?: number | null }[];
  try {
    conversations = (JSON.parse(readFileSync(file, 'utf8')) as { conversations?: typeof conversations }).conversations ?? [];
  } catch (err) {
    return `${file} is not readable scores JSON: ${err instanceof Error ? err.message : String(err)}`;
  }
  return conversations.filter((c) => c.pack === pack && c.status === 'VOID' && c.task_id).map((c) => ({ taskId: c.task_id as string, trial: c.trial_index ?? 1 }));
}
