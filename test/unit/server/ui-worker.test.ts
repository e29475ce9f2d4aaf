import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config.ts';
import { UiWorker } from '../../../src/server/ui-worker.ts';

// The results UI runs in a child process (src/server/ui-worker.ts), so that its compilation and
// collections never share the server's V8 threads, and every thread of it at the lowest priority.

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function worker(): UiWorker {
  const dataDir = mkdtempSync(join(tmpdir(), 'ui-worker-'));
  dirs.push(dataDir);
  const loaded = loadConfig({ MIVAS_DATA_DIR: dataDir });
  if (!loaded.ok) throw new Error(loaded.problems.join('; '));
  return new UiWorker(loaded.config, () => {});
}

/** The nice value of every thread of a process (field 19 of /proc/PID/task/TID/stat). */
function niceOfThreads(pid: number): number[] {
  return readdirSync(`/proc/${pid}/task`).map((tid) => {
    const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
  });
}

describe('UiWorker', () => {
  it('starts on the first request, answers it from another process, and stops with close()', async () => {
    const ui = worker();
    expect(ui.pid).toBeNull();
    const page = await ui.runsPage('r/default/');
    expect(page).toContain('<!doctype html>');
    const pid = ui.pid;
    expect(pid).not.toBeNull();
    expect(pid).not.toBe(process.pid);
    await ui.close();
    expect(ui.pid).toBeNull();
    expect(existsSync(`/proc/${pid}`)).toBe(false);
  });

  it.skipIf(!existsSync('/proc/self/task'))('runs every thread of its process at the lowest priority', async () => {
    const ui = worker();
    try {
      await ui.runsPage('r/default/');
      const nice = niceOfThreads(ui.pid as number);
      expect(nice.length).toBeGreaterThan(1);
      expect(nice.every((n) => n === 19)).toBe(true);
      expect(niceOfThreads(process.pid)).not.toContain(19);
    } finally {
      await ui.close();
    }
  });

  it('exits when the server is killed without a word (kill -9): no orphan is left', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'ui-worker-'));
    dirs.push(dataDir);
    const script = `
      const { loadConfig } = await import(${JSON.stringify(resolve('src/config.ts'))});
      const { UiWorker } = await import(${JSON.stringify(resolve('src/server/ui-worker.ts'))});
      const loaded = loadConfig({ MIVAS_DATA_DIR: ${JSON.stringify(dataDir)} });
      setInterval(() => {}, 1000); // the server's listening socket, which keeps a real server alive
      const ui = new UiWorker(loaded.config, () => {});
      await ui.runsPage('r/default/');
      console.log(ui.pid);`;
    const server = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
    const pid = await new Promise<number>((done, fail) => {
      server.stdout.once('data', (b: Buffer) => done(Number(b.toString().trim())));
      server.once('exit', (code) => fail(new Error(`the server stand-in exited (${code})`)));
    });
    expect(existsSync(`/proc/${pid}`)).toBe(true);
    server.kill('SIGKILL');
    let gone = false;
    for (let i = 0; i < 100 && !gone; i++) {
      await sleep(100);
      gone = !existsSync(`/proc/${pid}`) || readFileSync(`/proc/${pid}/stat`, 'utf8').includes(') Z ');
    }
    expect(gone).toBe(true);
  });
});
