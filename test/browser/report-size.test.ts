import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compactBytesPerSecond } from '../../src/report/index.ts';
import { HAS_CHROMIUM, launchChromium, mivas, runOnce, shot, SKIP_REASON } from './browser-support.ts';

const PACK = 'healthcare';
/** Every healthcare task: the 72 of the suite plus its six correction variants (issue 33). */
const CALLS = 78;
/** The stated size (docs/ui.md, "Audio"): a 72-task run's report with linked audio stays under 8 MB. */
const LINKED_LIMIT = 8_000_000;

function sizeOf(dir: string): { total: number; files: number } {
  let total = 0;
  let files = 0;
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    const st = statSync(path);
    if (st.isDirectory()) {
      const sub = sizeOf(path);
      total += sub.total;
      files += sub.files;
    } else {
      total += st.size;
      files++;
    }
  }
  return { total, files };
}

/** The seconds of audio in a PCM16 WAV (44-byte header). */
function wavSeconds(bytes: Buffer): number {
  return (bytes.length - 44) / bytes.readUInt32LE(28);
}

/**
 * Acceptance 3 of issue 20: the report of a real full-pack run (every healthcare task, 78 since the
 * correction variants; scripted,
 * --fast) is under its stated size with linked audio; the compact copy is 16,000 bytes per
 * second of call; and a conversation page of either plays its recording.
 */
describe.skipIf(!HAS_CHROMIUM)(`a full healthcare report (78 tasks) stays small and plays its audio${SKIP_REASON}`, () => {
  let dataDir: string;
  let scores: string;
  let browser: Browser;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'mivas-size-'));
    const run = await runOnce(dataDir, PACK, 'scripted', [], 1);
    scores = join(dataDir, 'scores', run);
    browser = await launchChromium();
  }, 240_000);
  afterAll(async () => {
    await browser?.close();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('linked: no recording copied, the whole site under 8 MB; compact: 16,000 bytes per second of call', async () => {
    const snapshots = join(dataDir, 'snapshots');
    const wavs = readdirSync(join(snapshots, PACK)).filter((f) => f.endsWith('.wav'));
    expect(wavs).toHaveLength(CALLS);
    const linked = join(dataDir, 'linked');
    const out = await mivas(['report', '--scores', scores, '--out', linked, '--snapshots', snapshots], { MIVAS_DATA_DIR: dataDir });
    expect(out.out).toContain('audio linked from the snapshot directory, not copied');
    const site = sizeOf(linked);
    expect(readdirSync(linked).filter((f) => f.endsWith('.wav') || f === 'audio')).toEqual([]);
    expect(site.total).toBeLessThan(LINKED_LIMIT);

    const compact = join(dataDir, 'compact');
    expect((await mivas(['report', '--scores', scores, '--out', compact, '--snapshots', snapshots, '--audio', 'compact'], { MIVAS_DATA_DIR: dataDir })).code).toBe(0);
    const seconds = wavs.reduce((s, f) => s + wavSeconds(readFileSync(join(snapshots, PACK, f))), 0);
    const original = wavs.reduce((s, f) => s + statSync(join(snapshots, PACK, f)).size, 0);
    const audio = sizeOf(join(compact, 'audio'));
    expect(audio.files).toBe(CALLS);
    // 8 kHz × 2 channels × 1 byte, plus a 58-byte header per file.
    expect(audio.total).toBeLessThanOrEqual(Math.ceil(seconds * compactBytesPerSecond(2)) + CALLS * 60);
    expect(audio.total / original).toBeLessThan(0.26);
  }, 120_000);

  it('the conversation page plays its recording, linked or compact', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    for (const dir of ['linked', 'compact']) {
      const conv = readdirSync(join(dataDir, dir)).find((f) => f.startsWith('conv-')) as string;
      await page.goto(`file://${join(dataDir, dir, conv)}`);
      await page.waitForFunction(() => ((document.getElementById('audio') as HTMLAudioElement | null)?.readyState ?? 0) >= 2);
      const duration = await page.evaluate(() => (document.getElementById('audio') as HTMLAudioElement).duration);
      const wav = readFileSync(join(dataDir, 'snapshots', PACK, `${conv.slice(5, -5)}.wav`));
      expect(duration).toBeCloseTo(wavSeconds(wav), 1);
      await page.locator('#wave').click({ position: { x: 300, y: 40 } });
      await page.waitForFunction(() => (document.getElementById('audio') as HTMLAudioElement).currentTime > 0);
      expect(await page.evaluate(() => (document.getElementById('audio') as HTMLAudioElement).error)).toBeNull();
      if (dir === 'compact') await shot(page, 'conversation-compact-audio');
    }
    await context.close();
  }, 60_000);
});
