import { describe, expect, it } from 'vitest';
import { runCli } from '../../../src/cli/index.ts';
import { withoutCredentials } from '../../../src/cli/probe-command.ts';
import { passK } from '../../../src/cli/run-command.ts';

async function cli(argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runCli(argv, { stdout: { write: (s: string) => ((out += s), true) }, stderr: { write: (s: string) => ((err += s), true) }, env: {}, cwd: process.cwd() });
  return { code, out, err };
}

describe('the CLI surface (issue 15)', () => {
  it.each([['run'], ['call'], ['play'], ['tasks'], ['serve'], ['probe'], ['preflight'], ['bluejay'], ['packs', 'generate'], ['packs', 'pronounce'], ['tasks', 'list'], ['tasks', 'lock'], ['tasks', 'validate'], ['tasks', 'diff'], ['score'], ['report'], ['check']])('%s %s --help: usage on stdout, exit 0', async (...command) => {
    const { code, out, err } = await cli([...command.filter(Boolean), '--help']);
    expect([code, err]).toEqual([0, '']);
    expect(out).toMatch(new RegExp(`usage:[\\s\\S]*mivas ${command[0]}`));
  });

  it('answers --version, help and help <command> on stdout with exit 0', async () => {
    expect(await cli(['--version'])).toMatchObject({ code: 0, out: expect.stringMatching(/^mivas \d+\.\d+\.\d+ \(node v\d+/) });
    expect(await cli(['help'])).toMatchObject({ code: 0, out: expect.stringContaining('tasks diff') });
    expect(await cli(['help', 'tasks', 'lock'])).toMatchObject({ code: 0, out: expect.stringContaining('usage: mivas tasks lock') });
  });

  it('names an unknown command and exits 3', async () => {
    const { code, err } = await cli(['frobnicate']);
    expect(code).toBe(3);
    expect(err).toMatch(/^mivas: unknown command "frobnicate"/);
  });

  it('names what is wrong: an unknown pack lists the packs there, a missing flag is called required', async () => {
    const pack = await cli(['tasks', 'list', '--pack', 'nope']);
    expect(pack.code).toBe(3);
    expect(pack.err).toMatch(/pack "nope" not found under .*; the packs there: control-industry, customer-support, finance, healthcare, legal, travel/);
    const score = await cli(['score']);
    expect(score.code).toBe(3);
    expect(score.err).toMatch(/^mivas score: --snapshots is required$/m);
  });

  it('scores a run at the k its trials allow: pass^5 as usual, pass^k for fewer trials', () => {
    expect([1, 2, 4, 5, 9].map(passK)).toEqual([1, 2, 4, 5, 5]);
  });

  it('never prints credentials of a probe URL', () => {
    expect(withoutCredentials('ws://alice:s3cret@host:8765/probe')).toBe('ws://***:***@host:8765/probe');
    expect(withoutCredentials('wss://host/probe')).toBe('wss://host/probe');
  });
});
