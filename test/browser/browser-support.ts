import { existsSync, mkdirSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { runCli } from '../../src/cli/index.ts';

/** Debian's Chromium (stack.md, "Browser tests"); the browser suites skip without it. */
export const CHROMIUM = '/usr/bin/chromium';

/** True when the browser tests can run on this machine. */
export const HAS_CHROMIUM = existsSync(CHROMIUM);

/** The one-line reason shown in the suite name when Chromium is absent. */
export const SKIP_REASON = HAS_CHROMIUM ? '' : ` (skipped: ${CHROMIUM} not found; apt-get install -y chromium)`;

/** Where each page's screenshot is written. */
export const SCREENSHOTS = join(import.meta.dirname, '../../test-output/screenshots');

/**
 * Launches headless Chromium with the stack.md flags. `launch()` already gives every browser a
 * fresh temporary profile (it refuses an explicit `--user-data-dir`), so no state is shared.
 */
export async function launchChromium(): Promise<Browser> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}

/** Runs a mivas command in-process and returns its exit code and output. */
export async function mivas(argv: readonly string[], env: Record<string, string>): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const io = { stdout: { write: (t: string) => out.push(t) }, stderr: { write: (t: string) => err.push(t) }, env: { MIVAS_LOG_LEVEL: 'silent', ...env }, cwd: join(import.meta.dirname, '../..') };
  const code = await runCli(argv, io);
  return { code, out: out.join(''), err: err.join('') };
}

/** A real local run: scripted and noop control-industry calls, scored together. */
export interface RecordedRun {
  readonly dataDir: string;
  readonly snapshots: string;
  /** scores.json and friends for every conversation of both runs. */
  readonly scores: string;
  /** What `mivas run` (scripted) printed. */
  readonly runOutput: string;
}

/** Runs `mivas run --fast` with the scripted harness (`tasks`, one trial each) and the noop harness (S-E1), then scores both together. */
export async function recordRun(tasks: readonly string[], withNoop: boolean): Promise<RecordedRun> {
  const dataDir = mkdtempSync(join(tmpdir(), 'mivas-ui-'));
  const env = { MIVAS_DATA_DIR: dataDir, MIVAS_NOOP_WAIT_S: '1' };
  const taskFlags = tasks.flatMap((t) => ['--task', t]);
  const scripted = await mivas(['run', '--pack', 'control-industry', '--harness', 'scripted', '--trials', '1', '--fast', ...taskFlags], env);
  if (scripted.code !== 0) throw new Error(`scripted run failed (${scripted.code}): ${scripted.err}`);
  if (withNoop) await mivas(['run', '--pack', 'control-industry', '--harness', 'noop', '--trials', '1', '--fast', '--task', 'S-E1'], env);
  const snapshots = join(dataDir, 'snapshots');
  const scores = join(dataDir, 'scores', 'all');
  const scored = await mivas(['score', '--snapshots', snapshots, '--out', scores, '--fast', '--bootstrap', '200'], env);
  if (scored.code > 1) throw new Error(`scoring failed (${scored.code}): ${scored.err}`);
  return { dataDir, snapshots, scores, runOutput: scripted.out };
}

/** The call ids of a pack's snapshots. */
export function callIds(snapshots: string, pack = 'control-industry'): string[] {
  return readdirSync(join(snapshots, pack))
    .filter((f) => f.endsWith('.summary.json'))
    .map((f) => f.replace('.summary.json', ''))
    .sort();
}

/** Records every request a page makes, so a test can assert none left the origin. */
export function recordRequests(page: Page): string[] {
  const urls: string[] = [];
  page.on('request', (r) => urls.push(r.url()));
  return urls;
}

/** One `mivas run --fast` of a pack with a harness; returns its run id (printed first). */
export async function runOnce(dataDir: string, pack: string, harness: string, tasks: readonly string[], trials: number): Promise<string> {
  const env = { MIVAS_DATA_DIR: dataDir, MIVAS_NOOP_WAIT_S: '1' };
  const result = await mivas(['run', '--pack', pack, '--harness', harness, '--trials', String(trials), '--fast', ...tasks.flatMap((t) => ['--task', t])], env);
  const runId = /^(run_[0-9a-f]{12}):/m.exec(result.out)?.[1];
  if (!runId || result.code > 2) throw new Error(`${harness} run failed (${result.code}): ${result.err}`);
  return runId;
}

/** The widest the page scrolls horizontally (to check nothing overflows the viewport). */
export async function scrollWidth(page: Page): Promise<number> {
  return page.evaluate(() => document.documentElement.scrollWidth);
}

/** Takes a full-page screenshot into test-output/screenshots. */
export async function shot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });
}
