import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { SERVE_NODE_FLAGS } from '../src/server/index.ts';

/** The repository root. */
export const ROOT = resolve(import.meta.dirname, '..');

/** True when `taskset` can pin processes to cores here. */
export function canPin(): boolean {
  return spawnSync('taskset', ['-c', '0', 'true']).status === 0;
}

/** Command prefix that pins a process to one core, when possible. */
export function pinned(core: number, command: string, args: string[]): [string, string[]] {
  return canPin() ? ['taskset', ['-c', String(core), command, ...args]] : [command, args];
}

/** A free loopback port. */
export function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolvePort(address.port) : reject(new Error('no port'))));
    });
  });
}

/** A temporary directory removed by the returned function. */
export function tempDir(prefix: string): { dir: string; remove: () => void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** A `mivas serve` child process on a loopback port, pinned to core 0. */
export interface ServerProcess {
  readonly port: number;
  readonly child: ChildProcess;
  stop(): Promise<number | null>;
}

/** How a `mivas serve` child is started beyond its environment. */
export interface ServerProcessOptions {
  /** Each line the child writes to stdout (its pino log; set MIVAS_LOG_LEVEL to see more than warnings). */
  readonly onLine?: (line: string) => void;
  /** Open-file limit of the child (`prlimit --nofile`). */
  readonly fileLimit?: number;
  /** Pin the child to core 0 (default true; on a machine shared with other work, pinning can starve it). */
  readonly pin?: boolean;
}

/** Starts `mivas serve` and waits until /health answers. */
export async function startServerProcess(env: Record<string, string>, options: ServerProcessOptions = {}): Promise<ServerProcess> {
  const port = await freePort();
  const serve = [...SERVE_NODE_FLAGS, join(ROOT, 'bin/mivas.js'), 'serve', '--port', String(port), '--host', '127.0.0.1'];
  const wrap = (command: string, argv: string[]): [string, string[]] => (options.pin === false ? [command, argv] : pinned(0, command, argv));
  const [cmd, args] = options.fileLimit ? wrap('prlimit', [`--nofile=${options.fileLimit}:${options.fileLimit}`, '--', process.execPath, ...serve]) : wrap(process.execPath, serve);
  const child = spawn(cmd, args, { cwd: ROOT, env: { ...process.env, MIVAS_LOG_LEVEL: 'warn', ...env }, stdio: ['ignore', options.onLine ? 'pipe' : 'ignore', 'inherit'] });
  if (options.onLine && child.stdout) {
    let rest = '';
    child.stdout.on('data', (c: Buffer) => {
      const lines = (rest + c.toString()).split('\n');
      rest = lines.pop() ?? '';
      for (const line of lines) if (line) options.onLine?.(line);
    });
  }
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (Date.now() > deadline) throw new Error('mivas serve did not become healthy within 60 s');
    const ok = await fetch(`http://127.0.0.1:${port}/health`).then((r) => r.ok, () => false);
    if (ok) break;
    await new Promise((r) => setTimeout(r, 200));
  }
  return {
    port,
    child,
    stop: () =>
      new Promise((resolveExit) => {
        child.once('exit', (code) => resolveExit(code));
        child.kill('SIGTERM');
      }),
  };
}

/** Peak resident memory of a process so far (VmHWM), in MB; null when it cannot be read. */
export function peakRssMb(pid: number | undefined): number | null {
  if (!pid) return null;
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Math.round(Number(m[1]) / 1024) : null;
  } catch {
    return null;
  }
}

/** Runs a command pinned to core 1 (the load core) and parses its last stdout line as JSON; `label` names it in errors. */
export function runOnLoadCore<T>(label: string, command: string, argv: readonly string[]): Promise<T> {
  const [cmd, args] = pinned(1, command, [...argv]);
  return new Promise((resolveRun, reject) => {
    const child = spawn(cmd, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
    const chunks: Buffer[] = [];
    child.stdout.on('data', (c: Buffer) => chunks.push(c));
    child.on('error', reject);
    child.on('exit', (code) => {
      const lines = Buffer.concat(chunks).toString().trim().split('\n');
      if (code !== 0) return reject(new Error(`${label} exited ${code}`));
      try {
        resolveRun(JSON.parse(lines.at(-1) ?? 'null') as T);
      } catch {
        reject(new Error(`${label} ended without a JSON line of figures`));
      }
    });
  });
}

/** Runs a TypeScript bench script in its own process (pinned to core 1) and parses its last stdout line as JSON. */
export function runScript<T>(script: string, arg: unknown): Promise<T> {
  return runOnLoadCore<T>(script, process.execPath, ['--import', 'tsx', join(ROOT, script), JSON.stringify(arg)]);
}
