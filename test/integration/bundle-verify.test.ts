/**
 * Issue 29: a run's result bundle (`mivas export`) re-checks with `mivas verify`: a scripted
 * `--fast` control-industry run verifies, and a bundle whose snapshot or file was edited names what
 * changed and exits 1. In-process CLI, an in-process server on a loopback port, temporary folders.
 */
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/index.ts';

const PACK = 'control-industry';
const dataDir = mkdtempSync(join(tmpdir(), 'mivas-bundle-'));
const env = { MIVAS_DATA_DIR: dataDir, MIVAS_LOG_LEVEL: 'silent' };

async function mivas(args: readonly string[]): Promise<{ code: number; out: string }> {
  const out: string[] = [];
  const sink = { write: (t: string) => out.push(t) };
  const code = await runCli(args, { stdout: sink, stderr: sink, env, cwd: process.cwd() });
  return { code, out: out.join('') };
}

let runId = '';

beforeAll(async () => {
  const run = await mivas(['run', '--pack', PACK, '--harness', 'scripted', '--trials', '2', '--task', 'S-E1', '--task', 'S-E2', '--fast', '--concurrency', '2']);
  expect(run.code, run.out).toBe(0);
  runId = readdirSync(join(dataDir, 'scores'))[0] ?? '';
  expect(runId).toMatch(/^run_/);
}, 90_000);

afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

describe('mivas export / mivas verify', () => {
  it('a bundle with its snapshots re-scores to the same figures', async () => {
    const bundle = join(dataDir, 'bundle-full');
    const exported = await mivas(['export', '--run', runId, '--out', bundle, '--with-snapshots']);
    expect(exported.code, exported.out).toBe(0);
    const manifest = JSON.parse(readFileSync(join(bundle, 'bundle.json'), 'utf8')) as { run_id: string; harnesses: string[]; conversations: number; snapshots: { key: string }[]; files: Record<string, string>; suites: { id: string }[] };
    expect(manifest.run_id).toBe(runId);
    expect(manifest.harnesses).toEqual(['scripted']);
    expect(manifest.conversations).toBe(4);
    expect(manifest.suites.map((s) => s.id)).toEqual([PACK]);
    // Every snapshot file is hashed and every file of the bundle has a checksum.
    expect(manifest.snapshots.filter((s) => s.key.endsWith('.summary.json'))).toHaveLength(4);
    expect(Object.keys(manifest.files)).toEqual(expect.arrayContaining(['scores.json', 'conversations.csv', 'run.json', ...manifest.snapshots.map((s) => `snapshots/${s.key}`)]));
    const verified = await mivas(['verify', bundle]);
    expect(verified.out).toContain('every figure matches');
    expect(verified.code).toBe(0);
  }, 60_000);

  it('a hashes-only bundle verifies against the snapshot store, and an edited snapshot is named', async () => {
    const bundle = join(dataDir, 'bundle-hashes');
    expect((await mivas(['export', '--run', runId, '--out', bundle])).code).toBe(0);
    expect((await mivas(['verify', bundle])).code).toBe(3);
    const copy = join(dataDir, 'copy');
    cpSync(join(dataDir, 'snapshots'), copy, { recursive: true });
    const good = await mivas(['verify', bundle, '--snapshots', copy]);
    expect(good.code, good.out).toBe(0);

    const victim = readdirSync(join(copy, PACK)).filter((n) => n.endsWith('.final.json')).sort()[0] ?? '';
    const callId = victim.replace('.final.json', '');
    // Every table emptied: the database the call left is gone from the evidence.
    const final = JSON.parse(readFileSync(join(copy, PACK, victim), 'utf8')) as Record<string, unknown[]>;
    writeFileSync(join(copy, PACK, victim), JSON.stringify(Object.fromEntries(Object.keys(final).map((t) => [t, []]))));
    const bad = await mivas(['verify', bundle, '--snapshots', copy]);
    expect(bad.code).toBe(1);
    expect(bad.out).toContain(`conversation ${PACK}/${callId}: snapshot differs (${PACK}/${callId}.final.json sha256 differs)`);
    expect(bad.out).not.toContain('every figure matches');
    // Only that conversation is named.
    const named = new Set([...bad.out.matchAll(/conversation (?:[a-z-]+\/)?([A-Za-z0-9_]+)/g)].map((m) => m[1]));
    expect([...named]).toEqual([callId]);
  }, 60_000);

  it('an edited scores.json fails its checksum and its re-score', async () => {
    const bundle = join(dataDir, 'bundle-full');
    const scores = JSON.parse(readFileSync(join(bundle, 'scores.json'), 'utf8')) as { conversations: { conversation_id: string; reward: number | null }[] };
    const first = scores.conversations[0];
    if (!first) throw new Error('no conversation');
    first.reward = 0.25;
    writeFileSync(join(bundle, 'scores.json'), `${JSON.stringify(scores, null, 2)}\n`);
    const verified = await mivas(['verify', bundle]);
    expect(verified.code).toBe(1);
    expect(verified.out).toContain('file scores.json: checksum differs');
    expect(verified.out).toContain(`conversation ${first.conversation_id}: verdict differs on re-scoring`);
  }, 60_000);
});
