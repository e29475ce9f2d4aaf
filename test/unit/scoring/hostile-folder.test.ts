import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../../src/cli/index.ts';
import { ERROR_CATALOG } from '../../../src/core/index.ts';
import type { Pack } from '../../../src/packs/index.ts';
import { loadControlPack, PACKS_DIR, writeSnapshotFiles } from '../../support/scoring-fixtures.ts';
import { replayWorkspace, S_E1_ROUTE, type ReplayWorkspace } from '../../support/scoring-replay.ts';

// The scorer reads only regular files inside its folder (docs/scoring.md "What the scorer reads"):
// each hostile entry below is skipped and named on stderr, the rest is scored, nothing hangs.

let pack: Pack;
let ws: ReplayWorkspace;
let dir: string;

async function score(snapshots: string): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const io = { stdout: { write: (t: string) => out.push(t) }, stderr: { write: (t: string) => err.push(t) }, env: {}, cwd: dir };
  const code = await runCli(['score', '--snapshots', snapshots, '--out', join(dir, 'out', snapshots), '--packs-dir', PACKS_DIR, '--bootstrap', '50', '--fast'], io);
  return { code, out: out.join(''), err: err.join('') };
}

/** Every hostile thing the fault probe put in a folder, under `<root>/<pack>/`. */
function plantHostile(root: string, outside: string): void {
  const p = join(root, pack.id);
  mkdirSync(p, { recursive: true });
  symlinkSync('/dev/zero', join(p, 'c_zero.summary.json'));
  symlinkSync(join(outside, 'stolen.summary.json'), join(p, 'c_out.summary.json'));
  symlinkSync(join(p, 'nothing-here.json'), join(p, 'c_dangle.timeline.json'));
  execFileSync('mkfifo', [join(p, 'c_fifo.summary.json')]);
  writeFileSync(join(p, 'c_huge.db'), '');
  truncateSync(join(p, 'c_huge.db'), 3 * 1024 ** 3);
  symlinkSync(outside, join(root, 'linked-pack'));
}

beforeAll(async () => {
  pack = await loadControlPack();
  ws = replayWorkspace(pack);
  dir = mkdtempSync(join(tmpdir(), 'mivas-hostile-'));
  const outside = join(dir, 'outside');
  const clean = ws.replay(S_E1_ROUTE, { callId: 'c_ok', taskId: 'S-E1' });
  writeSnapshotFiles(outside, pack.id, 'c_ok', clean);
  cpSync(join(outside, pack.id, 'c_ok.summary.json'), join(outside, 'stolen.summary.json'));
  // mixed: one good set, a mislabelled copy of it (its summary says c_ok), and every hostile entry.
  writeSnapshotFiles(join(dir, 'mixed'), pack.id, 'c_ok', clean);
  writeSnapshotFiles(join(dir, 'mixed'), pack.id, 'c_copy', clean);
  plantHostile(join(dir, 'mixed'), outside);
  plantHostile(join(dir, 'only-hostile'), outside);
}, 60_000);
afterAll(() => {
  ws.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('mivas score on a hostile folder', () => {
  it('skips and names each hostile entry with its reason and scores the rest, without hanging', async () => {
    const started = Date.now();
    const r = await score('mixed');
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/1 conversation\(s\): 1 pass/);
    const lines = r.err.trim().split('\n');
    const reasonOf = (key: string): string | undefined => lines.find((l) => l.startsWith(`mivas score: skipped ${key}: `));
    expect(reasonOf(`${pack.id}/c_zero.summary.json`)).toContain('out of the folder (to /dev/zero)');
    expect(reasonOf(`${pack.id}/c_out.summary.json`)).toContain('out of the folder');
    expect(reasonOf(`${pack.id}/c_dangle.timeline.json`)).toContain('dangling');
    expect(reasonOf(`${pack.id}/c_fifo.summary.json`)).toContain('a FIFO');
    expect(reasonOf(`${pack.id}/c_huge.db`)).toContain(`${3 * 1024 ** 3} bytes, over the ${256 * 1024 * 1024}-byte cap`);
    expect(reasonOf('linked-pack/')).toContain('out of the folder');
    expect(reasonOf(`${pack.id}/c_copy.*`)).toContain('mislabelled set: its summary is call "c_ok", not c_copy');
    // Each key is named once, though the folder is listed twice (sets, then callers' records).
    expect(lines.length).toBe(new Set(lines).size);
    expect(lines).toHaveLength(7);
    const scores = JSON.parse(readFileSync(join(dir, 'out', 'mixed', 'scores.json'), 'utf8')) as { conversations: { conversation_id: string; status: string }[] };
    expect(scores.conversations.map((c) => [c.conversation_id, c.status])).toEqual([['c_ok', 'PASS']]);
  });

  it('exits 3 with SNAPSHOTS_UNREADABLE when nothing scoreable is left', async () => {
    expect(readdirSync(join(dir, 'only-hostile', pack.id)).length).toBe(5);
    const r = await score('only-hostile');
    expect(r.code).toBe(3);
    expect(ERROR_CATALOG.SNAPSHOTS_UNREADABLE.exit).toBe(3);
    expect(r.err).toMatch(/nothing scoreable under .*only-hostile: all 6 files or sets found were skipped/);
  });
});
