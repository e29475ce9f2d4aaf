import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../../src/cli/index.ts';
import { loadControlPack, PACKS_DIR, writeSnapshotFiles } from '../../support/scoring-fixtures.ts';
import { replayWorkspace, S_E1_ROUTE } from '../../support/scoring-replay.ts';

let dir: string;

async function cli(args: string[]): Promise<{ code: number; out: string }> {
  let out = '';
  const sink = { write: (s: string) => ((out += s), true) };
  const code = await runCli(args, { stdout: sink, stderr: sink, env: { MIVAS_DATA_DIR: dir }, cwd: dir });
  return { code, out };
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'mivas-flip-view-'));
  const pack = await loadControlPack();
  const ws = replayWorkspace(pack);
  try {
    writeSnapshotFiles(join(dir, 'snapshots'), pack.id, 'flip_booked', ws.replay(S_E1_ROUTE, { callId: 'flip_booked', taskId: 'S-E1' }));
    writeSnapshotFiles(join(dir, 'snapshots'), pack.id, 'flip_checked', ws.replay([{ kind: 'hop', to: 'scheduler' }, { kind: 'call', name: 'check_date', parameters: { date: '2026-10-09' } }], { callId: 'flip_checked', taskId: 'S-E3' }));
  } finally {
    ws.close();
  }
  // "Before": the same suite, except that S-E1 then expected another date.
  cpSync(PACKS_DIR, join(dir, 'old', 'packs'), { recursive: true });
  cpSync(join(PACKS_DIR, '..', 'migrations'), join(dir, 'old', 'migrations'), { recursive: true });
  for (const name of ['src', 'node_modules']) symlinkSync(join(PACKS_DIR, '..', name), join(dir, 'old', name), 'dir');
  const file = join(dir, 'old', 'packs', 'control-industry', 'tasks', 'S-E1.json');
  writeFileSync(file, readFileSync(file, 'utf8').replaceAll('2026-10-07', '2026-10-08'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the verdict-flip view, fed by mivas tasks diff --out', () => {
  it('keeps both scorings and lists the one flip with the gates that changed', async () => {
    const diff = await cli(['tasks', 'diff', '--snapshots', join(dir, 'snapshots'), '--before-packs', join(dir, 'old', 'packs'), '--packs-dir', PACKS_DIR, '--out', join(dir, 'diff')]);
    expect(diff.code).toBe(0);
    expect(diff.out).toMatch(/^1 of 2 conversations flip$/m);
    const flips = JSON.parse(readFileSync(join(dir, 'diff', 'flips.json'), 'utf8')) as { flips: { conversationId: string }[] };
    expect(flips.flips.map((f) => f.conversationId)).toEqual(['flip_booked']);
    const site = join(dir, 'site');
    const report = await cli(['report', '--scores', join(dir, 'diff', 'after'), '--before', join(dir, 'diff', 'before'), '--out', site, '--snapshots', join(dir, 'snapshots'), '--packs-dir', PACKS_DIR]);
    expect(report.code).toBe(0);
    const page = readFileSync(join(site, 'flips.html'), 'utf8');
    expect(page).toContain('Two scorings of the same 2 conversations');
    expect(page.match(/<tr class="flip /g)).toHaveLength(1);
    expect(page).toContain('<tr class="flip gained" data-conv="flip_booked">');
    expect(page).toMatch(/state fail → pass/);
    expect(page).toContain('href="conv-flip_booked.html"');
    expect(existsSync(join(site, 'conv-flip_booked.html'))).toBe(true);
    // Every page links the view.
    expect(readFileSync(join(site, 'index.html'), 'utf8')).toContain('href="flips.html"');
  });
});
