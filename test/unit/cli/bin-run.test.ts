/**
 * Issue 29: the README's two commands bring their own Node. What can be checked without installing
 * anything: the commands the README gives, that CI sets up through the same script, that a plain
 * `npm ci` on an older Node names bin/ensure-node.sh (npm prints the whole `engines` object in its
 * EBADENGINE error), and bin/run's own usage. The full path (a fresh clone, node 20 first on PATH,
 * an empty Node cache) is run by hand; docs/decisions.md says why it is not a unit test.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const read = (file: string): string => readFileSync(file, 'utf8');

describe('bin/run: the README commands on any Node', () => {
  it('the README gives bin/run demo and bin/run test, and .ci/run sets up through bin/run', () => {
    const readme = read('README.md');
    expect(readme).toMatch(/```sh\nbin\/run demo\n```/);
    expect(readme).toMatch(/```sh\nbin\/run test\n```/);
    expect(read('.ci/run')).toContain('node_env="$(bin/run --env)"');
    expect(read('.ci/run')).not.toMatch(/^npm ci/m);
  });

  it('npm ci on an older Node fails on engines (engine-strict) with an entry naming bin/ensure-node.sh, the same in the lockfile', () => {
    expect(read('.npmrc')).toMatch(/^engine-strict=true$/m);
    const engines = (JSON.parse(read('package.json')) as { engines: Record<string, string> }).engines;
    expect(engines['older-node']).toContain('bin/ensure-node.sh');
    expect(engines.node).toBe(`>=${read('.node-version').trim().split('.').slice(0, 2).join('.')}`);
    const lock = JSON.parse(read('package-lock.json')) as { packages: Record<string, { engines?: unknown }> };
    expect(lock.packages['']?.engines).toEqual(engines);
  });

  it('bin/run without a script prints its usage and exits 3; --help exits 0 (before touching Node or npm)', () => {
    const none = spawnSync('bash', ['bin/run'], { encoding: 'utf8', timeout: 10_000 });
    expect(none.status).toBe(3);
    expect(none.stderr).toContain('usage: bin/run SCRIPT');
    const help = spawnSync('bash', ['bin/run', '--help'], { encoding: 'utf8', timeout: 10_000 });
    expect(help.status).toBe(0);
    expect(help.stderr).toContain('eval "$(bin/run --env)"');
  });
});
