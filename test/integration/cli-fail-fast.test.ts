import { AsyncLocalStorage, createHook } from 'node:async_hooks';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli, type CliIO } from '../../src/cli/index.ts';

/**
 * Issue 26: a configuration error exits 3 at once, for every command. Found: `mivas serve` and
 * `mivas run` with an unknown harness or a missing provider key printed the error and never
 * exited, because a timer had started before the failing step. The causes are checked in process
 * (after the command returns, it has left no timer, server, socket or child running); the
 * process as a user sees it is checked by spawning `bin/mivas.js`.
 */
const ROOT = resolve(import.meta.dirname, '../..');
const dataDir = mkdtempSync(join(tmpdir(), 'mivas-failfast-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

/** An environment with nothing from this machine's: no provider key can leak in. */
function cleanEnv(extra: Record<string, string>): Record<string, string> {
  return { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', MIVAS_DATA_DIR: dataDir, MIVAS_LOG_LEVEL: 'silent', ...extra };
}

/** The async resource kinds that keep a process alive: timers, servers, sockets, children. */
const KEEPS_ALIVE = new Set(['Timeout', 'TCPSERVERWRAP', 'TCPWRAP', 'PROCESSWRAP', 'PIPESERVERWRAP', 'UDPWRAP']);

/** Whether a resource keeps the process alive: a timer or server that was not unref'd (one without hasRef counts). */
function isRefed(resource: unknown): boolean {
  const hasRef = (resource as { hasRef?: () => boolean } | null)?.hasRef;
  return typeof hasRef === 'function' ? hasRef.call(resource) : true;
}

async function runInProcess(argv: readonly string[], env: Record<string, string>): Promise<{ code: number; stderr: string; leaked: string[] }> {
  const err: string[] = [];
  const io: CliIO = { stdout: { write: () => true }, stderr: { write: (t: string) => err.push(t) }, env: cleanEnv(env), cwd: ROOT };
  // Every handle the command opens, until it is closed (destroy): what is left after it returned is a leak.
  // Only handles opened in the command's own async context count: a late timer of an earlier test's
  // work, firing while this one runs, is not this command's.
  const live = new Map<number, { type: string; resource: unknown }>();
  const ownContext = new AsyncLocalStorage<true>();
  const hook = createHook({
    init: (id, type, _trigger, resource) => {
      if (KEEPS_ALIVE.has(type) && ownContext.getStore()) live.set(id, { type, resource });
    },
    destroy: (id) => live.delete(id),
  });
  hook.enable();
  let code: number;
  try {
    code = await ownContext.run(true, () => runCli(argv, io));
    // Let closes already under way (a socket's close callback) finish before counting (not with a timer: it would count).
    for (let i = 0; i < 10; i++) await new Promise((r) => setImmediate(r));
  } finally {
    hook.disable();
  }
  return { code, stderr: err.join(''), leaked: [...live.values()].filter((h) => isRefed(h.resource)).map((h) => h.type) };
}

/** Every command that reads the configuration, with arguments that get it as far as reading it. */
const CONFIG_COMMANDS: readonly (readonly string[])[] = [
  ['run', '--pack', 'control-industry', '--harness', 'scripted', '--trials', '1'],
  ['run', '--mode', 'text', '--pack', 'control-industry', '--harness', 'text/scripted', '--trials', '1'],
  ['serve', '--port', '0'],
  ['call', '--pack', 'control-industry', '--task', 'S-E1', '--caller', 'llm', '--url', 'ws://127.0.0.1:9/'],
  ['probe', '--local'],
  ['preflight', '--pack', 'control-industry'],
  ['bluejay', 'push-tasks', '--pack', 'control-industry', '--dry-run'],
  ['bluejay', 'run', '--simulation-id', 'sim_1'],
  ['bluejay', 'poll', '--run', 'run_1'],
  ['bluejay', 'results', '--run', 'run_1', '--out', join(dataDir, 'mapping.json')],
  ['score', '--snapshots', 's3://bucket/prefix', '--pack', 'control-industry'],
  ['report', '--scores', join(dataDir, 'scores'), '--out', join(dataDir, 'report')],
  ['check', '--pack', 'control-industry', '--harness', 'scripted'],
  ['play', '--pack', 'control-industry', '--task', 'S-E1'],
];

/** Commands that build a harness, each with a harness that cannot be built (preflight reports it as a failed check instead, exit 1). */
const HARNESS_COMMANDS: readonly { readonly argv: readonly string[]; readonly says: string }[] = [
  { argv: ['serve', '--port', '0', '--harness', 'openai/realtime'], says: 'OPENAI_API_KEY' },
  { argv: ['serve', '--port', '0', '--harness', 'no/such-harness'], says: 'unknown harness' },
  { argv: ['run', '--pack', 'control-industry', '--harness', 'no/such-harness', '--trials', '1'], says: 'unknown harness' },
  { argv: ['run', '--pack', 'control-industry', '--harness', 'openai/realtime', '--trials', '1', '--allow-no-tools'], says: 'OPENAI_API_KEY' },
  { argv: ['run', '--mode', 'text', '--pack', 'control-industry', '--harness', 'text/no-such', '--trials', '1'], says: 'text policy harness' },
  { argv: ['check', '--pack', 'control-industry', '--harness', 'openai/realtime'], says: 'OPENAI_API_KEY' },
];

describe('a configuration error exits 3 and leaves nothing running (issue 26)', () => {
  it.each(CONFIG_COMMANDS.map((argv) => [argv.slice(0, 2).join(' '), argv] as const))('mivas %s with an invalid setting', async (_name, argv) => {
    const { code, stderr, leaked } = await runInProcess(argv, { MIVAS_MAX_CALLS: 'zero' });
    expect(code, stderr).toBe(3);
    expect(stderr).toContain('MIVAS_MAX_CALLS');
    expect(leaked).toEqual([]);
  }, 60_000);

  it.each(HARNESS_COMMANDS.map((c) => [c.argv.slice(0, 2).join(' '), c] as const))('mivas %s with a harness it cannot build', async (_name, { argv, says }) => {
    const { code, stderr, leaked } = await runInProcess(argv, {});
    expect(code, stderr).toBe(3);
    expect(stderr).toContain(says);
    expect(leaked).toEqual([]);
  }, 60_000);
});

/** Runs bin/mivas.js; resolves with the exit code, the whole run's time and the time from the error line to the exit. */
function spawnMivas(argv: readonly string[], env: Record<string, string>): Promise<{ code: number | null; totalMs: number; afterErrorMs: number | null; stderr: string }> {
  return new Promise((resolvePromise, reject) => {
    const started = performance.now();
    let erroredAt: number | null = null;
    let stderr = '';
    const child = spawn(process.execPath, [join(ROOT, 'bin/mivas.js'), ...argv], { cwd: ROOT, env: cleanEnv(env), stdio: ['ignore', 'ignore', 'pipe'] });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      erroredAt ??= performance.now();
    });
    // A bound far past any start-up, so a process that never exits fails the test instead of hanging it.
    const guard = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.once('error', reject);
    child.once('exit', (code) => {
      clearTimeout(guard);
      const now = performance.now();
      resolvePromise({ code, totalMs: now - started, afterErrorMs: erroredAt === null ? null : now - erroredAt, stderr });
    });
  });
}

describe('the mivas process exits 3 promptly on a configuration error (issue 26)', () => {
  it.each([
    ['serve --harness openai/realtime with no key', ['serve', '--harness', 'openai/realtime', '--port', '0'], 'OPENAI_API_KEY'],
    ['run with an unknown harness', ['run', '--pack', 'control-industry', '--harness', 'no/such-harness', '--trials', '1'], 'unknown harness'],
  ] as const)('%s', async (_name, argv, says) => {
    const { code, totalMs, afterErrorMs, stderr } = await spawnMivas(argv, {});
    // The whole run includes Node's start and loading the CLI, which a loaded machine slows; the
    // figure is printed, the bound is generous. The time after the error line is the fault itself.
    console.log(`mivas ${argv.join(' ')}: exit ${code} after ${(totalMs / 1000).toFixed(2)} s, ${((afterErrorMs ?? 0) / 1000).toFixed(2)} s after the error line`);
    expect(code, stderr).toBe(3);
    expect(stderr).toContain(says);
    expect(afterErrorMs).not.toBeNull();
    expect(afterErrorMs ?? Infinity).toBeLessThan(2_000);
    expect(totalMs).toBeLessThan(30_000);
  }, 70_000);
});
