import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';

/** The relay as players run it (Node strips its types), with a bounded wait. */
function relay(...args: string[]): { code: number | null; stdout: string; stderr: string } {
  const out = spawnSync(process.execPath, [resolve('scripts/model-relay.ts'), ...args], { encoding: 'utf8', timeout: 20_000 });
  return { code: out.status, stdout: out.stdout, stderr: out.stderr };
}

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('scripts/model-relay.ts', () => {
  it('prints its usage on --help (stdout, exit 0) and on a bad flag or command (stderr, exit 2)', () => {
    const help = relay('--help');
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('usage: npx tsx scripts/model-relay.ts <command>');
    expect(help.stdout).toContain('lane   --lane L');
    const bad = relay('next', '--dir', '/tmp/x', '--bogus');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("Unknown option '--bogus'");
    expect(bad.stderr).toContain('usage:');
    expect(relay('fly', '--dir', '/tmp/x').stderr).toContain('unknown command "fly"');
  });

  it('marks a lane done when its run ends, so a player waiting on it stops at once', () => {
    const dir = mkdtempSync(join(tmpdir(), 'relay-'));
    dirs.push(dir);
    const run = relay('lane', '--dir', dir, '--lane', 'L1', '--', process.execPath, '-e', 'process.exit(process.env.MIVAS_POLICY_BASE_URL.endsWith("/agent/L1/v1") ? 3 : 9)');
    expect(run.code).toBe(3);
    expect(JSON.parse(readFileSync(join(dir, 'done-L1'), 'utf8'))).toEqual({ lane: 'L1', exit_code: 3 });
    const waited = relay('next', '--dir', dir, '--watch', 'agent:L1', '--wait', '30');
    expect(waited.stdout).toContain('NO MORE CONVERSATIONS');
    expect(existsSync(join(dir, 'done-L2'))).toBe(false);
    expect(relay('next', '--dir', dir, '--watch', 'agent:L2', '--wait', '0').stdout).toContain('nothing yet');
  });
});
