/**
 * The soak scenarios of issue 26: an endpoint mivas calls that floods its answer or never gives
 * one. Each runs `mivas run --mode text --harness text/openai-chat` as a child against a hostile
 * loopback endpoint in this process, and measures what matters from outside: the child's peak
 * resident memory (against a control run on an honest endpoint), its wall clock, how far the
 * endpoint got writing before the child hung up, and how every episode ended. Loopback only; every
 * wait is bounded.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { FLOOD_LIMIT_BYTES, HostileEndpoint, type HostileMode } from '../test/support/hostile-endpoint.ts';
import { peakRssMb, ROOT, tempDir } from './bench-context.ts';
import { check, filesIn, sleep, tally, type Check } from './soak-support.ts';

const PACK = 'control-industry';
const TRIALS = 3;
/** Headroom a flooded run may take over the control run's peak (the cap is 4 MiB; before it, 400 MB took 4.38 GB). */
const MEMORY_HEADROOM_MB = 100;
/** Longest a whole run of TRIALS episodes may take, startup included. */
const RUN_LIMIT_MS = 90_000;
/** How far past the cap a flood may get before the child's abort lands (socket buffers). */
const FLOOD_STOPPED_BY = 64 * 1024 * 1024;

type Scenario = (dates: readonly string[]) => Promise<Check[]>;

/** What one text run did: exit status, wall clock, peak RSS and the end reasons of its snapshots. */
interface TextRun {
  readonly exit: number | null;
  readonly ms: number;
  readonly peakMb: number;
  readonly ends: Record<string, number>;
  readonly timedOut: boolean;
}

/** Runs `mivas run --mode text` against `baseUrl`, sampling the child's peak RSS until it exits (killed at RUN_LIMIT_MS). */
async function textRun(baseUrl: string, env: Record<string, string> = {}): Promise<TextRun> {
  const data = tempDir('mivas-soak-outbound-');
  try {
    const argv = [join(ROOT, 'bin/mivas.js'), 'run', '--mode', 'text', '--pack', PACK, '--harness', 'text/openai-chat', '--task', 'S-E1', '--trials', String(TRIALS), '--concurrency', '1'];
    const started = Date.now();
    const child = spawn(process.execPath, argv, { cwd: ROOT, env: { ...process.env, MIVAS_DATA_DIR: data.dir, MIVAS_LOG_LEVEL: 'warn', MIVAS_POLICY_BASE_URL: baseUrl, MIVAS_POLICY_MODEL: 'hostile-1', ...env }, stdio: ['ignore', 'ignore', 'ignore'] });
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    let peakMb = 0;
    let timedOut = false;
    let running = true;
    void exited.then(() => (running = false));
    while (running) {
      peakMb = Math.max(peakMb, peakRssMb(child.pid) ?? 0);
      if (Date.now() - started > RUN_LIMIT_MS) {
        timedOut = true;
        child.kill('SIGKILL');
        break;
      }
      await sleep(50);
    }
    const exit = await exited;
    const dir = join(data.dir, 'snapshots', PACK);
    const summaries = filesIn(dir).filter((f) => f.endsWith('.summary.json'));
    const ends = tally(summaries.map((f) => {
      const summary = JSON.parse(readFileSync(join(dir, f), 'utf8')) as { end_reason: string; void_reason: string | null };
      return `${summary.end_reason}/${summary.void_reason ?? 'scored'}`;
    }));
    return { exit, ms: Date.now() - started, peakMb, ends, timedOut };
  } finally {
    data.remove();
  }
}

/** A control run on an honest endpoint (an empty reply: the policy stops at once). */
async function controlRun(): Promise<TextRun> {
  const honest = await HostileEndpoint.start({ kind: 'json', body: { choices: [{ message: { role: 'assistant', content: null } }] } });
  try {
    return await textRun(honest.baseUrl);
  } finally {
    await honest.close();
  }
}

const allVoid = (run: TextRun): boolean => run.ends['provider_error/provider_error'] === TRIALS && Object.keys(run.ends).length === 1;

/** The policy endpoint answers every request with an endless body: each episode reads 4 MiB, hangs up, and voids. */
const hugeReply: Scenario = async () => {
  const control = await controlRun();
  const mode: HostileMode = { kind: 'flood', prefix: '{"choices": [{"message": {"role": "assistant", "content": "' };
  const endpoint = await HostileEndpoint.start(mode);
  try {
    const run = await textRun(endpoint.baseUrl);
    await Promise.race([Promise.all(endpoint.exchanges.map((e) => e.closed)), sleep(10_000)]);
    const written = endpoint.exchanges.map((e) => e.written);
    return [
      check(`the run ended by itself within ${RUN_LIMIT_MS / 1000} s`, !run.timedOut, `${(run.ms / 1000).toFixed(1)} s, exit ${String(run.exit)}`),
      check(`every episode VOID provider_error (${TRIALS})`, allVoid(run), JSON.stringify(run.ends)),
      check('one request per episode: nothing of the flood was sent back', endpoint.exchanges.length === TRIALS && endpoint.exchanges.every((e) => e.requestBytes === endpoint.exchanges[0]?.requestBytes), `${endpoint.exchanges.length} requests of ${endpoint.exchanges.map((e) => e.requestBytes).join(', ')} bytes`),
      check(`the child hung up a few MiB past the cap (< ${FLOOD_STOPPED_BY / 1024 / 1024} MiB written)`, written.every((w) => w < FLOOD_STOPPED_BY && w < FLOOD_LIMIT_BYTES), written.map((w) => `${(w / 1024 / 1024).toFixed(1)} MiB`).join(', ')),
      check(`peak RSS within ${MEMORY_HEADROOM_MB} MB of the control run`, run.peakMb > 0 && run.peakMb - control.peakMb < MEMORY_HEADROOM_MB, `${run.peakMb} MB vs control ${control.peakMb} MB`),
    ];
  } finally {
    await endpoint.close();
  }
};

/** The policy endpoint never answers: each episode is given up at MIVAS_POLICY_TIMEOUT_S=2 and voids. */
const hungEndpoint: Scenario = async () => {
  const endpoint = await HostileEndpoint.start({ kind: 'hang' });
  try {
    const run = await textRun(endpoint.baseUrl, { MIVAS_POLICY_TIMEOUT_S: '2' });
    const closed = await Promise.race([Promise.all(endpoint.exchanges.map((e) => e.closed)).then(() => true), sleep(10_000).then(() => false)]);
    return [
      check(`the run ended by itself within ${RUN_LIMIT_MS / 1000} s (${TRIALS} × 2 s timeouts)`, !run.timedOut, `${(run.ms / 1000).toFixed(1)} s, exit ${String(run.exit)}`),
      check(`every episode VOID provider_error (${TRIALS})`, allVoid(run), JSON.stringify(run.ends)),
      check('one request per episode, each connection closed by the client', endpoint.exchanges.length === TRIALS && closed, `${endpoint.exchanges.length} requests, closed ${String(closed)}`),
    ];
  } finally {
    await endpoint.close();
  }
};

export const OUTBOUND_SCENARIOS: Record<string, { title: string; run: Scenario }> = {
  hugereply: { title: 'the policy endpoint floods its answer (issue 26)', run: hugeReply },
  hungpolicy: { title: 'the policy endpoint never answers (issue 26)', run: hungEndpoint },
};

