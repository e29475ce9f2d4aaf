import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../../../src/cli/index.ts';
import { agentSetupOf } from '../../../src/conversation/index.ts';
import { loadPack } from '../../../src/packs/index.ts';
import { estimateCost, GPT_LIVE_UNCONFIRMED, PHONIC_UNCONFIRMED, QWEN_AUDIO_UNCONFIRMED } from '../../../src/providers/index.ts';
import { emptyUsage } from '../../../src/snapshot/index.ts';

/**
 * Issue 28 acceptance 1 for the new runtimes: `mivas check --pack control-industry --harness H`
 * lists each agent's control tools as H offers them, and names H's required setting when it is
 * absent (exit 3); `mivas preflight` names the wire details no reference confirmed.
 */

const ROOT = resolve(import.meta.dirname, '../../..');

async function cli(argv: string[], env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await runCli(argv, { stdout: { write: (t: string) => (stdout += t) }, stderr: { write: (t: string) => (stderr += t) }, env: { MIVAS_LOG_LEVEL: 'silent', ...env }, cwd: ROOT });
  return { code, stdout, stderr };
}

function indented(value: unknown): string {
  return JSON.stringify(value, null, 2)
    .split('\n')
    .map((l) => `    ${l}`)
    .join('\n');
}

describe('mivas check and preflight for the new runtimes', () => {
  let dataDir: string;
  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'mivas-runtime-check-'));
  });
  afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

  it('lists every control-industry agent with its tools as the delegated backend gets them', async () => {
    const { code, stdout } = await cli(['check', '--pack', 'control-industry', '--harness', 'openai/gpt-live'], { OPENAI_API_KEY: 'sk-test' });
    expect(code).toBe(0);
    expect(stdout).toContain('harness openai/gpt-live');
    const pack = await loadPack(join(ROOT, 'packs'), 'control-industry');
    for (const agent of pack.blueprint.agents) {
      const setup = agentSetupOf(pack, agent.name);
      expect(stdout).toContain(`tools (${setup.tools.length}): ${setup.tools.map((t) => t.name).join(', ')}`);
      expect(stdout).toContain(indented(setup.tools.map((t) => ({ type: 'function', name: t.name, description: t.description, parameters: t.parameters }))));
    }
    expect(stdout).toContain('handoff wiring: every target is wired');
  });

  it('exits 3 naming OPENAI_API_KEY when it is absent', async () => {
    const { code, stderr } = await cli(['check', '--pack', 'control-industry', '--harness', 'openai/gpt-live'], {});
    expect(code).toBe(3);
    expect(stderr).toContain('OPENAI_API_KEY');
  });

  it('preflight names what the reference did not confirm, with or without the key', async () => {
    const envs: Record<string, string>[] = [{ OPENAI_API_KEY: 'sk-test' }, {}];
    for (const env of envs) {
      const { stdout } = await cli(['preflight', '--harness', 'openai/gpt-live', '--skip-tools'], { MIVAS_DATA_DIR: dataDir, ...env });
      const line = stdout.split('\n').find((l) => l.includes(' reference: ')) ?? '';
      for (const detail of GPT_LIVE_UNCONFIRMED) expect(line).toContain(detail);
    }
  });

  it('preflight prints no such line for a harness whose wire was confirmed', async () => {
    const { stdout } = await cli(['preflight', '--harness', 'scripted', '--skip-tools'], { MIVAS_DATA_DIR: dataDir });
    expect(stdout).not.toContain(' reference: ');
  });

  it('prices a GPT-Live call by its minutes, billed per second, for both model ids', () => {
    expect(estimateCost('gpt-live-1', emptyUsage(), 90_000).costUsd).toBeCloseTo(0.075, 6);
    expect(estimateCost('gpt-live-1.1', emptyUsage(), 60_000).costUsd).toBeCloseTo(0.05, 6);
  });

  it('lists Phonic\'s control tools as inline WebSocket tools, and exits 3 naming PHONIC_API_KEY when it is absent', async () => {
    const { code, stdout } = await cli(['check', '--pack', 'control-industry', '--harness', 'phonic/sts'], { PHONIC_API_KEY: 'ph-test' });
    expect(code).toBe(0);
    const pack = await loadPack(join(ROOT, 'packs'), 'control-industry');
    for (const agent of pack.blueprint.agents) {
      const tools = agentSetupOf(pack, agent.name).tools;
      expect(stdout).toContain(indented(tools.map((t) => ({ type: 'custom_websocket', tool_schema: { type: 'function', function: { name: t.name, description: t.description, parameters: t.parameters, strict: true } }, execution_mode: 'sync' }))));
    }
    const missing = await cli(['check', '--pack', 'control-industry', '--harness', 'phonic/sts'], {});
    expect(missing.code).toBe(3);
    expect(missing.stderr).toContain('PHONIC_API_KEY');
  });

  it('preflight of phonic/sts names what the reference did not confirm', async () => {
    const { stdout } = await cli(['preflight', '--harness', 'phonic/sts', '--skip-tools'], { MIVAS_DATA_DIR: dataDir });
    const line = stdout.split('\n').find((l) => l.includes(' reference: ')) ?? '';
    for (const detail of PHONIC_UNCONFIRMED) expect(line).toContain(detail);
  });

  it('prices a Phonic call by its minutes at the published pay-as-you-go rate ($0.14 per conversation minute)', () => {
    expect(estimateCost('merritt', emptyUsage(), 90_000).costUsd).toBeCloseTo(0.21, 9);
  });

  it('lists Qwen-Audio\'s control tools nested, names DASHSCOPE_API_KEY when absent, and names its unconfirmed details in preflight', async () => {
    const { code, stdout } = await cli(['check', '--pack', 'control-industry', '--harness', 'qwen/audio-realtime'], { DASHSCOPE_API_KEY: 'ds-test' });
    expect(code).toBe(0);
    const pack = await loadPack(join(ROOT, 'packs'), 'control-industry');
    for (const agent of pack.blueprint.agents) {
      const tools = agentSetupOf(pack, agent.name).tools;
      expect(stdout).toContain(indented(tools.map((t) => ({ type: 'function', function: { name: t.name, description: t.description, parameters: t.parameters } }))));
    }
    const missing = await cli(['check', '--pack', 'control-industry', '--harness', 'qwen/audio-realtime'], {});
    expect(missing.code).toBe(3);
    expect(missing.stderr).toContain('DASHSCOPE_API_KEY');
    const preflight = await cli(['preflight', '--harness', 'qwen/audio-realtime', '--skip-tools'], { MIVAS_DATA_DIR: dataDir });
    const line = preflight.stdout.split('\n').find((l) => l.includes(' reference: ')) ?? '';
    for (const detail of QWEN_AUDIO_UNCONFIRMED) expect(line).toContain(detail);
  });
});
