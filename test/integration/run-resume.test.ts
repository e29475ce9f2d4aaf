/**
 * Issue 29: a run killed with SIGKILL is finished by `mivas run --resume RUN`, which first uploads
 * what the killed process left in the local spool, then plays exactly the task × trials the run
 * lacks. Real processes (bin/mivas.js), a real in-process server each time, loopback only.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/index.ts';

const PACK = 'control-industry';
const TRIALS = 4;
const TASKS = ['S-E1', 'S-E2', 'S-E3'];
const PARTS = ['summary.json', 'timeline.json', 'final.json', 'db', 'wav'];

const dataDir = mkdtempSync(join(tmpdir(), 'mivas-resume-'));
const snapshots = join(dataDir, 'snapshots');
const { MIVAS_SNAPSHOT_BUCKET: _bucket, ...inherited } = process.env;
const env: Record<string, string | undefined> = { ...inherited, MIVAS_DATA_DIR: dataDir, MIVAS_SNAPSHOT_DIR: snapshots, MIVAS_LOG_LEVEL: 'warn' };

afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

function mivas(args: readonly string[]): { child: ReturnType<typeof spawn>; out: string[]; done: Promise<number | null> } {
  const child = spawn(process.execPath, ['bin/mivas.js', ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  const out: string[] = [];
  child.stdout?.on('data', (b: Buffer) => out.push(b.toString('utf8')));
  child.stderr?.on('data', (b: Buffer) => out.push(b.toString('utf8')));
  const done = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, out, done };
}

function summaries(): string[] {
  const dir = join(snapshots, PACK);
  return existsSync(dir) ? readdirSync(dir).filter((n) => n.endsWith('.summary.json')) : [];
}

function cli(): { io: Parameters<typeof runCli>[1]; out: string[]; err: string[] } {
  const out: string[] = [];
  const err: string[] = [];
  return { io: { stdout: { write: (t: string) => out.push(t) }, stderr: { write: (t: string) => err.push(t) }, env, cwd: process.cwd() }, out, err };
}

describe('mivas run --resume (issue 29)', () => {
  let runId = '';
  let moved = '';

  it('a --fast run killed with SIGKILL after some calls leaves an incomplete run and a spooled snapshot', async () => {
    const first = mivas(['run', '--pack', PACK, '--harness', 'scripted', '--trials', String(TRIALS), '--fast', '--concurrency', '2']);
    const deadline = Date.now() + 60_000;
    while (summaries().length < 3 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 25));
    first.child.kill('SIGKILL');
    expect(await first.done).toBeNull();
    runId = /(run_[0-9a-f]{12}):/.exec(first.out.join(''))?.[1] ?? '';
    expect(runId).not.toBe('');
    const stored = summaries();
    expect(stored.length).toBeGreaterThanOrEqual(3);
    expect(stored.length).toBeLessThan(TASKS.length * TRIALS);
    // One finished call whose snapshot the killed process had spooled but not uploaded yet.
    moved = stored[0]?.replace('.summary.json', '') ?? '';
    mkdirSync(join(dataDir, 'spool', PACK), { recursive: true });
    for (const part of PARTS) renameSync(join(snapshots, PACK, `${moved}.${part}`), join(dataDir, 'spool', PACK, `${moved}.${part}`));
  }, 90_000);

  it('mivas score takes the pack folder and warns about the spooled snapshot it cannot see', async () => {
    const h = cli();
    const code = await runCli(['score', '--snapshots', join(snapshots, PACK), '--run', runId, '--fast', '--out', join(dataDir, 'partial')], h.io);
    // 2 when the kill cut an upload short (parts at the store, the summary still spooled: VOID snapshot_missing for now).
    expect([0, 2], h.out.join('')).toContain(code);
    expect(h.err.join('')).toMatch(/warning: \d+ snapshot\(s\) of control-industry are still in the local spool/);
    expect(h.err.join('')).toContain(`mivas run --resume ${runId} uploads them`);
    const scored = (JSON.parse(readFileSync(join(dataDir, 'partial', 'scores.json'), 'utf8')) as { conversations: { conversation_id: string }[] }).conversations;
    expect(scored.map((c) => c.conversation_id)).not.toContain(moved);
  });

  it('--resume flushes the spool first, then plays exactly the missing task × trials under the same run id', async () => {
    const resumed = mivas(['run', '--resume', runId, '--concurrency', '2']);
    expect(await resumed.done, resumed.out.join('')).toBe(0);
    const text = resumed.out.join('');
    expect(text).toMatch(new RegExp(`${runId}: flushed \\d+ spooled snapshot`));
    const scores = JSON.parse(readFileSync(join(dataDir, 'scores', runId, 'scores.json'), 'utf8')) as { conversations: { conversation_id: string; task_id: string; status: string; run_id: string }[] };
    const conversations = scores.conversations;
    expect(conversations.map((c) => c.conversation_id)).toContain(moved);
    expect(new Set(conversations.map((c) => c.run_id))).toEqual(new Set([runId]));
    // Every task × trial scored exactly once: TRIALS passes per task, nothing more, nothing void.
    for (const task of TASKS) expect(conversations.filter((c) => c.task_id === task && c.status === 'PASS')).toHaveLength(TRIALS);
    expect(conversations).toHaveLength(TASKS.length * TRIALS);
    expect(readdirSync(join(dataDir, 'spool', PACK)).filter((n) => n.endsWith('.summary.json'))).toEqual([]);
    // A second resume finds nothing to play.
    const again = mivas(['run', '--resume', runId]);
    expect(await again.done).toBe(0);
    expect(again.out.join('')).toContain(`${TASKS.length * TRIALS} of ${TASKS.length * TRIALS} task × trial scored; playing the 0 it lacks`);
  }, 120_000);
});
