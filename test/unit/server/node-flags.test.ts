import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { missingServeFlags, SERVE_NODE_FLAGS } from '../../../src/server/index.ts';

const NODE_FLAGS_MODULE = new URL('../../../src/server/node-flags.ts', import.meta.url).pathname;

/** Runs an ES module snippet in a fresh node with `flags` and parses the JSON it prints last. */
function runNode<T>(flags: readonly string[], source: string): T {
  const out = execFileSync(process.execPath, [...flags, '--input-type=module', '-e', source], { encoding: 'utf8', timeout: 60_000 });
  return JSON.parse(out.trim().split('\n').at(-1) ?? 'null') as T;
}

describe('serve node flags', () => {
  it('names the flags a process lacks and none once it has them', () => {
    expect(SERVE_NODE_FLAGS.length).toBeGreaterThan(0);
    expect(missingServeFlags(['--import', 'tsx'])).toEqual([...SERVE_NODE_FLAGS]);
    expect(missingServeFlags(['--import', 'tsx', ...SERVE_NODE_FLAGS])).toEqual([]);
  });

  // V8's memory reducer waits about 8 s after a full collection, then runs two more at the first
  // quiet moment (the stall of docs/reliability.md, "`/ui` scoring"). The control, the same flags
  // with the reducer left on, shows what the server's flags must prevent.
  it('leave no collection behind the boot one: the memory reducer is off', () => {
    const idleAfterBoot = (flags: readonly string[], watchMs: number, stopAtFirst: boolean): { majors: number; firstMs: number | null } =>
      runNode(
        flags,
        `import { PerformanceObserver, constants } from 'node:perf_hooks';
         const { collectBootGarbage } = await import(${JSON.stringify(NODE_FLAGS_MODULE)});
         let junk = Array.from({ length: 200 }, (_, i) => new Array(12_500).fill(i + 0.5));
         junk = null;
         collectBootGarbage();
         const booted = performance.now();
         let majors = 0, firstMs = null;
         const major = constants.NODE_PERFORMANCE_GC_MAJOR | constants.NODE_PERFORMANCE_GC_INCREMENTAL;
         new PerformanceObserver((list) => {
           for (const e of list.getEntries()) if (e.startTime > booted && (e.detail.kind & major)) { majors++; firstMs ??= Math.round(e.startTime - booted); }
         }).observe({ entryTypes: ['gc'] });
         const end = performance.now() + ${watchMs};
         const tick = () => (${stopAtFirst} && majors > 0) || performance.now() > end ? console.log(JSON.stringify({ majors, firstMs })) : setTimeout(tick, 50);
         setTimeout(tick, 50);`,
      );
    // The control stops at its first reducer collection (or after 30 s); the server's flags are then
    // watched 3 s longer than that took, so a reducer delayed by a busy machine would still show.
    const withReducer = idleAfterBoot(
      SERVE_NODE_FLAGS.filter((f) => f !== '--no-memory-reducer'),
      30_000,
      true,
    );
    expect(withReducer.majors).toBeGreaterThan(0);
    const served = idleAfterBoot(SERVE_NODE_FLAGS, (withReducer.firstMs ?? 0) + 3_000, false);
    expect(served).toEqual({ majors: 0, firstMs: null });
  }, 90_000);
});

describe('collectBootGarbage', () => {
  it('collects the garbage of a process started without --expose-gc, returns its pages, and leaves gc unexposed', () => {
    const { before, after, committedAfter, gc } = runNode<{ before: number; after: number; committedAfter: number; gc: string }>(
      SERVE_NODE_FLAGS,
      `const { collectBootGarbage } = await import(${JSON.stringify(NODE_FLAGS_MODULE)});
       let junk = Array.from({ length: 200 }, (_, i) => new Array(12_500).fill(i + 0.5));
       junk = null;
       const before = process.memoryUsage().heapUsed;
       collectBootGarbage();
       const { heapUsed, heapTotal } = process.memoryUsage();
       console.log(JSON.stringify({ before, after: heapUsed, committedAfter: heapTotal, gc: typeof globalThis.gc }));`,
    );
    // 200 arrays of 12,500 doubles (100 kB each) were garbage: about 20 MB the collection must have freed.
    expect(before - after).toBeGreaterThan(10_000_000);
    // A plain full collection keeps their pages (about 35 MB committed beyond what is used, measured
    // here); the last-resort one hands them back.
    expect(committedAfter - after).toBeLessThan(12_000_000);
    expect(gc).toBe('undefined');
  });
});
