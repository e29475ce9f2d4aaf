import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createSpeechSynth, type SpeechSynth } from '../../src/audio/index.ts';
import { dialOpeningLine, openingLineOf } from '../../src/caller/index.ts';
import { SNAPSHOT_PARTS, summarySchema } from '../../src/snapshot/index.ts';
import { tryUpgrade } from '../support/chirp-client.ts';
import { startTestS3, useStaticS3Credentials, type TestS3 } from '../support/s3.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

const PACK = 'control-industry';

function spoolDir(dataDir: string): string {
  return join(dataDir, 'spool', PACK);
}

function spooledFiles(dataDir: string): string[] {
  return existsSync(spoolDir(dataDir)) ? readdirSync(spoolDir(dataDir)).sort() : [];
}

function expectedFiles(callId: string): string[] {
  return SNAPSHOT_PARTS.map((p) => `${callId}.${p}`).sort();
}

async function health(server: TestServer): Promise<{ snapshot_backlog: number; snapshot_oldest_pending_s: number }> {
  return (await (await fetch(`${server.httpUrl}/health`)).json()) as { snapshot_backlog: number; snapshot_oldest_pending_s: number };
}

/** Reads every spooled part so the test can check the upload carries the same bytes. */
function readSpool(dataDir: string, callId: string): Map<string, Buffer> {
  return new Map(SNAPSHOT_PARTS.map((p) => [p, readFileSync(join(spoolDir(dataDir), `${callId}.${p}`))]));
}

describe('snapshots survive an S3 outage (acceptance 6)', () => {
  let s3: TestS3;
  let synth: SpeechSynth;
  const cleanup: (() => Promise<void> | void)[] = [];

  beforeAll(async () => {
    useStaticS3Credentials();
    s3 = await startTestS3();
    synth = await createSpeechSynth(16_000, { preferTones: true });
  });
  afterEach(async () => {
    for (const fn of cleanup.splice(0).reverse()) await fn();
    await s3.start();
  });
  afterAll(async () => {
    await s3?.close();
  });

  async function call(server: TestServer, callId: string): Promise<void> {
    const task = server.ctx.pack.tasks.get('S-E1');
    const report = await dialOpeningLine({
      url: server.wsUrl,
      callId,
      taskId: 'S-E1',
      runId: null,
      auth: null,
      openingLine: openingLineOf(task?.intent ?? ''),
      synth,
      paced: false,
      timeoutMs: 20_000,
    });
    expect(report.closeCode).toBe(1000);
  }

  async function expectUploaded(callId: string, spooled: Map<string, Buffer>): Promise<void> {
    const keys = await s3.listKeys(`mivas/${PACK}/${callId}.`);
    expect(keys).toEqual(expectedFiles(callId).map((f) => `mivas/${PACK}/${f}`));
    for (const [part, bytes] of spooled) expect((await s3.getObject(`mivas/${PACK}/${callId}.${part}`)).equals(bytes), part).toBe(true);
  }

  it('stays spooled while S3 is down and is uploaded once S3 is back', async () => {
    const server = await startTestServer({ ...s3.env, MIVAS_FAST: '1' });
    cleanup.push(() => server.close());
    const callId = 'outage_live';
    await s3.stop();
    await call(server, callId);
    await server.ctx.outbox.flush();

    expect(spooledFiles(server.dataDir)).toEqual(expectedFiles(callId));
    expect(summarySchema.parse(JSON.parse(readFileSync(join(spoolDir(server.dataDir), `${callId}.summary.json`), 'utf8'))).call_id).toBe(callId);
    expect((await health(server)).snapshot_backlog).toBe(1);
    const spooled = readSpool(server.dataDir, callId);

    // A retry while S3 is still down changes nothing.
    await server.ctx.outbox.flush();
    expect(spooledFiles(server.dataDir)).toEqual(expectedFiles(callId));
    expect(server.ctx.outbox.backlog().count).toBe(1);
    // The id is taken while its snapshot waits in the spool.
    expect((await tryUpgrade(server.wsUrl, { 'X-Simulation-Result-Id': callId, 'X-Mivas-Task-Id': 'S-E1' })).status).toBe(409);

    await s3.start();
    await server.ctx.outbox.flush();
    await expectUploaded(callId, spooled);
    expect(spooledFiles(server.dataDir)).toEqual([]);
    expect((await health(server)).snapshot_backlog).toBe(0);

    // Nothing is uploaded twice: another flush adds no objects and the id stays refused.
    await server.ctx.outbox.flush();
    expect(await s3.listKeys()).toEqual(expectedFiles(callId).map((f) => `mivas/${PACK}/${f}`));
    expect((await tryUpgrade(server.wsUrl, { 'X-Simulation-Result-Id': callId, 'X-Mivas-Task-Id': 'S-E1' })).status).toBe(409);
  });

  it('a new server on the same data directory uploads what an earlier one left spooled', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'mivas-outage-'));
    cleanup.push(() => rmSync(dataDir, { recursive: true, force: true }));
    const env = { ...s3.env, MIVAS_FAST: '1', MIVAS_SNAPSHOT_PREFIX: 'restart' };
    const first = await startTestServer(env, {}, dataDir);
    await s3.stop();
    await call(first, 'outage_a');
    await call(first, 'outage_b');
    await first.ctx.outbox.flush();
    expect((await health(first)).snapshot_backlog).toBe(2);
    await first.close();
    expect(spooledFiles(dataDir)).toEqual([...expectedFiles('outage_a'), ...expectedFiles('outage_b')].sort());
    const spooled = { a: readSpool(dataDir, 'outage_a'), b: readSpool(dataDir, 'outage_b') };

    await s3.start();
    const second = await startTestServer(env, {}, dataDir);
    cleanup.push(() => second.close());
    await second.ctx.outbox.flush();

    for (const [callId, parts] of [['outage_a', spooled.a], ['outage_b', spooled.b]] as const) {
      const keys = await s3.listKeys(`restart/${PACK}/${callId}.`);
      expect(keys).toEqual(expectedFiles(callId).map((f) => `restart/${PACK}/${f}`));
      for (const [part, bytes] of parts) expect((await s3.getObject(`restart/${PACK}/${callId}.${part}`)).equals(bytes), part).toBe(true);
    }
    expect(spooledFiles(dataDir)).toEqual([]);
    expect((await health(second)).snapshot_backlog).toBe(0);
    expect((await s3.listKeys('restart/')).length).toBe(2 * SNAPSHOT_PARTS.length);
    // The restarted server knows these ids are used.
    expect((await tryUpgrade(second.wsUrl, { 'X-Simulation-Result-Id': 'outage_a', 'X-Mivas-Task-Id': 'S-E1' })).status).toBe(409);
  });
});
