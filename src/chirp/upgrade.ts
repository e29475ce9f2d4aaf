import { CALL_ID_PATTERN, EPISODE_ID_PREFIX, httpProblem, isCallId, mintId, type HttpProblem, type IdSource } from '../core/index.ts';

/** What the upgrade request says about the call. */
export interface UpgradeFacts {
  readonly callId: string;
  readonly minted: boolean;
  readonly taskId: string | null;
  readonly runId: string | null;
  readonly probe: boolean;
}

/** A header problem that refuses the upgrade with 400. */
export type UpgradeProblem = HttpProblem<'CALL_ID_INVALID' | 'TASK_ID_INVALID' | 'RUN_ID_INVALID'>;

type Headers = Readonly<Record<string, string | string[] | undefined>>;

function header(headers: Headers, name: string): string | undefined {
  const value = headers[name.toLowerCase()];
  return (Array.isArray(value) ? value[0] : value)?.trim();
}

/** Reads and validates the call headers (case-insensitive, trimmed); mints `call_<12 hex>` when absent. */
export function readUpgradeFacts(headers: Headers, path: string, ids: IdSource): UpgradeFacts | UpgradeProblem {
  const rawId = header(headers, 'x-simulation-result-id');
  if (rawId !== undefined && rawId !== '' && !CALL_ID_PATTERN.test(rawId)) {
    return httpProblem('CALL_ID_INVALID', `X-Simulation-Result-Id must match ${CALL_ID_PATTERN.source}`);
  }
  if (rawId !== undefined && rawId !== '' && !isCallId(rawId)) return httpProblem('CALL_ID_INVALID', `X-Simulation-Result-Id may not start with ${EPISODE_ID_PREFIX}: those ids name RL episodes`);
  const taskId = header(headers, 'x-mivas-task-id') || null;
  if (taskId !== null && !/^[A-Za-z0-9-]{1,32}$/.test(taskId)) return httpProblem('TASK_ID_INVALID', 'X-Mivas-Task-Id is not a task id');
  const runId = header(headers, 'x-mivas-run-id') || null;
  if (runId !== null && !CALL_ID_PATTERN.test(runId)) return httpProblem('RUN_ID_INVALID', `X-Mivas-Run-Id must match ${CALL_ID_PATTERN.source}`);
  const minted = rawId === undefined || rawId === '';
  return {
    callId: minted ? mintId(ids, 'call') : rawId,
    minted,
    taskId,
    runId,
    probe: path.split('?')[0] === '/probe' || header(headers, 'x-mivas-probe') === '1',
  };
}

/** True when the value is an UpgradeProblem. */
export function isUpgradeProblem(value: UpgradeFacts | UpgradeProblem): value is UpgradeProblem {
  return 'status' in value;
}
