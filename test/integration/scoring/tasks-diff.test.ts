import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../../src/cli/index.ts';
import { loadControlPack, PACKS_DIR, writeSnapshotFiles } from '../../support/scoring-fixtures.ts';
import { replayWorkspace, S_E1_ROUTE } from '../../support/scoring-replay.ts';

let dir: string;

async function diff(args: string[], cwd = dir): Promise<{ code: number; out: string }> {
  let out = '';
  const sink = { write: (s: string) => ((out += s), true) };
  const code = await runCli(['tasks', 'diff', ...args], { stdout: sink, stderr: sink, env: {}, cwd });
  return { code, out };
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'mivas-tasks-diff-'));
  const pack = await loadControlPack();
  const ws = replayWorkspace(pack);
  try {
    writeSnapshotFiles(join(dir, 'snapshots'), pack.id, 'diff_booked', ws.replay(S_E1_ROUTE, { callId: 'diff_booked', taskId: 'S-E1' }));
    writeSnapshotFiles(join(dir, 'snapshots'), pack.id, 'diff_checked', ws.replay([{ kind: 'hop', to: 'scheduler' }, { kind: 'call', name: 'check_date', parameters: { date: '2026-10-09' } }], { callId: 'diff_checked', taskId: 'S-E3' }));
  } finally {
    ws.close();
  }
  // "Before": the same suite except that S-E1 then expected another date.
  cpSync(PACKS_DIR, join(dir, 'old', 'packs'), { recursive: true });
  cpSync(join(PACKS_DIR, '..', 'migrations'), join(dir, 'old', 'migrations'), { recursive: true });
  // Another checkout's packs dir: pack code imports the kit by relative path.
  for (const name of ['src', 'node_modules']) symlinkSync(join(PACKS_DIR, '..', name), join(dir, 'old', name), 'dir');
  const file = join(dir, 'old', 'packs', 'control-industry', 'tasks', 'S-E1.json');
  writeFileSync(file, readFileSync(file, 'utf8').replaceAll('2026-10-07', '2026-10-08'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('mivas tasks diff (issue 18)', () => {
  it('lists the conversation whose verdict flips between the suites, and only that one', async () => {
    const { code, out } = await diff(['--snapshots', join(dir, 'snapshots'), '--before-packs', join(dir, 'old', 'packs'), '--packs-dir', PACKS_DIR]);
    expect(code).toBe(0);
    expect(out).toMatch(/^diff_booked \(S-E1\): FAIL 0\.\d+ → PASS 1\.000$/m);
    expect(out).not.toMatch(/diff_checked/);
    expect(out).toMatch(/^1 of 2 conversations flip$/m);
  });

  it('reads the suite of a git ref', async () => {
    const { code, out } = await diff(['--snapshots', join(dir, 'snapshots'), '--before-ref', 'HEAD', '--packs-dir', PACKS_DIR], join(PACKS_DIR, '..'));
    expect([code, out.trim().split('\n').at(-1)]).toEqual([0, '0 of 2 conversations flip']);
  });

  it('exits 1 with --fail-on-flip, 0 when the suites agree, 3 on usage errors', async () => {
    expect((await diff(['--snapshots', join(dir, 'snapshots'), '--before-packs', join(dir, 'old', 'packs'), '--packs-dir', PACKS_DIR, '--fail-on-flip'])).code).toBe(1);
    const same = await diff(['--snapshots', join(dir, 'snapshots'), '--before-packs', PACKS_DIR, '--packs-dir', PACKS_DIR, '--fail-on-flip']);
    expect([same.code, same.out.trim()]).toEqual([0, '0 of 2 conversations flip']);
    expect((await diff(['--snapshots', join(dir, 'snapshots')])).code).toBe(3);
  });
});
