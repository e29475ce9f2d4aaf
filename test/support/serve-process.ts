import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '../..');

/** `node bin/mivas.js serve` running as a child process on a free loopback port. */
export interface ServeProcess {
  readonly child: ChildProcess;
  readonly port: number;
  readonly httpUrl: string;
  readonly wsUrl: string;
  readonly dataDir: string;
  /** Resolves with the exit code (or the signal that killed it). */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Everything the process wrote so far (stdout and stderr). */
  output(): string;
}

/** A port the OS just handed out on 127.0.0.1 (closed again before the child binds it). */
export function freePort(): Promise<number> {
  return new Promise((res, rej) => {
    const srv = createServer();
    srv.once('error', rej);
    srv.listen(0, '127.0.0.1', () => {
      const address = srv.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      srv.close(() => res(port));
    });
  });
}

/** Polls a condition (each poll is an HTTP round trip or a cheap check), bounded as a safety net. */
export async function pollUntil(check: () => Promise<boolean> | boolean, limitMs = 30_000, everyMs = 50): Promise<void> {
  const started = Date.now();
  for (;;) {
    if (await check()) return;
    if (Date.now() - started > limitMs) throw new Error(`condition not met within ${limitMs} ms`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/** The /health status code, or 0 when nothing answers. */
export async function healthStatus(httpUrl: string): Promise<number> {
  try {
    const res = await fetch(`${httpUrl}/health`);
    await res.arrayBuffer();
    return res.status;
  } catch {
    return 0;
  }
}

/** Starts `mivas serve` with the given environment and waits for /health to answer 200. */
export async function spawnServe(env: Record<string, string>): Promise<ServeProcess> {
  const port = await freePort();
  const dataDir = env.MIVAS_DATA_DIR ?? mkdtempSync(join(tmpdir(), 'mivas-serve-'));
  const chunks: string[] = [];
  const child = spawn(process.execPath, ['bin/mivas.js', 'serve'], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? tmpdir(), MIVAS_PORT: String(port), MIVAS_HOST: '127.0.0.1', MIVAS_DATA_DIR: dataDir, MIVAS_LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.on('data', (c: Buffer) => chunks.push(c.toString()));
  child.stderr?.on('data', (c: Buffer) => chunks.push(c.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((res) => child.once('exit', (code, signal) => res({ code, signal })));
  const httpUrl = `http://127.0.0.1:${port}`;
  let gone = false;
  void exited.then(() => {
    gone = true;
  });
  await pollUntil(async () => {
    if (gone) throw new Error(`mivas serve exited during start:\n${chunks.join('')}`);
    return (await healthStatus(httpUrl)) === 200;
  }, 60_000);
  return { child, port, httpUrl, wsUrl: `ws://127.0.0.1:${port}/`, dataDir, exited, output: () => chunks.join('') };
}
