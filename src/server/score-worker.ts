import { setPriority } from 'node:os';
import { parentPort } from 'node:worker_threads';
import { scoreStoredRun, type ScoreJob } from './score-job.ts';

// The lowest CPU priority for this thread alone (Linux keeps a nice value per thread): on a busy
// machine the scoring takes the CPU the calls' event loop leaves, never the other way round.
try {
  setPriority(19);
} catch {
  /* not permitted or not supported: scoring still runs off the event loop */
}

/** The results UI's scoring thread: scores one run per message, so `/ui` never scores on the event loop. */
parentPort?.on('message', (message: { id: number; job: ScoreJob }) => {
  scoreStoredRun(message.job).then(
    (report) => parentPort?.postMessage({ id: message.id, report }),
    (err: unknown) => parentPort?.postMessage({ id: message.id, error: err instanceof Error ? err.message : String(err) }),
  );
});
