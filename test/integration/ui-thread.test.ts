import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Pack } from '../../src/packs/index.ts';
import { UI_QUEUE_MAX } from '../../src/server/index.ts';
import { loadControlPack, writeSnapshotFiles } from '../support/scoring-fixtures.ts';
import { replayWorkspace, S_E1_ROUTE, type ReplayWorkspace } from '../support/scoring-replay.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

// `/ui` builds its models and pages in the UI thread (src/server/score-thread.ts); at most
// UI_QUEUE_MAX requests wait for it, and the next is refused 503 UI_BUSY with Retry-After.

const RUN = 'run_uithread0001';
const PER_RUN = 40;

let pack: Pack;
let ws: ReplayWorkspace;
let dataDir: string;
let server: TestServer;

/** One GET on its own connection: status, the headers that matter here, and the body. */
function get(path: string): Promise<{ status: number; retryAfter: string | undefined; connection: string | undefined; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(`${server.httpUrl}${path}`, { agent: false, timeout: 120_000 }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, retryAfter: res.headers['retry-after'], connection: res.headers.connection, body: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    req.on('timeout', () => req.destroy(new Error('timed out')));
    req.end();
  });
}

beforeAll(async () => {
  pack = await loadControlPack();
  ws = replayWorkspace(pack);
  dataDir = mkdtempSync(join(tmpdir(), 'mivas-ui-queue-'));
  for (let i = 0; i < PER_RUN; i++) writeSnapshotFiles(join(dataDir, 'snapshots'), pack.id, `${RUN}_c${i}`, ws.replay(S_E1_ROUTE, { callId: `${RUN}_c${i}`, taskId: 'S-E1' }, { run_id: RUN }));
  server = await startTestServer({ MIVAS_PACK: pack.id }, {}, dataDir);
}, 120_000);
afterAll(async () => {
  ws?.close();
  await server?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('the UI thread has a bounded queue', () => {
  it(`holds ${UI_QUEUE_MAX} requests while a run is scored and refuses the rest 503 UI_BUSY, Retry-After, connection closed`, async () => {
    const extra = 8;
    // Every conversation page of a run not scored yet: each waits for the run's scoring in the thread.
    const pages = Array.from({ length: UI_QUEUE_MAX + extra }, (_, i) => get(`/ui/r/fast/${RUN}/conv-${RUN}_c${i % PER_RUN}.html`));
    const answers = await Promise.all(pages);
    const refused = answers.filter((a) => a.status === 503);
    const served = answers.filter((a) => a.status === 200);
    expect(served.length + refused.length, answers.map((a) => a.status).join(',')).toBe(answers.length);
    expect(refused.length).toBeGreaterThanOrEqual(extra);
    expect(served.length).toBeGreaterThan(0);
    expect(served.length).toBeLessThanOrEqual(UI_QUEUE_MAX);
    for (const r of refused) {
      expect(JSON.parse(r.body)).toMatchObject({ error: { code: 'UI_BUSY' } });
      expect(Number(r.retryAfter)).toBeGreaterThan(0);
      expect(r.connection).toBe('close');
    }
    expect(served[0]?.body).toContain('<!doctype html>');
  }, 180_000);

  it('serves again once the queue has drained, from the cached model', async () => {
    const page = await get(`/ui/r/fast/${RUN}/conv-${RUN}_c${PER_RUN - 1}.html`);
    expect(page.status).toBe(200);
    expect(page.body).toContain(`${RUN}_c${PER_RUN - 1}`);
  });
});
