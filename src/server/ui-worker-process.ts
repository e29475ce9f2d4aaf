import { readdirSync } from 'node:fs';
import { setPriority } from 'node:os';
import { loadDrizzleAsCommonJs } from '../core/index.ts';
import type { UiMessage, UiRequest } from './ui-worker.ts';
import type { UiConfig } from './ui-store.ts';

/**
 * Every thread of this process at the lowest CPU priority (Linux keeps a nice value per thread,
 * and V8's and libuv's threads exist before any code runs; threads made later inherit it): on a
 * busy machine the results UI takes the CPU the server leaves, never the other way round.
 */
function lowestPriority(): void {
  let tids: string[] = [];
  try {
    tids = readdirSync('/proc/self/task');
  } catch {
    /* no /proc: the process as a whole, below */
  }
  for (const tid of tids.length > 0 ? tids.map(Number) : [0]) {
    try {
      setPriority(tid, 19);
    } catch {
      /* not permitted or not supported: the work still runs outside the server's process */
    }
  }
}

const send = (message: UiMessage): void => {
  process.send?.(message);
};

lowestPriority();
// The server's own hook: drizzle from its CommonJS build (src/core/module-hooks.ts).
loadDrizzleAsCommonJs();
const { UiSites } = await import('./ui-site.ts');
const sites = new UiSites(JSON.parse(process.argv[2] ?? '{}') as UiConfig, (event) => send({ event }));
// The server went away (closed, or killed without a word): nothing is left to answer.
process.on('disconnect', () => process.exit(0));

/**
 * The results UI's process (src/server/ui-worker.ts): lists the store, scores runs on demand,
 * builds each site's model and renders its pages, one request per message, so `/ui` never holds
 * the server's event loop, its garbage collector or its CPU.
 */
process.on('message', (message: { id: number; request: UiRequest }) => {
  const { request } = message;
  const answer = request.kind === 'runs' ? sites.runsPage(request.base) : request.kind === 'page' ? sites.page(request.site, request.name) : sites.audio(request.site, request.file);
  answer.then(
    (result) => send({ id: message.id, answer: result }),
    (err: unknown) => send({ id: message.id, error: err instanceof Error ? err.message : String(err) }),
  );
});
