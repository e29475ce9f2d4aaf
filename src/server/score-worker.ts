import { parentPort } from 'node:worker_threads';
import { scoreStoredRun, type ScoreJob } from './score-job.ts';

/** The results UI's scoring thread: scores one run per message, so `/ui` never scores on the event loop. */
parentPort?.on('message', (message: { id: number; job: ScoreJob }) => {
  scoreStoredRun(message.job).then(
    (report) => parentPort?.postMessage({ id: message.id, report }),
    (err: unknown) => parentPort?.postMessage({ id: message.id, error: err instanceof Error ? err.message : String(err) }),
  );
});
