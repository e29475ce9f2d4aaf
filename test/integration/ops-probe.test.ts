import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/index.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

const ROOT = resolve(import.meta.dirname, '../..');

/** Runs the CLI in-process with captured output. */
async function cli(argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await runCli(argv, { stdout: { write: (t: string) => (stdout += t) }, stderr: { write: (t: string) => (stderr += t) }, env: {}, cwd: ROOT });
  return { code, stdout, stderr };
}

describe('mivas probe (acceptance 6)', () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer({ CHIRP_USER: 'bluejay', CHIRP_PASS: 'right-pass' });
  });
  afterAll(async () => {
    await server?.close();
  });

  it('prints the probe result and exits 0 against a running server', async () => {
    const out = await cli(['probe', `${server.wsUrl}probe`, '--user', 'bluejay', '--pass', 'right-pass']);
    expect(out.code).toBe(0);
    const result = JSON.parse(out.stdout) as { status: number; close_code: number; tls: boolean; round_trip_ms: number; probe_ok: { type: string; data: { pack: string } } };
    expect(result).toMatchObject({ status: 101, close_code: 1000, tls: false, frame_problem: null, probe_ok: { type: 'probe.ok', data: { pack: 'control-industry' } } });
    expect(result.round_trip_ms).toBeGreaterThanOrEqual(0);
    expect(out.stderr).toContain('probe ok');
  });

  it('exits non-zero with 401 in its message against wrong credentials', async () => {
    const out = await cli(['probe', `${server.wsUrl}probe`, '--user', 'bluejay', '--pass', 'wrong']);
    expect(out.code).toBe(1);
    expect(out.stderr).toMatch(/probe FAILED: HTTP 401/);
    expect(JSON.parse(out.stdout)).toMatchObject({ status: 401 });
  });

  it('exits non-zero with 401 when no credentials are given, also as a child process (the HEALTHCHECK path)', async () => {
    const child = spawn(process.execPath, ['bin/mivas.js', 'probe', `${server.wsUrl}probe`, '--timeout-s', '5'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const code = await new Promise<number | null>((r) => child.once('exit', (c) => r(c)));
    expect(code).toBe(1);
    expect(stderr).toContain('401');
  });

  it('reports an unreachable server as a failure (exit 1), not a crash', async () => {
    const out = await cli(['probe', 'ws://127.0.0.1:1/probe', '--timeout-s', '2']);
    expect(out.code).toBe(1);
    expect(out.stderr).toMatch(/probe FAILED/);
  });
});

describe('mivas probe --local (the Docker HEALTHCHECK)', () => {
  it('probes 127.0.0.1:$MIVAS_PORT with the server’s own credentials from the environment', async () => {
    const server = await startTestServer({ CHIRP_USER: 'hc', CHIRP_PASS: 'hc-pass' });
    try {
      const port = new URL(server.httpUrl).port;
      let stderr = '';
      const code = await runCli(['probe', '--local', '--timeout-s', '5'], {
        stdout: { write: () => true },
        stderr: { write: (t: string) => (stderr += t) },
        env: { MIVAS_PORT: port, CHIRP_USER: 'hc', CHIRP_PASS: 'hc-pass' },
        cwd: ROOT,
      });
      expect(code, stderr).toBe(0);
    } finally {
      await server.close();
    }
  });
});
