import { PutObjectCommand } from '@aws-sdk/client-s3';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestS3, useStaticS3Credentials, type TestS3 } from '../support/s3.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { HAS_CHROMIUM, launchChromium, mivas, recordRequests, runOnce, scrollWidth, shot, SKIP_REASON } from './browser-support.ts';

const USER = 'ui-s3';
const PASS = 'ui-s3-pass';
const PREFIX = 'team/snapshots';
const PACK = 'healthcare';
const TASKS = ['C1-E1', 'C1-E2', 'C1-M1'];

/**
 * Acceptance 2 of issue 20: `/ui` lists the runs of an S3 prefix (s3rver) and renders their
 * comparison, scoring them on demand (no scores on the pod's disk), with audio read from S3.
 */
describe.skipIf(!HAS_CHROMIUM)(`/ui over an S3 snapshot store${SKIP_REASON}`, () => {
  let s3: TestS3;
  let server: TestServer;
  let browser: Browser;
  let dataDir: string;
  let scripted: string;
  let noop: string;
  let serverData: string;
  const auth = `Basic ${Buffer.from(`${USER}:${PASS}`).toString('base64')}`;

  beforeAll(async () => {
    useStaticS3Credentials();
    dataDir = mkdtempSync(join(tmpdir(), 'mivas-ui-s3-'));
    scripted = await runOnce(dataDir, PACK, 'scripted', TASKS, 1);
    noop = await runOnce(dataDir, PACK, 'noop', TASKS, 1);
    s3 = await startTestS3();
    const dir = join(dataDir, 'snapshots', PACK);
    for (const name of readdirSync(dir)) await s3.client.send(new PutObjectCommand({ Bucket: s3.bucket, Key: `${PREFIX}/${PACK}/${name}`, Body: readFileSync(join(dir, name)) }));
    // The pod's data dir holds stored scores for the scripted run only (labelled); the noop run is scored on demand from S3.
    serverData = mkdtempSync(join(tmpdir(), 'mivas-ui-s3-pod-'));
    const stored = await mivas(['score', '--snapshots', join(dataDir, 'snapshots'), '--run', scripted, '--label', 'stored scripted', '--out', join(serverData, 'scores', scripted), '--fast', '--bootstrap', '300'], { MIVAS_DATA_DIR: dataDir });
    expect(stored.code).toBe(0);
    server = await startTestServer({ ...s3.env, MIVAS_SNAPSHOT_PREFIX: PREFIX, CHIRP_USER: USER, CHIRP_PASS: PASS }, {}, serverData);
    browser = await launchChromium();
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await s3?.close();
    for (const d of [dataDir, serverData]) if (d) rmSync(d, { recursive: true, force: true });
  });

  it('lists both runs of the prefix, behind the credentials', async () => {
    expect((await server.app.inject({ method: 'GET', url: '/ui/runs.html' })).statusCode).toBe(401);
    const page = await server.app.inject({ method: 'GET', url: '/ui/runs.html', headers: { authorization: auth } });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain(`s3://${s3.bucket}/${PREFIX}`);
    for (const run of [scripted, noop]) expect(page.body).toContain(`data-run="${run}"`);
    expect(page.body.match(/<td>on demand<\/td>/g)).toHaveLength(1);
    expect(page.body.match(/<td>stored<\/td>/g)).toHaveLength(1);
    expect(page.body).toContain('>stored scripted</a>');
    expect((await server.app.inject({ method: 'GET', url: '/ui/r/default/..%2Fx/index.html', headers: { authorization: auth } })).statusCode).toBe(404);
    expect((await server.app.inject({ method: 'GET', url: '/ui/r/default/run_000000000000/index.html', headers: { authorization: auth } })).statusCode).toBe(404);
  });

  it('picks the two runs, scores them on demand and renders the comparison; a conversation plays its audio from S3', async () => {
    const context = await browser.newContext({ httpCredentials: { username: USER, password: PASS }, viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    const requests = recordRequests(page);
    await page.goto(`${server.httpUrl}/ui/runs.html`);
    expect(await page.locator('table.store-runs tbody tr').count()).toBe(2);
    await page.check('#fast');
    for (const run of [scripted, noop]) await page.check(`input.pick[value="${run}"]`);
    expect(await page.locator('#picked').innerText()).toBe('2 picked');
    await shot(page, 'ui-s3-runs');
    await page.locator('#compare-picked').click();
    await page.waitForURL(/\/ui\/r\/fast\/run_[0-9a-f]{12}\+run_[0-9a-f]{12}\/compare\.html$/, { timeout: 60_000 });
    const ranks = page.locator('table.ranking tbody tr');
    expect(await ranks.count()).toBe(2);
    expect(await ranks.nth(0).innerText()).toContain('stored scripted');
    expect(await page.locator('table.runs').innerText()).toContain('stored scripted');
    expect(await ranks.nth(0).locator('td.rank').innerText()).toBe('1');
    expect(await ranks.nth(1).locator('td.rank').innerText()).toBe('2');
    expect(await page.locator('section.pair td.a-only').getAttribute('data-count')).toBe(String(TASKS.length));
    expect(await page.locator('section.pair p.pass-k').innerText()).toContain('exact McNemar p = 0.250');
    expect(await page.locator('tr.differing').count()).toBe(TASKS.length);
    expect(await scrollWidth(page)).toBeLessThanOrEqual(1280);
    await shot(page, 'ui-s3-compare');
    await page.locator('tr.differing td.side-b a.cell').first().click();
    await page.waitForURL(/conv-loc_[0-9a-f]{12}\.html$/);
    expect(await page.locator('#status').innerText()).toBe('FAIL');
    await page.waitForFunction(() => ((document.getElementById('audio') as HTMLAudioElement | null)?.readyState ?? 0) >= 1);
    const duration = await page.evaluate(() => (document.getElementById('audio') as HTMLAudioElement).duration);
    expect(duration).toBeGreaterThan(0.5);
    await page.locator('#wave').click({ position: { x: 200, y: 40 } });
    expect(await page.evaluate(() => (document.getElementById('audio') as HTMLAudioElement).currentTime)).toBeGreaterThan(0);
    expect(requests.filter((u) => !u.startsWith(server.httpUrl))).toEqual([]);
    expect(requests.some((u) => /\/ui\/r\/fast\/[^/]+\/audio\/loc_[0-9a-f]{12}\.wav$/.test(u))).toBe(true);
    await context.close();
  }, 120_000);
});
