import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/index.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

/** A refused call ends as soon as the refusal arrives, with its status and reason (issue 15). */
describe('mivas call against a server that refuses the upgrade', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ MIVAS_FAST: '1', CHIRP_USER: 'caller', CHIRP_PASS: 'right' });
  });
  afterAll(async () => {
    await server?.close();
  });

  async function call(args: string[]): Promise<{ code: number; out: string; err: string }> {
    let out = '';
    let err = '';
    const code = await runCli(['call', '--url', server.wsUrl, '--task', 'S-E1', '--fast', '--timeout-s', '600', ...args], {
      stdout: { write: (s: string) => ((out += s), true) },
      stderr: { write: (s: string) => ((err += s), true) },
      env: { MIVAS_LOG_LEVEL: 'silent' },
      cwd: process.cwd(),
    });
    return { code, out, err };
  }

  it('a wrong password: exit 1 with the 401 and the server reason, long before the 600 s call timeout', async () => {
    const { code, out, err } = await call(['--user', 'caller', '--pass', 'wrong']);
    expect(code).toBe(1);
    expect(err).toMatch(/refused with HTTP 401: UNAUTHORIZED/);
    expect(JSON.parse(out)).toMatchObject({ refusedStatus: 401, timedOut: false });
  }, 20_000);

  it('a call id already used: exit 1 with the 409 and its code', async () => {
    const first = await call(['--user', 'caller', '--pass', 'right', '--id', 'refusal_twice']);
    expect(first.code).toBe(0);
    await server.ctx.outbox.flush();
    const again = await call(['--user', 'caller', '--pass', 'right', '--id', 'refusal_twice']);
    expect(again.code).toBe(1);
    expect(again.err).toMatch(/refused with HTTP 409: CALL_ID_USED/);
  }, 30_000);
});

describe('mivas run whose every call is void', () => {
  it('exits 2 (incomplete), as mivas score does on the same run', async () => {
    let out = '';
    const sink = { write: (s: string) => ((out += s), true) };
    const dataDir = mkdtempSync(join(tmpdir(), 'mivas-void-run-'));
    try {
      // A provider that is not there: every call ends with provider_error, which the scorer voids.
      const env = { MIVAS_DATA_DIR: dataDir, MIVAS_LOG_LEVEL: 'silent', OPENAI_API_KEY: 'sk-test-not-a-key', MIVAS_OPENAI_BASE_URL: 'ws://127.0.0.1:9/v1' };
      const code = await runCli(['run', '--pack', 'control-industry', '--harness', 'openai/realtime', '--trials', '1', '--task', 'S-E1', '--fast'], { stdout: sink, stderr: sink, env, cwd: process.cwd() });
      expect(out).toMatch(/1 conversation\(s\): 0 pass, 0 fail, 1 void/);
      expect(code).toBe(2);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 60_000);
});
