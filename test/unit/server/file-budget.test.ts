import { describe, expect, it } from 'vitest';
import { deriveCaps, filesRunningOut, openFileCount, openFileLimit } from '../../../src/server/file-budget.ts';

const LIMITS = `Limit                     Soft Limit           Hard Limit           Units
Max cpu time              unlimited            unlimited            seconds
Max open files            1024                 524288               files
Max locked memory         8388608              8388608              bytes
`;
const WANTED = { calls: 100, scratch: 1024, episodes: 256, openEnvSockets: 256 };

describe('the open-file budget', () => {
  it('reads the soft "Max open files" limit, and nothing when it is unknown or unlimited', () => {
    expect(openFileLimit(() => LIMITS)).toBe(1024);
    expect(openFileLimit(() => LIMITS.replace('1024      ', 'unlimited '))).toBeNull();
    expect(openFileLimit(() => 'no such line')).toBeNull();
    expect(openFileLimit(() => {
      throw new Error('ENOENT');
    })).toBeNull();
  });

  it('reads this process: a limit above the handles it holds', () => {
    if (process.platform !== 'linux') return;
    const limit = openFileLimit();
    const open = openFileCount();
    expect(limit).toBeGreaterThan(0);
    expect(open).toBeGreaterThan(2);
    expect(open).toBeLessThan(limit ?? 0);
  });

  it.each([256, 1024, 4096])('keeps every cap within its share of a %i-file limit, so the handles they hold cannot run out', (limit) => {
    const caps = deriveCaps(limit, WANTED);
    // What the caps can hold at worst (call 6, scratch 2, episode 2, socket 1) stays under the limit with room for HTTP connections.
    const worst = caps.calls * 6 + caps.scratch * 2 + caps.episodes * 2 + caps.openEnvSockets;
    expect(worst).toBeLessThanOrEqual(limit * 0.8);
    for (const key of ['calls', 'scratch', 'episodes', 'openEnvSockets'] as const) {
      expect(caps[key]).toBeGreaterThanOrEqual(1);
      expect(caps[key]).toBeLessThanOrEqual(WANTED[key]);
    }
    expect(caps.scratch).toBeLessThan(limit);
  });

  it('keeps the configured caps when the limit is large or unknown', () => {
    expect(deriveCaps(1_048_576, WANTED)).toEqual({ fileLimit: 1_048_576, ...WANTED });
    expect(deriveCaps(null, WANTED)).toEqual({ fileLimit: null, ...WANTED });
  });

  it('says the files are running out in the last sixteenth of the limit (at least 32 handles)', () => {
    expect(filesRunningOut(900, 1024)).toBe(false);
    expect(filesRunningOut(960, 1024)).toBe(true);
    expect(filesRunningOut(220, 256)).toBe(false);
    expect(filesRunningOut(224, 256)).toBe(true);
    expect(filesRunningOut(null, 1024)).toBe(false);
    expect(filesRunningOut(5000, null)).toBe(false);
  });
});
