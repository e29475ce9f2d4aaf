import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createSpeechSynth } from '../../src/audio/index.ts';
import { dialOpeningLine, openingLineOf } from '../../src/caller/index.ts';
import { directorySource, loadSnapshots, scoreRun } from '../../src/scoring/index.ts';
import { SCORED_PACKS } from '../support/scored-packs.ts';
import { startTestServer } from '../support/server.ts';

/**
 * The scorer on snapshots the live server wrote (issue 13, acceptance 1): for each scored pack,
 * one task with a handoff and a write is dialed with the scripted harness (it must PASS with
 * reward 1) and with noop (it must FAIL). No Chromium: the scores are read, not rendered.
 */
describe.each(SCORED_PACKS)('live snapshots of %s score as the engine played them', (packId) => {
  it('scripted passes, noop fails', async () => {
    const synth = await createSpeechSynth(16_000, { preferTones: true });
    const verdicts: Record<string, { status: string; reward: number | null }> = {};
    for (const harnessName of ['scripted', 'noop'] as const) {
      const server = await startTestServer({ MIVAS_PACK: packId, MIVAS_HARNESS: harnessName, MIVAS_FAST: '1', MIVAS_NOOP_WAIT_S: '2' }, { synth });
      try {
        const task = [...server.ctx.pack.tasks.values()].find((t) => t.exp_handoff_path.length >= 2 && t.exp_tool_calls.length >= 2 && !t.variant_of);
        if (!task) throw new Error(`${packId} has no task with two hops and two calls`);
        const callId = `live_${harnessName}_${task.task_id.replaceAll('-', '_')}`;
        const report = await dialOpeningLine({ url: server.wsUrl, callId, taskId: task.task_id, runId: 'run_live_scoring', auth: null, openingLine: openingLineOf(task.intent), synth, paced: false, timeoutMs: 30_000 });
        expect(report.timedOut).toBe(false);
        await server.ctx.outbox.flush();
        const snapshots = await loadSnapshots(directorySource(join(server.dataDir, 'snapshots')), packId);
        const scored = scoreRun(snapshots, new Map([[packId, server.ctx.pack]]), new Map(), { k: 1, seed: 1, resamples: 10, minCallMs: 0, allowPackDrift: false, pack: packId, stamp: null, flags: {} });
        const verdict = scored.conversations.find((c) => c.conversation_id === callId);
        verdicts[harnessName] = { status: verdict?.status ?? 'missing', reward: verdict?.reward ?? null };
      } finally {
        await server.close();
      }
    }
    expect(verdicts).toEqual({ scripted: { status: 'PASS', reward: 1 }, noop: { status: 'FAIL', reward: expect.any(Number) } });
  }, 90_000);
});
