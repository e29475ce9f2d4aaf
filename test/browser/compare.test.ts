import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HAS_CHROMIUM, launchChromium, mivas, recordRequests, runOnce, scrollWidth, shot, SKIP_REASON } from './browser-support.ts';

const PACK = 'healthcare';
const TASKS = ['C1-E1', 'C1-E2', 'C1-M1', 'C1-M2', 'C1-H1', 'C1-H2'];
const LABEL = 'scripted baseline';

/**
 * Acceptance 1 of issue 20: two real runs on a pack (the scripted harness passes every task, the
 * noop harness none), scored run by run with `mivas score --all-runs`, exported with `mivas
 * report`, and read in Chromium at 1,280 px: ranked apart, the paired table and test, and every
 * differing task linked to both conversations.
 */
describe.skipIf(!HAS_CHROMIUM)(`comparison, task and conversation pages in Chromium${SKIP_REASON}`, () => {
  let dataDir: string;
  let site: string;
  let scripted: string;
  let noop: string;
  let browser: Browser;
  let scoreOutput: string;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'mivas-compare-'));
    scripted = await runOnce(dataDir, PACK, 'scripted', TASKS, 2);
    noop = await runOnce(dataDir, PACK, 'noop', TASKS, 2);
    const scores = join(dataDir, 'compared');
    const env = { MIVAS_DATA_DIR: dataDir };
    const scored = await mivas(['score', '--snapshots', join(dataDir, 'snapshots'), '--all-runs', '--out', scores, '--fast', '--bootstrap', '500', '--label', `${scripted}=${LABEL}`], env);
    expect(scored.code).toBeLessThanOrEqual(2);
    scoreOutput = scored.out;
    site = join(dataDir, 'site');
    const report = await mivas(['report', '--scores', scores, '--out', site, '--snapshots', join(dataDir, 'snapshots')], env);
    expect(report.code).toBe(0);
    browser = await launchChromium();
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  async function open(name: string): Promise<{ page: Page; requests: string[] }> {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    const requests = recordRequests(page);
    await page.goto(`file://${site}/${name}`);
    return { page, requests };
  }

  it('mivas score scores each run on its own and prints their comparison', () => {
    for (const run of [scripted, noop]) {
      expect(existsSync(join(dataDir, 'compared', run, 'scores.json'))).toBe(true);
      const meta = JSON.parse(readFileSync(join(dataDir, 'compared', run, 'run.json'), 'utf8')) as { runs: { run_id: string; label: string; caller: { kind: string } }[] };
      expect(meta.runs.map((r) => r.run_id)).toEqual([run]);
      expect(meta.runs[0]?.caller.kind).toBe('scripted');
    }
    expect(scoreOutput).toContain(`${LABEL} (A) vs noop`);
    expect(scoreOutput).toMatch(/\(A\) vs noop.* \(B\): significant: per-task pass rate A − B 100\.0 points, 95% interval \[\d+\.\d, 100\.0\]/);
    expect(scoreOutput).toMatch(/6 task\(s\) only A, 0 only B, of 6; exact McNemar p 0\.031/);
  });

  it('the comparison page ranks the runs apart, shows the paired table and test, and links both conversations of every differing task', async () => {
    const { page, requests } = await open('compare.html');
    const ranks = page.locator('table.ranking tbody tr');
    expect(await ranks.count()).toBe(2);
    expect(await ranks.nth(0).locator('td.rank').innerText()).toBe('1');
    expect(await ranks.nth(0).innerText()).toContain(LABEL);
    expect(await ranks.nth(1).locator('td.rank').innerText()).toBe('2');
    expect(await ranks.nth(1).innerText()).toContain('noop');
    expect(await page.locator('p.rule').first().innerText()).toContain('ranked by pass^2');
    const pair = page.locator('section.pair');
    expect(await pair.count()).toBe(1);
    expect(await pair.locator('td.a-only').getAttribute('data-count')).toBe('6');
    expect(await pair.locator('td.b-only').getAttribute('data-count')).toBe('0');
    expect(await pair.locator('td.both').getAttribute('data-count')).toBe('0');
    expect(await pair.locator('p.test').innerText()).toMatch(/^Significant at α = 0\.05 over 6 tasks: per-task pass rate A − B 100\.0 points, 95% interval .* which leaves out 0/);
    expect(await pair.locator('p.pass-k').innerText()).toContain('exact McNemar p = 0.031, significant on its own');
    expect(await pair.locator('p.mdd').innerText()).toContain('Minimum detectable difference of the pass^k reading at n = 6 tasks');
    const rows = pair.locator('tr.differing');
    expect(await rows.count()).toBe(TASKS.length);
    expect((await rows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-task')))).sort()).toEqual([...TASKS].sort());
    // Every link in the differing rows resolves to a page of the export, both runs' conversations among them.
    const hrefs = await rows.locator('a[href]').evaluateAll((as) => as.map((a) => a.getAttribute('href') ?? ''));
    expect(hrefs.filter((h) => h.startsWith('conv-'))).toHaveLength(TASKS.length * 4);
    for (const href of hrefs) expect(existsSync(join(site, href)), href).toBe(true);
    expect(await rows.first().locator('td.gate').innerText()).toMatch(/^B passes less often; fails\s.*tools/s);
    expect(await scrollWidth(page)).toBeLessThanOrEqual(1280);
    await shot(page, 'compare');
    // Follow one difference to each side's conversation.
    await rows.first().locator('td.side-a a.cell').first().click();
    await page.waitForURL(/conv-loc_[0-9a-f]{12}\.html$/);
    expect(await page.locator('#status').innerText()).toBe('PASS');
    expect(await page.locator('.run-line').innerText()).toContain(LABEL);
    await page.goBack();
    await rows.first().locator('td.side-b a.cell').first().click();
    await page.waitForURL(/conv-loc_[0-9a-f]{12}\.html$/);
    expect(await page.locator('#status').innerText()).toBe('FAIL');
    expect(requests.filter((u) => !u.startsWith('file://'))).toEqual([]);
    await page.context().close();
  }, 60_000);

  it('the task page says what the task measures, shows the locked caller script and the expected route, and every run’s conversations', async () => {
    const task = JSON.parse(readFileSync(join('packs', PACK, 'tasks', 'C1-E1.json'), 'utf8')) as { exp_handoff_path: string[]; intent: string };
    const { page } = await open(`task-${PACK}.C1-E1.html`);
    expect(await page.locator('#measures .measures').innerText()).toMatch(/^Whether the agent routes reception → /);
    const opening = /Open with exactly:\s*"([^"]+)"/.exec(task.intent)?.[1] as string;
    expect(await page.locator('#caller-script').innerText()).toContain(opening);
    expect(await page.locator('#route svg path.expected').count()).toBe(task.exp_handoff_path.length);
    expect(await page.locator('section.task-entry').count()).toBe(2);
    expect(await page.locator('section.task-entry tr.trial').count()).toBe(4);
    expect(await scrollWidth(page)).toBeLessThanOrEqual(1280);
    await shot(page, 'task');
    await page.context().close();
  }, 60_000);

  it('the conversation pages: argument diff, paths side by side, only differing tables, both transcript sides, fast-run markers, audio, no overflow', async () => {
    const site_ = site;
    // C1-H1 registers a patient: the noop run leaves its tables short, so the state gate fails.
    const trialOf = (task: string, cls: string): string => new RegExp(`<tr class="trial ${cls}"><td>1</td><td><a href="conv-(loc_[0-9a-f]{12})\\.html"`).exec(readFileSync(join(site_, `task-${PACK}.${task}.html`), 'utf8'))?.[1] as string;
    const [passId, failId] = [trialOf('C1-E1', 'st-pass'), trialOf('C1-H1', 'st-fail')];
    const { page } = await open(`conv-${passId}.html`);
    expect(await page.locator('table.arg-diff tr.arg-ok').count()).toBeGreaterThan(0);
    expect(await page.locator('table.arg-diff tr.arg-bad').count()).toBe(0);
    expect(await page.locator('table.paths-side tr.same').count()).toBeGreaterThan(1);
    expect(await page.locator('#transcript tr.caller').count()).toBeGreaterThan(0);
    expect(await page.locator('#transcript tr.agent').count()).toBeGreaterThan(0);
    expect(await page.locator('.fast-note').count()).toBe(1);
    expect(await page.locator('#timeline .track.errors').count()).toBe(1);
    // On a fast run the tool markers sit after the agent speech they follow, not bunched at the start.
    const firstTool = Number(await page.locator('#timeline .ev.tool.industry').first().getAttribute('data-at-ms'));
    const firstAgentSpeechEnd = await page.locator('#timeline .seg.agent').first().evaluate((el) => el.getBoundingClientRect().right);
    const toolLeft = await page.locator('#timeline .ev.tool.industry').first().evaluate((el) => el.getBoundingClientRect().left);
    expect(firstTool).toBeGreaterThan(1000);
    expect(toolLeft).toBeGreaterThanOrEqual(firstAgentSpeechEnd - 8);
    await page.waitForFunction(() => (document.getElementById('audio') as HTMLAudioElement | null)?.readyState !== undefined && (document.getElementById('audio') as HTMLAudioElement).readyState >= 1);
    await page.locator('#timeline .ev.tool.industry').first().click();
    const t = await page.evaluate(() => (document.getElementById('audio') as HTMLAudioElement).currentTime);
    expect(t).toBeGreaterThanOrEqual(firstTool / 1000 - 0.05);
    expect(await scrollWidth(page)).toBeLessThanOrEqual(1280);
    await shot(page, 'conversation-pass');
    await page.goto(`file://${site_}/conv-${failId}.html`);
    const differing = await page.locator('.state-table').evaluateAll((els) => els.map((e) => e.getAttribute('data-table')));
    const tables = await page.locator('#state .badge').first().innerText();
    expect(tables).toBe('state FAIL');
    expect(differing.length).toBeGreaterThan(0);
    expect(await page.locator('.state-table .badge.pass').count()).toBe(0);
    expect(await page.locator('.matching-tables').innerText()).toMatch(/^Tables that match exactly: /);
    expect(await page.locator('table.paths-side tr.diverges').count()).toBe(1);
    expect(await scrollWidth(page)).toBeLessThanOrEqual(1280);
    await shot(page, 'conversation-fail');
    await page.context().close();
  }, 60_000);
});
