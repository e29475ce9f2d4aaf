import { describe, expect, it } from 'vitest';
import { missingServeFlags, SERVE_NODE_FLAGS } from '../../../src/server/index.ts';

describe('serve node flags', () => {
  it('names the flags a process lacks and none once it has them', () => {
    expect(SERVE_NODE_FLAGS.length).toBeGreaterThan(0);
    expect(missingServeFlags(['--import', 'tsx'])).toEqual([...SERVE_NODE_FLAGS]);
    expect(missingServeFlags(['--import', 'tsx', ...SERVE_NODE_FLAGS])).toEqual([]);
  });
});
