/**
 * Issue 29 (layout): the leaderboard, compare and conversation pages read at 1,280 px and on a
 * phone (390 px). No table cell is narrower than its longest word (no letter-per-line wrapping),
 * every table scrolls inside its own box rather than the page, breakdowns are charts above their
 * tables, a run keeps one colour on every chart, and no page carries this machine's absolute
 * paths. Screenshots go to test-output/screenshots/layout-*.png.
 */
import { readdirSync, readFileSync, rmSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HAS_CHROMIUM, launchChromium, mivas, runOnce, scrollWidth, shot, SKIP_REASON } from './browser-support.ts';

const PACK = 'healthcare';
const TASKS = ['C1-E1', 'C1-M1', 'C3-M1'];
const WIDTHS = [1280, 390] as const;

/** Every visible table cell whose content box is narrower than the widest word of its text. */
async function squeezedCells(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const canvas = document.createElement('canvas').getContext('2d') as CanvasRenderingContext2D;
    const out: string[] = [];
    for (const cell of Array.from(document.querySelectorAll('td, th')) as HTMLElement[]) {
      if (!cell.offsetParent || cell.clientWidth === 0) continue;
      const style = getComputedStyle(cell);
      canvas.font = `${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
      const room = cell.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
      // A word: a run of letters, digits and underscores (JSON and dates may break at their punctuation).
      const words = (cell.innerText || '').split(/[^\p{L}\p{N}_]+/u).filter(Boolean);
      const widest = words.reduce((best, w) => (canvas.measureText(w).width > canvas.measureText(best).width ? w : best), '');
      // One pixel of slack for sub-pixel rounding between canvas and layout.
      if (widest && canvas.measureText(widest).width > room + 1) out.push(`${widest} (${Math.round(canvas.measureText(widest).width)} px in ${Math.round(room)} px; ${cell.closest('table')?.className ?? ''} in ${cell.closest('section, details')?.id ?? ''})`);
    }
    return out;
  });
}

describe.skipIf(!HAS_CHROMIUM)(`results pages at 1280 and 390 px${SKIP_REASON}`, () => {
  let dataDir: string;
  let site: string;
  let browser: Browser;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'mivas-layout-'));
    const scripted = await runOnce(dataDir, PACK, 'scripted', TASKS, 2);
    await runOnce(dataDir, PACK, 'noop', TASKS, 2);
    const scores = join(dataDir, 'compared');
    const env = { MIVAS_DATA_DIR: dataDir };
    const scored = await mivas(['score', '--snapshots', join(dataDir, 'snapshots'), '--all-runs', '--out', scores, '--fast', '--bootstrap', '200', '--label', `${scripted}=a scripted baseline with a long label`], env);
    expect(scored.code).toBeLessThanOrEqual(2);
    site = join(dataDir, 'site');
    const report = await mivas(['report', '--scores', scores, '--out', site, '--snapshots', join(dataDir, 'snapshots')], env);
    expect(report.code, report.err).toBe(0);
    browser = await launchChromium();
  }, 240_000);
  afterAll(async () => {
    await browser?.close();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  async function open(name: string, width: number): Promise<Page> {
    const context = await browser.newContext({ viewport: { width, height: 900 } });
    const page = await context.newPage();
    await page.goto(`file://${site}/${name}`);
    return page;
  }

  const conversationPage = (): string => readdirSync(site).find((f) => f.startsWith('conv-')) ?? '';

  for (const width of WIDTHS) {
    it(`leaderboard, compare and a conversation at ${width} px: no cell narrower than its longest word, the page never scrolls sideways`, async () => {
      for (const [name, file] of [['leaderboard', 'index.html'], ['compare', 'compare.html'], ['conversation', conversationPage()]] as const) {
        const page = await open(file, width);
        await page.evaluate(() => document.querySelectorAll('details').forEach((d) => d.setAttribute('open', '')));
        await shot(page, `layout-${name}-${width}`);
        expect(await squeezedCells(page), `${name} at ${width} px`).toEqual([]);
        expect(await scrollWidth(page), `${name} at ${width} px`).toBeLessThanOrEqual(width);
        await page.context().close();
      }
    }, 60_000);
  }

  it('the leaderboard draws breakdowns by category and difficulty as charts above their tables', async () => {
    const page = await open('index.html', 1280);
    for (const dimension of ['category', 'difficulty']) {
      const heading = page.locator('h3', { hasText: `by ${dimension}` }).first();
      const next = await heading.evaluate((h) => [h.nextElementSibling?.tagName, h.nextElementSibling?.nextElementSibling?.tagName]);
      expect(next).toEqual(['FIGURE', 'TABLE']);
    }
    await page.context().close();
  });

  it('a run has one colour on the leaderboard and the compare charts', async () => {
    const legend = await (async () => {
      const page = await open('index.html', 1280);
      const pairs = await page.evaluate(() => Array.from(Array.from(document.querySelectorAll('figure.chart')).find((f) => f.querySelector('figcaption')?.textContent?.startsWith('pass^k by k, each run'))?.querySelectorAll('.chart-legend span') ?? []).map((s) => [s.textContent?.trim() ?? '', s.querySelector('line')?.getAttribute('stroke') ?? ''] as const));
      await page.context().close();
      return new Map(pairs);
    })();
    const page = await open('compare.html', 1280);
    const compare = new Map(await page.evaluate(() => Array.from(document.querySelectorAll('g.ci-row')).map((g) => [g.querySelector('text title')?.textContent ?? '', g.querySelector('circle')?.getAttribute('fill') ?? ''] as const)));
    await page.context().close();
    expect(legend.size).toBe(2);
    for (const [label, colour] of legend) expect(compare.get(label), label).toBe(colour);
    expect(new Set(legend.values()).size).toBe(2);
  }, 60_000);

  it('no page carries an absolute local path', () => {
    for (const file of readdirSync(site).filter((f) => f.endsWith('.html'))) {
      const text = readFileSync(join(site, file), 'utf8');
      expect(text.includes(dataDir), file).toBe(false);
      expect(text.includes(process.cwd()), file).toBe(false);
      expect(/(?:href|src)="(?:file:|\/)/.test(text), file).toBe(false);
    }
    const report = readFileSync(join(dataDir, 'compared', readdirSync(join(dataDir, 'compared')).find((d) => d.startsWith('run_')) ?? '', 'report.html'), 'utf8');
    expect(report.includes(dataDir)).toBe(false);
  });
});
