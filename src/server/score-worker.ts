import { setPriority } from 'node:os';
import { parentPort } from 'node:worker_threads';
import { loadDrizzleAsCommonJs } from '../core/index.ts';
import type { UiRequest } from './score-thread.ts';

// The lowest CPU priority for this thread alone (Linux keeps a nice value per thread): on a busy
// machine the scoring and the pages take the CPU the calls' event loop leaves, never the other way round.
try {
  setPriority(19);
} catch {
  /* not permitted or not supported: the work still runs off the event loop */
}
// Hooks are per thread: this one loads drizzle as the CLI's thread does (src/core/module-hooks.ts).
loadDrizzleAsCommonJs();
const { UiSites } = await import('./ui-site.ts');
const sites = new UiSites((runId, conversations) => parentPort?.postMessage({ scoring: { runId, conversations } }));

/**
 * The results UI's thread: scores runs on demand, builds each site's model and renders its pages
 * (one request per message), so `/ui` never holds the event loop (src/server/score-thread.ts).
 */
parentPort?.on('message', (message: { id: number; request: UiRequest }) => {
  const { request } = message;
  const answer = request.kind === 'page' ? sites.page(request.spec, request.name) : sites.audio(request.spec, request.file);
  answer.then(
    (result) => parentPort?.postMessage({ id: message.id, answer: result }),
    (err: unknown) => parentPort?.postMessage({ id: message.id, error: err instanceof Error ? err.message : String(err) }),
  );
});
