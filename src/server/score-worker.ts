import { setPriority } from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import { loadDrizzleAsCommonJs } from '../core/index.ts';
import type { UiRequest } from './score-thread.ts';
import type { UiConfig } from './ui-store.ts';

// The lowest CPU priority for this thread alone (Linux keeps a nice value per thread): on a busy
// machine the results UI takes the CPU the calls' event loop leaves, never the other way round.
try {
  setPriority(19);
} catch {
  /* not permitted or not supported: the work still runs off the event loop */
}
// Hooks are per thread: this one loads drizzle as the CLI's thread does (src/core/module-hooks.ts).
loadDrizzleAsCommonJs();
const { UiSites } = await import('./ui-site.ts');
const sites = new UiSites(workerData as UiConfig, (event) => parentPort?.postMessage({ event }));

/**
 * The results UI's thread (src/server/score-thread.ts): lists the store, scores runs on demand,
 * builds each site's model and renders its pages, one request per message, so `/ui` never holds
 * the event loop.
 */
parentPort?.on('message', (message: { id: number; request: UiRequest }) => {
  const { request } = message;
  const answer = request.kind === 'runs' ? sites.runsPage(request.base) : request.kind === 'page' ? sites.page(request.site, request.name) : sites.audio(request.site, request.file);
  answer.then(
    (result) => parentPort?.postMessage({ id: message.id, answer: result }),
    (err: unknown) => parentPort?.postMessage({ id: message.id, error: err instanceof Error ? err.message : String(err) }),
  );
});
