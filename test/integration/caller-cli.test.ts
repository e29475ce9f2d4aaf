import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/index.ts';
import { callerFileSchema } from '../../src/snapshot/index.ts';
import { OpenAICompatibleStandIn } from '../support/openai-compatible.ts';

function capture(): { write(text: string): boolean; text: () => string } {
  let out = '';
  return { write: (t: string) => ((out += t), true), text: () => out };
}

/** `mivas run --caller llm` end to end through the CLI: flags, caller.json beside each snapshot, the caller's own usage line, shards. */
describe('mivas run with the llm caller (CLI)', () => {
  let standIn: OpenAICompatibleStandIn;
  let dataDir: string;
  beforeAll(async () => {
    standIn = await OpenAICompatibleStandIn.start();
    dataDir = mkdtempSync(join(tmpdir(), 'mivas-caller-cli-'));
  });
  afterAll(async () => {
    await standIn?.close();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  const run = async (args: readonly string[]): Promise<{ code: number; stdout: string; stderr: string }> => {
    const stdout = capture();
    const stderr = capture();
    const env = { MIVAS_DATA_DIR: dataDir, MIVAS_LOG_LEVEL: 'silent', MIVAS_CALLER_BASE_URL: standIn.baseUrl, MIVAS_CALLER_API_KEY: 'sk-caller', MIVAS_CALLER_MODEL: 'caller-standin', MIVAS_CALLER_PRICE_INPUT: '0.4', MIVAS_CALLER_PRICE_OUTPUT: '1.6' };
    const code = await runCli(['run', ...args], { stdout, stderr, env, cwd: process.cwd() });
    return { code, stdout: stdout.text(), stderr: stderr.text() };
  };

  it('dials shard 1 of 2 with one run id, writes caller.json next to the snapshot, and reports the caller apart', async () => {
    const result = await run(['--pack', 'control-industry', '--harness', 'scripted', '--trials', '1', '--fast', '--task', 'S-E1', '--task', 'S-E2', '--caller', 'llm', '--shard', '1/2', '--run-id', 'run_shardtest01']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^run_shardtest01: 1 calls \(2 tasks × 1, shard 1\/2\) on control-industry with scripted, caller llm/m);
    expect(result.stdout).toMatch(/caller llm: 1 calls, \d+ chat requests \(0 cached\), \d+ tokens, [\d.]+ s transcribed, 0 characters spoken; \$[\d.]+/);
    const dir = join(dataDir, 'snapshots', 'control-industry');
    const callerFiles = readdirSync(dir).filter((f) => f.endsWith('.caller.json'));
    expect(callerFiles).toHaveLength(1);
    const file = callerFileSchema.parse(JSON.parse(readFileSync(join(dir, callerFiles[0] ?? ''), 'utf8')));
    // Shard 1 of 2 takes the plan's second call: task S-E2, trial 1.
    expect(file).toMatchObject({ run_id: 'run_shardtest01', task_id: 'S-E2', trial: 1, kind: 'llm', model: 'caller-standin' });
    expect(file.turns.find((t) => t.side === 'caller')).toMatchObject({ source: 'opening' });
    expect(readdirSync(dir).filter((f) => f.endsWith('.summary.json'))).toHaveLength(1);
  }, 120_000);

  it('refuses a malformed shard and --caller-frozen without a cache', async () => {
    expect((await run(['--pack', 'control-industry', '--harness', 'scripted', '--shard', '2/2'])).code).toBe(3);
    const frozen = await run(['--pack', 'control-industry', '--harness', 'scripted', '--caller', 'llm', '--caller-frozen']);
    expect(frozen.code).toBe(3);
    expect(frozen.stderr).toMatch(/--caller-frozen needs --caller-cache/);
  });
});
