import { PutObjectCommand } from '@aws-sdk/client-s3';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../../src/cli/index.ts';
import { loadControlPack, PACKS_DIR, writeSnapshotFiles } from '../../support/scoring-fixtures.ts';
import { replayWorkspace, S_E1_ROUTE } from '../../support/scoring-replay.ts';
import { startTestS3, useStaticS3Credentials, type TestS3 } from '../../support/s3.ts';

let s3: TestS3;
let dir: string;

async function score(snapshots: string, out: string, env: Record<string, string>): Promise<number> {
  const sink = { write: () => true };
  return runCli(['score', '--snapshots', snapshots, '--out', out, '--packs-dir', PACKS_DIR, '--bootstrap', '500'], { stdout: sink, stderr: sink, env, cwd: dir });
}

beforeAll(async () => {
  useStaticS3Credentials();
  s3 = await startTestS3('scores-in');
  dir = mkdtempSync(join(tmpdir(), 'mivas-s3dir-'));
  const pack = await loadControlPack();
  const ws = replayWorkspace(pack);
  try {
    const snaps = join(dir, 'snapshots');
    writeSnapshotFiles(snaps, pack.id, 'loc_pass', { ...ws.replay(S_E1_ROUTE, { callId: 'loc_pass', taskId: 'S-E1' }), wav: Buffer.from('RIFF') });
    const broken = ws.replay(S_E1_ROUTE, { callId: 'loc_dbonly', taskId: 'S-E1', startedAt: '2026-10-05T13:05:00.000Z' });
    writeSnapshotFiles(snaps, pack.id, 'loc_dbonly', { ...broken, finalText: 'not json' });
    writeSnapshotFiles(snaps, pack.id, 'loc_fail', ws.replay([{ kind: 'hop', to: 'scheduler' }], { callId: 'loc_fail', taskId: 'S-E2' }));
    const partial = ws.replay(S_E1_ROUTE, { callId: 'loc_partial', taskId: 'S-E3' });
    writeSnapshotFiles(snaps, pack.id, 'loc_partial', { summary: partial.summary, final: partial.final });
    for (const name of readdirSync(join(snaps, pack.id))) {
      await s3.client.send(new PutObjectCommand({ Bucket: s3.bucket, Key: `runs/r1/${pack.id}/${name}`, Body: readFileSync(join(snaps, pack.id, name)) }));
    }
  } finally {
    ws.close();
  }
});

afterAll(async () => {
  await s3?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('snapshot inputs: directory and S3 (scoring.md §2.1, acceptance 6)', () => {
  it('S3 prefix and local directory inputs give identical output', async () => {
    const fromDir = await score('snapshots', join(dir, 'out-dir'), {});
    const fromS3 = await score(`s3://${s3.bucket}/runs/r1`, join(dir, 'out-s3'), s3.env);
    expect([fromDir, fromS3]).toEqual([2, 2]);
    for (const file of ['scores.json', 'conversations.csv']) {
      expect(readFileSync(join(dir, 'out-s3', file), 'utf8')).toBe(readFileSync(join(dir, 'out-dir', file), 'utf8'));
    }
    const report = JSON.parse(readFileSync(join(dir, 'out-s3', 'scores.json'), 'utf8')) as { conversations: { conversation_id: string; status: string; void_reason: string | null }[] };
    expect(report.conversations.map((c) => [c.conversation_id, c.status, c.void_reason])).toEqual([
      ['loc_dbonly', 'PASS', null],
      ['loc_fail', 'FAIL', null],
      ['loc_partial', 'VOID', 'snapshot_missing'],
      ['loc_pass', 'PASS', null],
    ]);
    expect(readFileSync(join(dir, 'out-s3', 'report.html'), 'utf8')).toContain(`s3://${s3.bucket}/runs/r1/control-industry/loc_pass.wav`);
  });
});
