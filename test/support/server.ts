import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { pino } from 'pino';
import { loadConfig } from '../../src/config.ts';
import { buildApp, createAppContext, type AppContext, type AppContextOverrides } from '../../src/server/index.ts';

/** A real mivas server on an ephemeral loopback port with its own data directory. */
export interface TestServer {
  readonly ctx: AppContext;
  readonly app: FastifyInstance;
  /** http://127.0.0.1:<port> */
  readonly httpUrl: string;
  /** ws://127.0.0.1:<port>/ */
  readonly wsUrl: string;
  readonly dataDir: string;
  close(): Promise<void>;
}

/** Starts the server with MIVAS_* overrides (data dir and port are set here). */
export async function startTestServer(env: Record<string, string> = {}, overrides: AppContextOverrides = {}, keepDataDir?: string): Promise<TestServer> {
  const dataDir = keepDataDir ?? mkdtempSync(join(tmpdir(), 'mivas-test-'));
  const parsed = loadConfig({ MIVAS_DATA_DIR: dataDir, MIVAS_PORT: '0', MIVAS_LOG_LEVEL: 'silent', ...env });
  if (!parsed.ok) throw new Error(parsed.problems.join('\n'));
  const ctx = await createAppContext(parsed.config, { log: pino({ level: env.MIVAS_LOG_LEVEL ?? 'silent' }), ...overrides });
  const app = await buildApp(ctx);
  const httpUrl = await app.listen({ port: 0, host: '127.0.0.1' });
  return {
    ctx,
    app,
    httpUrl,
    wsUrl: `${httpUrl.replace(/^http/, 'ws')}/`,
    dataDir,
    async close() {
      await app.close();
      if (!keepDataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
