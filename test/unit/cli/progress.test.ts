import { describe, expect, it } from 'vitest';
import { clockText, ProgressBar } from '../../../src/cli/progress.ts';

describe('the progress line', () => {
  it('shows elapsed time, an ETA from the mean step and a tally of outcomes', () => {
    let now = 0;
    const lines: string[] = [];
    const bar = new ProgressBar({ write: (t: string) => lines.push(t) }, 4, 'run_x', () => now);
    now = 30_000;
    bar.tick('C1-E1#1 PASS', 'PASS');
    now = 60_000;
    bar.tick('C1-E2#1 FAIL', 'FAIL');
    expect(lines).toEqual(['[1/4] C1-E1#1 PASS · 0:30 elapsed, ETA 1:30 · 1 PASS\n', '[2/4] C1-E2#1 FAIL · 1:00 elapsed, ETA 1:00 · 1 PASS 1 FAIL\n']);
    now = 120_000;
    bar.tick('C1-H1#1 PASS', 'PASS');
    bar.tick('C1-H2#1 VOID', 'VOID');
    expect(lines.at(-1)).toBe('[4/4] C1-H2#1 VOID · 2:00 elapsed · 2 PASS 1 FAIL 1 VOID\n');
    expect(bar.counts()).toMatchObject({ done: 4, total: 4 });
  });

  it('writes hours past an hour', () => {
    expect(clockText(3_723_000)).toBe('1:02:03');
    expect(clockText(59_400)).toBe('0:59');
  });
});
