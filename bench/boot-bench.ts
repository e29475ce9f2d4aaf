import { execFileSync, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { peakRssMb, ROOT, startServerProcess, tempDir } from './bench-context.ts';

/** The goal of issue 32: the server's resident memory once booted. */
export const BOOT_RSS_GOAL_MB = 150;
/** The acceptance of issue 26: `mivas serve` with a harness that lacks its key exits 3 within this. */
export const CONFIG_EXIT_GOAL_S = 2;

/** The top-level modules in the order the server loads them, for the per-module table. */
const MODULES = ['src/config.ts', 'src/core/index.ts', 'src/packs/index.ts', 'src/store/index.ts', 'src/snapshot/index.ts', 'src/scoring/index.ts', 'src/audio/index.ts', 'src/telemetry/index.ts', 'src/providers/index.ts', 'src/call/index.ts', 'src/episodes/index.ts', 'src/server/index.ts', 'src/report/index.ts'];

export interface ModuleCost {
  readonly module: string;
  readonly rssMb: number;
  readonly cpuMs: number;
}

export interface BootResult {
  /** VmRSS when `/health` first answered. */
  readonly listeningRssMb: number;
  /** VmRSS once it stopped falling (sampled each second, at most 20 s). */
  readonly settledRssMb: number;
  readonly settledAfterS: number;
  /** VmHWM: the peak while booting. */
  readonly peakRssMb: number | null;
  /** Wall time of `mivas serve --harness openai/realtime` without a key, Node's start included. */
  readonly configExitS: number;
  /** Its CPU time (user + system): what a quiet machine's wall time comes close to. */
  readonly configExitCpuS: number;
  readonly configExitCode: number | null;
  readonly modules: readonly ModuleCost[];
  readonly loadavg: readonly number[];
}

function rssMb(pid: number | undefined): number {
  const m = pid ? /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8')) : null;
  return m ? Math.round(Number(m[1]) / 1024) : 0;
}

/** What each top-level module adds to a fresh process (RSS and CPU), loaded in the server's order with drizzle's hook on. */
function moduleCosts(): ModuleCost[] {
  const script = `
    const { loadDrizzleAsCommonJs } = await import(${JSON.stringify(join(ROOT, 'src/core/index.ts'))});
    loadDrizzleAsCommonJs();
    const out = [];
    for (const m of ${JSON.stringify(MODULES)}) {
      const rss = process.memoryUsage().rss, cpu = process.cpuUsage();
      await import(${JSON.stringify(`${ROOT}/`)} + m);
      const used = process.cpuUsage(cpu);
      out.push({ module: m, rssMb: Math.round((process.memoryUsage().rss - rss) / 1048576), cpuMs: Math.round((used.user + used.system) / 1000) });
    }
    console.log(JSON.stringify(out));`;
  return JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', script], { cwd: ROOT, encoding: 'utf8', timeout: 120_000 })) as ModuleCost[];
}

/** CPU seconds of this process's children that have exited and been waited for (cutime + cstime of /proc/self/stat). */
function childrenCpuS(): number {
  // Fields after the command name's closing parenthesis: cutime and cstime are the 14th and 15th.
  const stat = readFileSync('/proc/self/stat', 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[13]) + Number(fields[14])) / Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim());
}

/** Runs `mivas serve --harness openai/realtime` without a key; resolves with its exit code, wall time and CPU time. */
function configExit(dataDir: string): Promise<{ code: number | null; seconds: number; cpuS: number }> {
  const env: NodeJS.ProcessEnv = { ...process.env, MIVAS_DATA_DIR: dataDir, MIVAS_LOG_LEVEL: 'silent' };
  delete env.OPENAI_API_KEY;
  const cpuBefore = childrenCpuS();
  const started = performance.now();
  const child = spawn(process.execPath, [join(ROOT, 'bin/mivas.js'), 'serve', '--harness', 'openai/realtime', '--port', '0'], { cwd: ROOT, env, stdio: 'ignore' });
  const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
  return new Promise((resolve) =>
    child.once('exit', (code) => {
      clearTimeout(timer);
      const seconds = Math.round((performance.now() - started) / 10) / 100;
      // The exit event comes once Node has waited for the child, so its CPU time is counted by now.
      resolve({ code, seconds, cpuS: Math.round((childrenCpuS() - cpuBefore) * 100) / 100 });
    }),
  );
}

/** Boots `mivas serve --harness scripted` as the image runs it (its Node flags) and reads its memory; then the configuration-error exit. */
export async function benchBoot(): Promise<BootResult> {
  const tmp = tempDir('mivas-bench-boot-');
  try {
    const server = await startServerProcess({ MIVAS_DATA_DIR: tmp.dir, MIVAS_HARNESS: 'scripted' }, { pin: false });
    const pid = server.child.pid;
    const listeningRssMb = rssMb(pid);
    let settledRssMb = listeningRssMb;
    let settledAfterS = 0;
    for (let s = 1; s <= 20; s++) {
      await new Promise((r) => setTimeout(r, 1_000));
      const now = rssMb(pid);
      if (now < settledRssMb - 1) [settledRssMb, settledAfterS] = [now, s];
      else if (s - settledAfterS >= 5 && settledRssMb < listeningRssMb) break;
    }
    const peak = peakRssMb(pid);
    await server.stop();
    const exit = await configExit(tmp.dir);
    return { listeningRssMb, settledRssMb, settledAfterS, peakRssMb: peak, configExitS: exit.seconds, configExitCpuS: exit.cpuS, configExitCode: exit.code, modules: moduleCosts(), loadavg: loadavg().map((v) => Math.round(v * 10) / 10) };
  } finally {
    tmp.remove();
  }
}
