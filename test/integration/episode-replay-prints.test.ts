import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { replayPrints, type ReplayPrint } from '../support/episode-replays.ts';

/**
 * The episode hot path may be made faster, never different: the fixture holds the sha256 of every
 * snapshot part and every scored result of a fixed replay (test/support/episode-replays.ts),
 * computed with the episode code as it was before the desk's speed work (docs/performance.md
 * "RL episodes"). A changed byte in any snapshot file or reward shows here.
 */
const FIXTURE = resolve(import.meta.dirname, '../fixtures/episode-replay-prints.json');

describe('replayed text episodes', () => {
  it('write the same snapshot bytes and score the same results as before the speed work', async () => {
    const expected = JSON.parse(readFileSync(FIXTURE, 'utf8')) as Record<string, ReplayPrint>;
    const prints = await replayPrints();
    expect(Object.keys(prints).length).toBe(18);
    expect(prints).toEqual(expected);
  }, 120_000);
});
