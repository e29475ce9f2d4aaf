import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSpeechSynth } from '../../src/audio/index.ts';
import { dialOpeningLine, openingLineOf, type CallerReport } from '../../src/caller/index.ts';
import { summarySchema } from '../../src/snapshot/index.ts';
import { loadControlPack } from '../support/call-record.ts';
import { RawChirpClient, tryUpgrade, type UpgradeAnswer } from '../support/chirp-client.ts';
import { healthStatus, pollUntil, spawnServe, type ServeProcess } from '../support/serve-process.ts';

const CALLS = [
  { callId: 'drain_a', taskId: 'S-E1' },
  { callId: 'drain_b', taskId: 'S-E2' },
] as const;

describe('SIGTERM drain of `mivas serve` (acceptance 1)', () => {
  let server: ServeProcess;
  let reports: CallerReport[];
  let exit: { code: number | null; signal: NodeJS.Signals | null };
  let duringDrain: { health: number; healthBody: { status?: string }; upgrade: UpgradeAnswer; probeFrames: number; probeClose: number };

  beforeAll(async () => {
    server = await spawnServe({ MIVAS_HARNESS: 'scripted', MIVAS_PACK: 'control-industry', MIVAS_DRAIN_S: '120' });
    const synth = await createSpeechSynth(16_000);
    const pack = await loadControlPack();
    // Paced calls (real-time audio both ways) so they are still live when SIGTERM arrives.
    const calls = CALLS.map((c) =>
      dialOpeningLine({ url: server.wsUrl, callId: c.callId, taskId: c.taskId, runId: null, auth: null, openingLine: openingLineOf(pack.tasks.get(c.taskId)?.intent ?? ''), synth, paced: true, timeoutMs: 90_000 }),
    );
    await pollUntil(async () => {
      const res = await fetch(`${server.httpUrl}/health`);
      const body = (await res.json()) as { live_calls: number };
      return body.live_calls === CALLS.length;
    });
    server.child.kill('SIGTERM');
    await pollUntil(async () => (await healthStatus(server.httpUrl)) === 503);
    const health = await fetch(`${server.httpUrl}/health`);
    const healthBody = (await health.json()) as { status?: string };
    const upgrade = await tryUpgrade(server.wsUrl, { 'X-Simulation-Result-Id': 'drain_late', 'X-Mivas-Task-Id': 'S-E1' });
    const probe = await RawChirpClient.connect(`${server.wsUrl}probe`, {});
    const probeClose = await probe.closed;
    duringDrain = { health: health.status, healthBody, upgrade, probeFrames: probe.ofType('probe.ok').length, probeClose: probeClose.code };
    reports = await Promise.all(calls);
    exit = await server.exited;
  }, 120_000);

  afterAll(() => {
    if (server && server.child.exitCode === null) server.child.kill('SIGKILL');
    if (server) rmSync(server.dataDir, { recursive: true, force: true });
  });

  it('refuses new upgrades with 503 and Retry-After, never 101', () => {
    expect(duringDrain.upgrade.upgraded).toBe(false);
    expect(duringDrain.upgrade.status).toBe(503);
    expect(Number(duringDrain.upgrade.headers['retry-after'])).toBeGreaterThan(0);
  });

  it('answers /health with 503 "draining" but still answers the 101 probe', () => {
    expect(duringDrain.health).toBe(503);
    expect(duringDrain.healthBody.status).toBe('draining');
    expect(duringDrain.probeFrames).toBe(1);
    expect(duringDrain.probeClose).toBe(1000);
  });

  it('lets the live calls finish normally', () => {
    expect(reports.map((r) => [r.callId, r.closeCode, r.timedOut])).toEqual(CALLS.map((c) => [c.callId, 1000, false]));
  });

  it('uploads every snapshot before exiting', () => {
    for (const { callId } of CALLS) {
      const file = join(server.dataDir, 'snapshots', 'control-industry', `${callId}.summary.json`);
      expect(existsSync(file), file).toBe(true);
      const summary = summarySchema.parse(JSON.parse(readFileSync(file, 'utf8')));
      expect(summary.end_reason).toBe('agent_end_call');
    }
    expect(existsSync(join(server.dataDir, 'spool', 'control-industry', 'drain_a.summary.json'))).toBe(false);
  });

  it('exits 0', () => {
    expect(exit, server.output().slice(-2000)).toEqual({ code: 0, signal: null });
  });
});
