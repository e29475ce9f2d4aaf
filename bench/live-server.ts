/**
 * The real mivas server (createAppContext + buildApp, exactly what `mivas serve` runs) in a
 * bench child process pinned to one core, plus the bench-only probes the live-call section needs:
 * event-loop delay (monitorEventLoopDelay), CPU time and RSS of this process, reported over IPC.
 * Configuration comes from the environment like `mivas serve`. Loopback only.
 */
import { constants, monitorEventLoopDelay, PerformanceObserver } from 'node:perf_hooks';
import { loadConfig } from '../src/config.ts';
import { buildApp, createAppContext } from '../src/server/index.ts';

/** A request from the bench orchestrator. */
export type ServerCommand = { readonly cmd: 'reset' } | { readonly cmd: 'stats' } | { readonly cmd: 'stop' };

/** What the server process reports for a measurement window. */
export interface ServerStats {
  readonly eventLoopP50Ms: number;
  readonly eventLoopP99Ms: number;
  readonly eventLoopMaxMs: number;
  readonly cpuMs: number;
  readonly wallMs: number;
  readonly rssMib: number;
  readonly liveCalls: number;
  readonly snapshotBacklog: number;
  /** Young-generation collections in the window (they depend on what is allocated, not on the machine's load). */
  readonly scavenges: number;
  /** Full (mark-compact) collections in the window. */
  readonly fullCollections: number;
}

const parsed = loadConfig(process.env);
if (!parsed.ok) {
  process.stderr.write(`${parsed.problems.join('\n')}\n`);
  process.exit(3);
}
const config = parsed.config;
if (!config.host.startsWith('127.')) throw new Error('the bench server binds to loopback only');
const ctx = await createAppContext(config);
const app = await buildApp(ctx);
const address = await app.listen({ port: config.port, host: config.host });

const delay = monitorEventLoopDelay({ resolution: 1 });
delay.enable();
const collections = { scavenges: 0, full: 0 };
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) {
    const kind = (entry as PerformanceEntry & { readonly detail?: { readonly kind?: number } }).detail?.kind;
    if (kind === constants.NODE_PERFORMANCE_GC_MINOR) collections.scavenges++;
    else if (kind === constants.NODE_PERFORMANCE_GC_MAJOR) collections.full++;
  }
}).observe({ entryTypes: ['gc'] });
let cpuBase = process.cpuUsage();
let wallBase = performance.now();

function stats(): ServerStats {
  const cpu = process.cpuUsage(cpuBase);
  const ms = (ns: number): number => Math.round((ns / 1e6) * 100) / 100;
  return {
    eventLoopP50Ms: ms(delay.percentile(50)),
    eventLoopP99Ms: ms(delay.percentile(99)),
    eventLoopMaxMs: ms(delay.max),
    cpuMs: Math.round((cpu.user + cpu.system) / 1000),
    wallMs: Math.round(performance.now() - wallBase),
    rssMib: Math.round(process.memoryUsage().rss / 2 ** 20),
    liveCalls: ctx.registry.count(),
    snapshotBacklog: ctx.outbox.backlog().count,
    scavenges: collections.scavenges,
    fullCollections: collections.full,
  };
}

process.on('message', (message: ServerCommand) => {
  if (message.cmd === 'reset') {
    delay.reset();
    collections.scavenges = 0;
    collections.full = 0;
    cpuBase = process.cpuUsage();
    wallBase = performance.now();
    process.send?.({ ok: true });
  } else if (message.cmd === 'stats') {
    process.send?.(stats());
  } else if (message.cmd === 'stop') {
    void app.close().then(() => {
      delay.disable();
      process.disconnect?.();
      process.exit(0);
    });
  }
});
process.once('SIGTERM', () => void app.close().then(() => process.exit(0)));
process.send?.({ ready: true, address });
