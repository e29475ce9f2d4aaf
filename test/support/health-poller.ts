import { spawn } from 'node:child_process';

/** What a health poller saw: the slowest answer, how many polls, every status. */
export interface HealthPolls {
  readonly slowestMs: number;
  readonly medianMs: number;
  readonly polls: number;
  readonly statuses: number[];
}

// Runs in its own process so that the load a test generates does not delay its own measurement.
const SCRIPT = `
const url = process.argv[1];
let slowestMs = 0, polls = 0; const statuses = new Set(); const times = [];
let running = true;
process.stdin.on('data', () => { running = false; });
(async () => {
  while (running) {
    const started = performance.now();
    try { const res = await fetch(url); await res.arrayBuffer(); statuses.add(res.status); } catch { statuses.add(0); }
    times.push(performance.now() - started);
    slowestMs = Math.max(slowestMs, performance.now() - started);
    polls++;
    await new Promise((r) => setTimeout(r, 100));
  }
  process.stdout.write(JSON.stringify({ slowestMs, medianMs: times.sort((a, b) => a - b)[Math.floor(times.length / 2)] ?? 0, polls, statuses: [...statuses] }), () => process.exit(0));
})();
`;

/** Polls `<httpUrl>/health` every 100 ms from a child process until `stop()`. */
export function pollHealthApart(httpUrl: string): { stop(): Promise<HealthPolls> } {
  const child = spawn(process.execPath, ['-e', SCRIPT, `${httpUrl}/health`], { stdio: ['pipe', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    async stop() {
      child.stdin.write('stop\n');
      await exited;
      return JSON.parse(out) as HealthPolls;
    },
  };
}
