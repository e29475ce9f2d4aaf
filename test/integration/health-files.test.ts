import { readdirSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/server.ts';

// `/health` turns 503 `files_low` before the handles run out (docs/reliability.md "Open files"),
// and the caps in force follow the open-file limit the process runs under.

let server: TestServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

async function health(): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${server?.httpUrl}/health`);
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

describe.skipIf(process.platform !== 'linux')('/health and the open-file limit', () => {
  it('answers 503 files_low once the open handles reach the last sixteenth of the limit', async () => {
    // A limit 20 above what this process holds now: inside the last 32 handles, the margin.
    server = await startTestServer({}, { fileLimit: readdirSync('/proc/self/fd').length + 20 });
    const h = await health();
    expect(h.status).toBe(503);
    expect(h.body).toMatchObject({ status: 'files_low' });
    expect(h.body.open_files as number).toBeGreaterThan((h.body.open_files_limit as number) - 32);
  });

  it('answers 200 with the handles and the caps derived from a 1,024 limit', async () => {
    server = await startTestServer({ MIVAS_MAX_CALLS: '100', MIVAS_RL: '1' }, { fileLimit: 1_024 });
    const h = await health();
    expect(h.status).toBe(200);
    expect(h.body).toMatchObject({ status: 'ok', open_files_limit: 1_024 });
    expect(h.body.open_files as number).toBeLessThan(1_024 / 2);
    expect(h.body.capacity as number).toBeLessThan(100);
    expect(h.body.harness_sessions_max as number).toBeLessThan(1_024);
    expect(h.body.openenv_sockets_max as number).toBeLessThan(256);
  });
});
