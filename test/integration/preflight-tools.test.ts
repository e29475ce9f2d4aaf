import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli, toolRecordPath } from '../../src/cli/index.ts';
import { PROBE_TOOL_NAME } from '../../src/providers/index.ts';
import { outputOf, RealtimeStandIn, sessionOf, type AutoRespond, type StandInDialect } from '../support/realtime-server.ts';

/**
 * Issue 21 acceptance 2: `mivas preflight` opens a real session against each realtime stand-in,
 * offers one tool and asks for it; "tools: yes" when the stand-in calls it, "tools: no" when it
 * only speaks, and then `mivas run` refuses. A 401 is reported with its status and body.
 */

const ROOT = resolve(import.meta.dirname, '../..');

async function cli(argv: string[], env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await runCli(argv, { stdout: { write: (t: string) => (stdout += t) }, stderr: { write: (t: string) => (stderr += t) }, env, cwd: ROOT });
  return { code, stdout, stderr };
}

/** Harness → stand-in dialect, output rate and the env that points it at the stand-in. */
const HARNESSES: readonly [string, StandInDialect, number, (base: (path: string) => string) => Record<string, string>][] = [
  ['openai/realtime', 'ga', 24_000, (b) => ({ OPENAI_API_KEY: 'sk-preflight-secret', MIVAS_OPENAI_BASE_URL: b('/v1') })],
  ['azure/realtime', 'ga', 24_000, (b) => ({ AZURE_OPENAI_API_KEY: 'az-preflight-secret', MIVAS_AZURE_BASE_URL: b('/openai/v1'), MIVAS_AZURE_DEPLOYMENT: 'rt-dep', MIVAS_AZURE_TRANSCRIPTION_DEPLOYMENT: 'tx-dep' })],
  ['xai/grok-voice', 'ga', 16_000, (b) => ({ XAI_API_KEY: 'xai-preflight-secret', MIVAS_XAI_BASE_URL: b('/v1') })],
  ['qwen/omni-realtime', 'beta', 24_000, (b) => ({ DASHSCOPE_API_KEY: 'ds-preflight-secret', MIVAS_QWEN_BASE_URL: b('/api-ws/v1') })],
];

describe('mivas preflight: the function-calling check against the stand-ins', () => {
  let dataDir: string;
  let standIn: RealtimeStandIn | null = null;

  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'mivas-preflight-tools-'));
  });
  afterEach(async () => {
    await standIn?.close();
    standIn = null;
    rmSync(dataDir, { recursive: true, force: true });
  });

  async function preflight(harness: string, dialect: StandInDialect, rate: number, env: (b: (p: string) => string) => Record<string, string>, autoRespond: AutoRespond, extra: string[] = []) {
    const s = await RealtimeStandIn.start({ dialect, autoRespond, autoAudioRateHz: rate });
    standIn = s;
    const base = { MIVAS_DATA_DIR: dataDir, MIVAS_HARNESS: harness, ...env((p) => s.baseUrl(p)) };
    return { base, out: await cli(['preflight', '--tools-timeout-s', '10', ...extra], base) };
  }

  it.each(HARNESSES)('%s: reports "tools: yes" with the timings, answers the call and records the verdict', async (harness, dialect, rate, env) => {
    const { out } = await preflight(harness, dialect, rate, env, 'call-tools');
    expect(out.code, out.stdout + out.stderr).toBe(0);
    expect(out.stdout).toMatch(/^ok {4}tools: yes \(/m);
    expect(out.stdout).toMatch(new RegExp(`${PROBE_TOOL_NAME} called with \\{"word":"ready"\\}`));
    expect(out.stdout).toMatch(/handshake \d+ ms, session ready \d+ ms, tool call \d+ ms, first audio \d+ ms/);
    const conn = standIn?.connections[0];
    expect(standIn?.connections).toHaveLength(1);
    const tools = sessionOf(conn?.received('session.update')[0] ?? { type: '' }).tools;
    expect(JSON.stringify(tools)).toContain(PROBE_TOOL_NAME);
    expect(conn?.received('conversation.item.create').filter((e) => outputOf(e) !== null)).toHaveLength(1);
    expect(conn?.received('response.create')).toHaveLength(2);
    expect(JSON.parse(readFileSync(toolRecordPath(dataDir, harness), 'utf8'))).toMatchObject({ harness, tools: 'yes' });
  });

  it('reports "tools: no" against a stand-in that ignores tools, and `mivas run` then refuses', async () => {
    const { base, out } = await preflight('openai/realtime', 'ga', 24_000, HARNESSES[0]?.[3] ?? (() => ({})), 'ignore-tools');
    expect(out.code).toBe(1);
    expect(out.stdout).toMatch(/^FAIL {2}tools: no \(gpt-realtime-2\.1\): the model answered without calling mivas_preflight_ping/m);
    const run = await cli(['run', '--pack', 'control-industry', '--harness', 'openai/realtime', '--trials', '1'], base);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/found no function calling/);
    expect(run.stderr).toMatch(/--allow-no-tools/);
    // The refusal comes before any call: the stand-in saw only the preflight's session.
    expect(standIn?.connections).toHaveLength(1);
  });

  it('reports a 401 with its status and body, never the key', async () => {
    const s = await RealtimeStandIn.start({ refuseUpgrade: { status: 401, body: '{"error":{"message":"Incorrect API key provided: sk-preflight-secret","code":"invalid_api_key"}}' } });
    standIn = s;
    const out = await cli(['preflight', '--json'], { MIVAS_DATA_DIR: dataDir, MIVAS_HARNESS: 'openai/realtime', OPENAI_API_KEY: 'sk-preflight-secret', MIVAS_OPENAI_BASE_URL: s.baseUrl('/v1') });
    expect(out.code).toBe(1);
    const checks = JSON.parse(out.stdout) as { name: string; ok: boolean; detail: string; result?: { tools: string; error: { code: string; status: number } } }[];
    const tools = checks.find((c) => c.name === 'tools');
    expect(tools).toMatchObject({ ok: false, result: { tools: 'error', error: { code: 'provider_auth_rejected', status: 401 } } });
    expect(tools?.detail).toMatch(/HTTP 401 Unauthorized: .*invalid_api_key/);
    expect(out.stdout).not.toContain('sk-preflight-secret');
  });

  it('skips the live check with a clear line when the key is missing, and opens nothing', async () => {
    const out = await cli(['preflight'], { MIVAS_DATA_DIR: dataDir, MIVAS_HARNESS: 'xai/grok-voice' });
    expect(out.stdout).toMatch(/^skip {2}tools: skipped: no live check without the provider's settings \(.*XAI_API_KEY/m);
    expect(existsSync(toolRecordPath(dataDir, 'xai/grok-voice'))).toBe(false);
  });
});
