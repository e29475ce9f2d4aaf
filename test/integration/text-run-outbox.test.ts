import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, type CliIO } from '../../src/cli/index.ts';

const REPO = resolve(import.meta.dirname, '../..');
let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'mivas-text-outbox-'));
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

function cli(snapshotDir: string): { io: CliIO; err: string[] } {
  const err: string[] = [];
  const io: CliIO = {
    stdout: { write: () => true },
    stderr: { write: (t: string) => err.push(t) },
    env: { MIVAS_DATA_DIR: dir, MIVAS_SNAPSHOT_DIR: snapshotDir, MIVAS_PACKS_DIR: join(REPO, 'packs'), MIVAS_MIGRATIONS_DIR: join(REPO, 'migrations'), MIVAS_LOG_LEVEL: 'silent' },
    cwd: dir,
  };
  return { io, err };
}

const summariesIn = (folder: string): string[] => (existsSync(folder) ? readdirSync(folder).filter((n) => n.endsWith('.summary.json')) : []);

describe('mivas run --mode text writes through the durable outbox (architecture.md §9)', () => {
  it('keeps a set the store refused in the spool, says so, and the next run uploads it', async () => {
    // A snapshot "directory" that is a file: every put fails, as an unreachable store would.
    const blocked = join(dir, 'not-a-directory');
    writeFileSync(blocked, 'x');
    const first = cli(blocked);
    await runCli(['run', '--mode', 'text', '--pack', 'healthcare', '--harness', 'text/scripted', '--task', 'C1-E1', '--trials', '1'], first.io);
    const spooled = summariesIn(join(dir, 'spool', 'healthcare'));
    expect(spooled).toHaveLength(1);
    expect(first.err.join('')).toMatch(/1 snapshot sets are spooled but not uploaded yet; mivas run --resume run_[0-9a-f]+ uploads them/);

    const store = join(dir, 'snapshots');
    const second = cli(store);
    const code = await runCli(['run', '--mode', 'text', '--pack', 'healthcare', '--harness', 'text/scripted', '--task', 'C1-E2', '--trials', '1'], second.io);
    expect(code, second.err.join('')).toBe(0);
    expect(summariesIn(join(store, 'healthcare'))).toEqual(expect.arrayContaining(spooled));
    expect(summariesIn(join(store, 'healthcare'))).toHaveLength(2);
    expect(summariesIn(join(dir, 'spool', 'healthcare'))).toEqual([]);
  }, 120_000);
});
