import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../../src/cli/index.ts';
import { parseMapping } from '../../../src/scoring/index.ts';
import { BluejayApiStandIn } from '../../support/bluejay-api.ts';

const ROOT = resolve(import.meta.dirname, '../../..');

async function cli(argv: string[], env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await runCli(argv, { stdout: { write: (t: string) => (stdout += t) }, stderr: { write: (t: string) => (stderr += t) }, env, cwd: ROOT });
  return { code, stdout, stderr };
}

describe('mivas bluejay', () => {
  let api: BluejayApiStandIn;
  let env: Record<string, string>;
  let dir: string;

  beforeAll(async () => {
    api = await BluejayApiStandIn.start();
    env = { BLUEJAY_API_KEY: 'bj_cli', BLUEJAY_API_URL: api.url };
    dir = mkdtempSync(join(tmpdir(), 'mivas-bj-cli-'));
  });
  afterAll(async () => {
    await api.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('push-tasks --dry-run prints one digital human per task with expected calls, traits and audio conditions', async () => {
    const out = await cli(['bluejay', 'push-tasks', '--pack', 'control-industry', '--dry-run']);
    expect(out.code, out.stderr).toBe(0);
    const bodies = JSON.parse(out.stdout) as { digital_human: Record<string, unknown> }[];
    expect(bodies).toHaveLength(3);
    const e1 = bodies.find((b) => String(b.digital_human.test_name).startsWith('S-E1:'))?.digital_human;
    expect(e1).toMatchObject({
      name: 'Jordan Ellery',
      language: 'en',
      creativity: 0,
      background_noise: 'none',
      audio_quality: 'high',
      speaks_first_config: { speaks_first: false },
      interruptions: { type: 'none' },
      expected_tool_calls: [{ name: 'transfer_to_scheduler' }, { name: 'book_appointment', parameters: { date: '2026-10-07' }, output: { ok: true } }],
    });
    const traits = e1?.traits as { trait_name: string; value: unknown; trait_data_type: string; is_sip_header: boolean }[];
    expect(traits.find((t) => t.trait_name === 'case_key')?.value).toBe('S-E1');
    expect(traits.find((t) => t.trait_name === 'preferred_date')?.trait_data_type).toBe('DATE');
    expect(traits.every((t) => t.is_sip_header === false)).toBe(true);
    expect(e1).not.toHaveProperty('exp_db_state');
    expect(api.requests).toHaveLength(0);
  });

  it('push-tasks posts each digital human with X-API-Key', async () => {
    const out = await cli(['bluejay', 'push-tasks', '--pack', 'control-industry', '--simulation-id', 'sim_1'], env);
    expect(out.code, out.stderr).toBe(0);
    const posts = api.requests.filter((r) => r.path === '/create-digital-human');
    expect(posts).toHaveLength(3);
    expect(posts.every((p) => p.headers['x-api-key'] === 'bj_cli' && (p.body as { simulation_ids: string[] }).simulation_ids[0] === 'sim_1')).toBe(true);
  });

  it('run queues a simulation run', async () => {
    const out = await cli(['bluejay', 'run', '--simulation-id', 'sim_1'], env);
    expect(out.code, out.stderr).toBe(0);
    expect(JSON.parse(out.stdout)).toMatchObject({ simulation_run_id: 'run_42', simulation_result_ids: ['701', '702'] });
  });

  it('results writes the mapping the scorer reads (case keys from the digital humans); poll reports completion', async () => {
    const dhIds = [...api.digitalHumans.keys()];
    api.runResults.set('run_42', {
      simulation_run: { id: 'run_42', status: 'COMPLETED' },
      simulation_results: [
        { id: 701, digital_human_id: dhIds[0], status: 'COMPLETED' },
        { id: 702, digital_human_id: dhIds[1], status: 'NO_ANSWER' },
      ],
    });
    const poll = await cli(['bluejay', 'poll', '--run', 'run_42', '--interval-s', '0'], env);
    expect(poll.code).toBe(0);
    const file = join(dir, 'mapping.json');
    const out = await cli(['bluejay', 'results', '--run', 'run_42', '--out', file, '--pack', 'control-industry'], env);
    expect(out.code, out.stderr).toBe(0);
    const entries = [...parseMapping(readFileSync(file, 'utf8'), file).values()];
    expect(entries.map((e) => [e.conversation_id, e.platform_status])).toEqual([
      ['701', 'COMPLETED'],
      ['702', 'NO_ANSWER'],
    ]);
    expect(entries.every((e) => e.task_id !== null && /^S-E\d$/.test(e.task_id))).toBe(true);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toMatchObject({ source: 'bluejay', run_id: 'run_42' });
  });

  it('poll exits 2 while results are pending at its deadline; API errors exit 1 with the status', async () => {
    api.runResults.set('run_pending', { simulation_results: [{ id: 801, status: 'RUNNING' }] });
    expect((await cli(['bluejay', 'poll', '--run', 'run_pending', '--interval-s', '0', '--timeout-s', '0'], env)).code).toBe(2);
    const missing = await cli(['bluejay', 'results', '--run', 'nope', '--out', join(dir, 'x.json')], env);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('HTTP 404');
  });

  it('without a key, run is a configuration error', async () => {
    expect((await cli(['bluejay', 'run', '--simulation-id', 'sim_1'])).code).toBe(3);
  });
});

describe('mivas preflight', () => {
  it('checks configuration, pack, data dir, snapshot store, provider key and clock', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'mivas-preflight-'));
    try {
      const out = await cli(['preflight', '--json'], { MIVAS_DATA_DIR: dataDir, MIVAS_HARNESS: 'scripted' });
      expect(out.code, out.stdout + out.stderr).toBe(0);
      const checks = JSON.parse(out.stdout) as { name: string; ok: boolean }[];
      expect(checks.map((c) => c.name)).toEqual(['configuration', 'pack', 'data directory', 'snapshot store', 'provider key', 'clock', 'bluejay']);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('fails (exit 1) when the selected harness has no key', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'mivas-preflight-'));
    try {
      const out = await cli(['preflight'], { MIVAS_DATA_DIR: dataDir, MIVAS_HARNESS: 'openai/realtime' });
      expect(out.code).toBe(1);
      expect(out.stdout).toMatch(/FAIL {2}provider key/);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
