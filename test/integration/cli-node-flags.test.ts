import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

/**
 * `mivas score` needs a Node flag V8 reads only at start-up (16 MB semi-spaces: 190 MB peak
 * against 300 MB on large corpora, docs/performance.md). `bin/mivas.js` starts itself again with
 * it when it is missing. A preload (NODE_OPTIONS, inherited by the child) prints each Node
 * process's flags, so the test sees which process scored and with what.
 */
const ROOT = resolve(import.meta.dirname, '../..');
const dir = mkdtempSync(join(tmpdir(), 'mivas-node-flags-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const PROBE = `process.stderr.write('NODE_FLAGS ' + JSON.stringify(process.execArgv.filter((a) => a.startsWith('--max-semi'))) + '\\n');`;

function cli(nodeFlags: readonly string[], argv: readonly string[]): Promise<{ code: number | null; stderr: string }> {
  const child = spawn(process.execPath, [...nodeFlags, join(ROOT, 'bin/mivas.js'), ...argv], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', MIVAS_LOG_LEVEL: 'silent', NODE_OPTIONS: `--import=data:text/javascript,${encodeURIComponent(PROBE)}` },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((done) => child.on('close', (code) => done({ code, stderr })));
}

const flagLines = (stderr: string): string[][] => [...stderr.matchAll(/^NODE_FLAGS (.*)$/gm)].map((m) => JSON.parse(m[1] ?? '[]') as string[]);

describe('bin/mivas.js: start-up flags per command', () => {
  it('score without the flag starts itself again with it, and its exit status and message come through once', async () => {
    const { code, stderr } = await cli([], ['score', '--snapshots', dir, '--out', join(dir, 'out')]);
    expect(flagLines(stderr)).toEqual([[], ['--max-semi-space-size=16']]);
    expect(code).toBe(3);
    expect(stderr.match(/no snapshots found/g)).toHaveLength(1);
  }, 60_000);

  it('score given the flag (any value) runs in the same process', async () => {
    const { code, stderr } = await cli(['--max-semi-space-size=32'], ['score', '--snapshots', dir, '--out', join(dir, 'out')]);
    expect(flagLines(stderr)).toEqual([['--max-semi-space-size=32']]);
    expect(code).toBe(3);
  }, 60_000);

  it('other commands run in the same process', async () => {
    const { code, stderr } = await cli([], ['tasks', 'list', '--pack', 'control-industry']);
    expect(flagLines(stderr)).toEqual([[]]);
    expect(code).toBe(0);
  }, 60_000);
});
