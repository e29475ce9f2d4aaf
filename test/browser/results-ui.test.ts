import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/server.ts';
import { HAS_CHROMIUM, launchChromium, mivas, recordRequests, recordRun, SCREENSHOTS, SKIP_REASON, type RecordedRun } from './browser-support.ts';

const USER = 'ui-user';
const PASS = 'ui-pass';

async function shot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });
}

/** Leaderboard → task grid (noop row) → task S-E1 → its failed conversation; screenshots along the way. */
async function walkToFailedConversation(page: Page, startUrl: string, prefix: string): Promise<void> {
  await page.goto(startUrl);
  const rows = page.locator('#leaderboard tbody tr');
  await expect.poll(() => rows.count()).toBe(2);
  // Sorting: pass@1 descending puts scripted (1.0) above noop (0.0), ascending the reverse.
  const pass1 = page.locator('#leaderboard thead th', { hasText: 'pass@1' });
  await pass1.click();
  expect(await rows.nth(0).locator('td').nth(4).innerText()).toBe('scripted');
  await pass1.click();
  expect(await rows.nth(0).locator('td').nth(4).innerText()).toBe('noop');
  await shot(page, `${prefix}-leaderboard`);

  await rows.nth(0).locator('a.to-grid').click();
  await page.waitForURL(/tasks\.html#/);
  const visible = page.locator('#grid tbody tr:visible');
  await expect.poll(() => visible.count()).toBe(1);
  expect(await page.locator('#grid tbody tr').count()).toBe(4);
  expect(await visible.locator('a.cell.fail').count()).toBe(1);
  await shot(page, `${prefix}-tasks`);
  await page.selectOption('#filters select[name=entry]', '');
  await page.selectOption('#filters select[name=gate]', 'tools');
  await expect.poll(() => visible.count()).toBe(1);

  await visible.locator('td.task a').click();
  await page.waitForURL(/task-control-industry\.S-E1\.html$/);
  expect(await page.locator('tr.trial').count()).toBe(2);
  await shot(page, `${prefix}-task`);

  await page.locator('tr.trial.st-fail a').click();
  await page.waitForURL(/conv-loc_[0-9a-f]{12}\.html$/);
  expect(await page.locator('#status').innerText()).toBe('FAIL');
}

/** Clicks the first tool-call event on the timeline and returns where it sits and where the audio went. */
async function playFromToolEvent(page: Page): Promise<{ atS: number; currentTime: number }> {
  await page.waitForFunction(() => (document.getElementById('audio') as HTMLAudioElement | null)?.readyState !== undefined && (document.getElementById('audio') as HTMLAudioElement).readyState >= 1);
  const marker = page.locator('#timeline .ev.tool').first();
  const atS = Number(await marker.getAttribute('data-at-ms')) / 1000;
  await marker.click();
  const currentTime = await page.evaluate(() => (document.getElementById('audio') as HTMLAudioElement).currentTime);
  return { atS, currentTime };
}

/** The failing gates' evidence on the noop conversation: state missing row, unmatched call, incomplete path. */
async function expectFailingGateMarkup(page: Page): Promise<void> {
  const missing = page.locator('.state-diff tr.diff-missing[data-table="appointments"]');
  expect(await missing.count()).toBe(1);
  expect(await missing.locator('td.kind').innerText()).toBe('missing');
  expect(await missing.locator('td.rule').innerText()).toBe('exact');
  expect(await page.locator('.state-table[data-table="appointments"] .badge.fail').count()).toBe(1);
  const unmatched = page.locator('.tool-diff table.expected-calls tr.unmatched');
  expect(await unmatched.count()).toBe(1);
  expect(await unmatched.innerText()).toContain('book_appointment');
  expect(await unmatched.innerText()).toContain('never called');
  expect(await page.locator('#handoff .badge.fail').innerText()).toBe('handoff incomplete');
  expect(await page.locator('#handoff svg path.expected').count()).toBe(1);
  expect(await page.locator('#handoff svg g.node').count()).toBe(2);
}

describe.skipIf(!HAS_CHROMIUM)(`results UI in Chromium${SKIP_REASON}`, () => {
  let run: RecordedRun;
  let browser: Browser;
  let server: TestServer;

  beforeAll(async () => {
    run = await recordRun(['S-E1', 'S-E2', 'S-E3'], true);
    server = await startTestServer({ CHIRP_USER: USER, CHIRP_PASS: PASS, MIVAS_SCORES_DIR: run.scores, MIVAS_SNAPSHOT_DIR: run.snapshots });
    browser = await launchChromium();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await server?.close();
    if (run) rmSync(run.dataDir, { recursive: true, force: true });
  });

  it('/ui needs credentials', async () => {
    expect((await server.app.inject({ method: 'GET', url: '/ui/index.html' })).statusCode).toBe(401);
    const auth = `Basic ${Buffer.from(`${USER}:${PASS}`).toString('base64')}`;
    const page = await server.app.inject({ method: 'GET', url: '/ui/index.html', headers: { authorization: auth } });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-security-policy']).toContain("connect-src 'none'");
    expect((await server.app.inject({ method: 'GET', url: '/ui/audio/..%2Fsecret.wav', headers: { authorization: auth } })).statusCode).toBe(404);
  });

  it('served: leaderboard → task → failed conversation; a tool-call event plays from its offset', async () => {
    const context = await browser.newContext({ httpCredentials: { username: USER, password: PASS }, viewport: { width: 1400, height: 900 } });
    const page = await context.newPage();
    const requests = recordRequests(page);
    await walkToFailedConversation(page, `${server.httpUrl}/ui/`, 'served');
    const { atS, currentTime } = await playFromToolEvent(page);
    expect(atS).toBeGreaterThan(0);
    expect(currentTime).toBeGreaterThanOrEqual(atS - 0.05);
    expect(currentTime).toBeLessThan(atS + 1.5);
    await expectFailingGateMarkup(page);
    await shot(page, 'served-conversation');
    expect(requests.filter((u) => !u.startsWith(server.httpUrl))).toEqual([]);
    await context.close();
  }, 60_000);

  it('static export: opens from file:// with no server and shows the same pages', async () => {
    const out = join(run.dataDir, 'export');
    const written = await mivas(['report', '--scores', run.scores, '--out', out, '--snapshots', run.snapshots], { MIVAS_DATA_DIR: run.dataDir });
    expect(written.code).toBe(0);
    expect(written.out).toContain(join(out, 'index.html'));
    const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
    const page = await context.newPage();
    const requests = recordRequests(page);
    await walkToFailedConversation(page, `file://${out}/index.html`, 'static');
    const { atS, currentTime } = await playFromToolEvent(page);
    expect(currentTime).toBeGreaterThanOrEqual(atS - 0.05);
    expect(currentTime).toBeLessThan(atS + 1.5);
    await expectFailingGateMarkup(page);
    await shot(page, 'static-conversation');
    expect(requests.filter((u) => !u.startsWith('file://'))).toEqual([]);
    await context.close();
  }, 60_000);

  it('mivas run ended by writing its report and printing the path', () => {
    const path = /report: (\S+index\.html)/.exec(run.runOutput)?.[1];
    expect(path).toMatch(/scores\/run_[0-9a-f]{12}\/report\/index\.html$/);
    expect(existsSync(path as string)).toBe(true);
  });
});
