import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/server.ts';
import { callIds, HAS_CHROMIUM, launchChromium, mivas, recordRun, SCREENSHOTS, SKIP_REASON, type RecordedRun } from './browser-support.ts';

const PAYLOAD = '<img src=x onerror=alert(1)>';
const PACK = 'control-industry';
const XSS_ID = 'loc_0000000000aa';

/** Copies a real scripted snapshot under a new id with the payload in a tool argument, its output and the transcript. */
function plantPayload(from: string, callId: string, to: string): void {
  mkdirSync(join(to, PACK), { recursive: true });
  for (const part of ['final.json', 'db', 'wav']) writeFileSync(join(to, PACK, `${XSS_ID}.${part}`), readFileSync(join(from, PACK, `${callId}.${part}`)));
  const summary = JSON.parse(readFileSync(join(from, PACK, `${callId}.summary.json`), 'utf8')) as Record<string, unknown>;
  writeFileSync(join(to, PACK, `${XSS_ID}.summary.json`), JSON.stringify({ ...summary, call_id: XSS_ID }));
  const timeline = JSON.parse(readFileSync(join(from, PACK, `${callId}.timeline.json`), 'utf8')) as { events: Record<string, unknown>[] };
  const events = timeline.events.map((e) => {
    if (e.type === 'call.started') return { ...e, call_id: XSS_ID };
    if (e.type === 'transcript') return { ...e, text: `${String(e.text)} ${PAYLOAD}` };
    if (e.type === 'tool' && e.name === 'book_appointment') return { ...e, arguments: { date: PAYLOAD }, canonical_arguments: { date: PAYLOAD }, output: { ok: true, data: { date: PAYLOAD } } };
    return e;
  });
  writeFileSync(join(to, PACK, `${XSS_ID}.timeline.json`), JSON.stringify({ events }));
}

/** Opens a page, fails on any dialog, and checks the payload never became an element. */
async function openClean(page: Page, url: string, dialogs: string[]): Promise<void> {
  await page.goto(url);
  await page.waitForLoadState('load');
  expect(await page.locator('img').count()).toBe(0);
  expect(await page.evaluate(() => document.querySelectorAll('[onerror]').length)).toBe(0);
  expect(dialogs).toEqual([]);
}

async function expectPayloadAsText(page: Page): Promise<void> {
  for (const section of ['#tools', '#events', '#transcript']) expect(await page.locator(section).innerText()).toContain(PAYLOAD);
  expect(await page.locator('#timeline .ev.tool.industry').first().getAttribute('title')).toContain(PAYLOAD);
}

describe.skipIf(!HAS_CHROMIUM)(`a tool argument with markup renders as text${SKIP_REASON}`, () => {
  let run: RecordedRun;
  let browser: Browser;
  let server: TestServer;
  let snapshots: string;
  let scores: string;
  let exported: string;

  beforeAll(async () => {
    run = await recordRun(['S-E1'], false);
    snapshots = join(run.dataDir, 'xss-snapshots');
    scores = join(run.dataDir, 'xss-scores');
    exported = join(run.dataDir, 'xss-export');
    plantPayload(run.snapshots, callIds(run.snapshots)[0] as string, snapshots);
    const scored = await mivas(['score', '--snapshots', snapshots, '--out', scores, '--fast', '--bootstrap', '50'], { MIVAS_DATA_DIR: run.dataDir });
    expect(scored.out).toContain(`FAIL ${XSS_ID}`);
    expect((await mivas(['report', '--scores', scores, '--out', exported, '--snapshots', snapshots], { MIVAS_DATA_DIR: run.dataDir })).code).toBe(0);
    server = await startTestServer({ CHIRP_USER: 'x', CHIRP_PASS: 'y', MIVAS_SCORES_DIR: scores, MIVAS_SNAPSHOT_DIR: snapshots });
    browser = await launchChromium();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await server?.close();
    if (run) rmSync(run.dataDir, { recursive: true, force: true });
  });

  const pages = ['index.html', 'tasks.html', `task-${PACK}.S-E1.html`, `conv-${XSS_ID}.html`];

  it('in every served page: no dialog, and the conversation shows the payload as text', async () => {
    const context = await browser.newContext({ httpCredentials: { username: 'x', password: 'y' }, viewport: { width: 1400, height: 900 } });
    const page = await context.newPage();
    const dialogs: string[] = [];
    page.on('dialog', (d) => void d.dismiss().then(() => dialogs.push(d.message())));
    for (const name of pages) await openClean(page, `${server.httpUrl}/ui/${name}`, dialogs);
    await expectPayloadAsText(page);
    await page.screenshot({ path: join(SCREENSHOTS, 'xss-served-conversation.png'), fullPage: true });
    await context.close();
  }, 60_000);

  it('in the static export and in the report.html of mivas score', async () => {
    const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
    const page = await context.newPage();
    const dialogs: string[] = [];
    page.on('dialog', (d) => void d.dismiss().then(() => dialogs.push(d.message())));
    for (const name of pages) await openClean(page, `file://${exported}/${name}`, dialogs);
    await expectPayloadAsText(page);
    await openClean(page, `file://${scores}/report.html`, dialogs);
    await page.evaluate(() => document.querySelectorAll('details').forEach((d) => d.setAttribute('open', '')));
    expect(await page.locator('body').innerText()).toContain(PAYLOAD);
    expect(await page.locator('img').count()).toBe(0);
    await context.close();
  }, 60_000);
});
