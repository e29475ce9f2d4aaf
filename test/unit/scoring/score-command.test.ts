import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../../src/cli/index.ts';
import type { Pack } from '../../../src/packs/index.ts';
import { loadControlPack, PACKS_DIR, writeSnapshotFiles } from '../../support/scoring-fixtures.ts';
import { replayWorkspace, S_E1_ROUTE, type ReplayWorkspace } from '../../support/scoring-replay.ts';

let pack: Pack;
let ws: ReplayWorkspace;
let dir: string;

function io() {
  const out: string[] = [];
  const err: string[] = [];
  return { io: { stdout: { write: (t: string) => out.push(t) }, stderr: { write: (t: string) => err.push(t) }, env: {}, cwd: dir }, out, err };
}

async function score(snapshots: string, ...flags: string[]): Promise<{ code: number; out: string; err: string }> {
  const h = io();
  const code = await runCli(['score', '--snapshots', snapshots, '--out', join(dir, 'out', snapshots.replaceAll('/', '_')), '--packs-dir', PACKS_DIR, '--bootstrap', '100', ...flags], h.io);
  return { code, out: h.out.join(''), err: h.err.join('') };
}

beforeAll(async () => {
  pack = await loadControlPack();
  ws = replayWorkspace(pack);
  dir = mkdtempSync(join(tmpdir(), 'mivas-cmd-'));
  const clean = ws.replay(S_E1_ROUTE, { callId: 'c_ok', taskId: 'S-E1' });
  writeSnapshotFiles(join(dir, 'clean'), pack.id, 'c_ok', clean);
  const failing = ws.replay([{ kind: 'hop', to: 'scheduler' }], { callId: 'c_fail', taskId: 'S-E1' });
  cpSync(join(dir, 'clean'), join(dir, 'failing'), { recursive: true });
  writeSnapshotFiles(join(dir, 'failing'), pack.id, 'c_fail', failing);
  const voided = ws.replay(S_E1_ROUTE, { callId: 'c_void', taskId: 'S-E1', greet: false });
  cpSync(join(dir, 'clean'), join(dir, 'voided'), { recursive: true });
  writeSnapshotFiles(join(dir, 'voided'), pack.id, 'c_void', voided);
  cpSync(join(dir, 'failing'), join(dir, 'both'), { recursive: true });
  writeSnapshotFiles(join(dir, 'both'), pack.id, 'c_void', voided);
  writeSnapshotFiles(join(dir, 'badpack'), 'no-such-pack', 'c_x', { ...clean, summary: clean.summary ? { ...clean.summary, pack: 'no-such-pack', call_id: 'c_x' } : null });
});
afterAll(() => {
  ws.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('mivas score exit codes (scoring.md §9)', () => {
  it('0 clean, and the outputs are written', async () => {
    const r = await score('clean');
    expect(r.code).toBe(0);
    expect(r.out).toContain('pass@1 1.000 (n=1 scored; 0 void');
    const outDir = join(dir, 'out', 'clean');
    expect(readFileSync(join(outDir, 'conversations.csv'), 'utf8').split('\n')[0]?.startsWith('run_id,conversation_id')).toBe(true);
    expect(JSON.parse(readFileSync(join(outDir, 'scores.json'), 'utf8')).conversations).toHaveLength(1);
    expect(readFileSync(join(outDir, 'report.html'), 'utf8')).toContain('<!doctype html>');
  });

  it('0 with a FAIL but no --gate; 1 with --gate and a FAIL, naming the gate and reason', async () => {
    expect((await score('failing')).code).toBe(0);
    const r = await score('failing', '--gate');
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/FAIL c_fail S-E1 #\d: state\+tools: state: appointments missing/);
  });

  it('2 with a VOID', async () => {
    const r = await score('voided');
    expect(r.code).toBe(2);
    expect(r.out).toContain('1 void: 1 no_agent_audio');
  });

  it('1 beats 2', async () => {
    expect((await score('both', '--gate')).code).toBe(1);
    expect((await score('both')).code).toBe(2);
  });

  it('3 on a bad pack, bad flags or no snapshots', async () => {
    expect((await score('badpack')).code).toBe(3);
    expect((await score('clean', '--k', 'zero')).code).toBe(3);
    expect((await score('clean', '--nope')).code).toBe(3);
    expect((await score('missing-dir')).code).toBe(3);
    expect((await score('clean', '--mapping', 'missing.csv')).code).toBe(3);
  });
});
