import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { pythonSmoke } from '../../scripts/rl-python-smoke.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const hasPython = spawnSync('python3', ['--version']).status === 0;

describe.skipIf(!hasPython)('the stdlib Python client (examples/python)', () => {
  it.each(['header', 'url'] as const)('runs one episode end to end against the server and the chat stand-in, the token in the %s: reward 1', async (tokenIn) => {
    const result = await pythonSmoke(undefined, tokenIn);
    expect(result.code, result.stderr).toBe(0);
    expect(result.verdict).toMatchObject({ reward: 1, status: 'PASS', reward_components: { state: 1, tools: 1, handoff: 1, route: 1 } });
  }, 120_000);

  it('compiles the TRL wrapper (it is not run here: TRL is not installed)', () => {
    const compiled = spawnSync('python3', ['-c', 'import ast, sys; [ast.parse(open(f).read(), f) for f in sys.argv[1:]]', 'examples/python/trl_env.py', 'examples/python/mivas_episode.py'], { cwd: ROOT, encoding: 'utf8' });
    expect(compiled.status, compiled.stderr).toBe(0);
  });
});
