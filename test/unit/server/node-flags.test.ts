import { describe, expect, it } from 'vitest';
import { missingServeFlags, SERVE_NODE_FLAGS } from '../../../src/server/index.ts';

describe('serve node flags', () => {
  it('names the flags a process lacks and none once it has them', () => {
    expect(SERVE_NODE_FLAGS.length).toBeGreaterThan(0);
    expect(missingServeFlags(['--import', 'tsx'])).toEqual([...SERVE_NODE_FLAGS]);
    expect(missingServeFlags(['--import', 'tsx', ...SERVE_NODE_FLAGS])).toEqual([]);
  });
});

describe('collectBootGarbage', () => {
  it('collects the garbage of a process started without --expose-gc, and leaves gc unexposed', async () => {
    const { execFileSync } = await import('node:child_process');
    const server = new URL('../../../src/server/node-flags.ts', import.meta.url).pathname;
    const out = execFileSync(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `const { collectBootGarbage } = await import(${JSON.stringify(server)});
         let junk = Array.from({ length: 200 }, (_, i) => new Array(12_500).fill(i + 0.5));
         junk = null;
         const before = process.memoryUsage().heapUsed;
         collectBootGarbage();
         console.log(JSON.stringify({ before, after: process.memoryUsage().heapUsed, gc: typeof globalThis.gc }));`,
      ],
      { encoding: 'utf8', timeout: 60_000 },
    );
    const { before, after, gc } = JSON.parse(out) as { before: number; after: number; gc: string };
    // 200 arrays of 12,500 doubles (100 kB each) were garbage: about 20 MB the collection must have freed.
    expect(before - after).toBeGreaterThan(10_000_000);
    expect(gc).toBe('undefined');
  });
});
