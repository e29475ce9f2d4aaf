import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Pack } from '../../../src/packs/index.ts';
import { directorySource, loadSnapshots, scoreConversation } from '../../../src/scoring/index.ts';
import { loadControlPack, writeSnapshotFiles } from '../../support/scoring-fixtures.ts';
import { replayWorkspace, S_E1_ROUTE, type ReplayWorkspace } from '../../support/scoring-replay.ts';

let pack: Pack;
let ws: ReplayWorkspace;
let dir: string;
beforeAll(async () => {
  pack = await loadControlPack();
  ws = replayWorkspace(pack);
  dir = mkdtempSync(join(tmpdir(), 'mivas-src-'));
});
afterAll(() => {
  ws.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('snapshot sources (scoring.md §2.1)', () => {
  it('falls back to the .db when the final-state JSON is unparseable', async () => {
    const call = ws.replay(S_E1_ROUTE, { callId: 'fb1', taskId: 'S-E1' });
    writeSnapshotFiles(dir, pack.id, 'fb1', { ...call, finalText: '{"appointments": [', db: call.db });
    const [loaded] = await loadSnapshots(directorySource(dir));
    expect(loaded?.finalFrom).toBe('db');
    expect(loaded?.problems).toEqual([]);
    const v = scoreConversation({ conversationId: 'fb1', snapshot: loaded ?? null, entry: undefined, packHint: null }, { packs: new Map([[pack.id, pack]]), minCallMs: 20_000, allowPackDrift: false });
    expect(v.status).toBe('PASS');
  });

  it('reports missing parts and ignores unrelated files', async () => {
    const sub = join(dir, 'partial');
    const call = ws.replay(S_E1_ROUTE, { callId: 'p1', taskId: 'S-E1' });
    writeSnapshotFiles(sub, pack.id, 'p1', { summary: call.summary, final: call.final });
    writeSnapshotFiles(sub, pack.id, 'README', {});
    const loaded = await loadSnapshots(directorySource(sub));
    expect(loaded.map((l) => [l.callId, l.problems])).toEqual([['p1', ['missing:timeline.json']]]);
  });

  it('a missing directory is an input error', async () => {
    await expect(loadSnapshots(directorySource(join(dir, 'nope')))).rejects.toThrow(/does not exist/);
  });
});
