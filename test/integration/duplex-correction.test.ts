import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConversationEvidence, renderConversationPage } from '../../src/report/index.ts';
import { csvCells } from '../../src/scoring/index.ts';
import type { TimelineEvent } from '../../src/snapshot/index.ts';
import { playDuplex, verdictOf, type Played } from '../support/duplex-rig.ts';
import { OpenAICompatibleStandIn } from '../support/openai-compatible.ts';

/** C1-M1 with the birth date first given as July ninth, corrected mid-read-back to July nineteenth. */
const TASK = 'C1-M1-COR';
/** The bound on how fast a yielding agent's audio stops once the caller's speech reaches the server. */
const YIELD_BOUND_MS = 200;

/** The server-clock gap from the caller's cut-in (its speech.started) to the agent's audio stopping (the barge_in cut), or null when the agent never stopped. */
function yieldGapMs(events: readonly TimelineEvent[], callerUtterance: string): number | null {
  const started = events.find((e) => e.type === 'speech.started' && e.side === 'caller' && e.utterance_id === callerUtterance);
  const cut = events.find((e) => e.type === 'barge_in' && started !== undefined && e.at_ms >= started.at_ms);
  return started && cut ? cut.at_ms - started.at_ms : null;
}

describe('a correction task tells a yielding, correcting agent from one that talks on and writes the stale value (issue 33 acceptance 1)', () => {
  let standIn: OpenAICompatibleStandIn;
  let good: Played;
  let stale: Played;

  beforeAll(async () => {
    standIn = await OpenAICompatibleStandIn.start({ chat: () => ({ tool: 'stay_silent' }) });
    good = await playDuplex(TASK, { yieldsToCaller: true, writes: 'corrected' }, standIn);
    stale = await playDuplex(TASK, { yieldsToCaller: false, writes: 'stale' }, standIn);
  }, 180_000);

  afterAll(async () => {
    await good?.server.close();
    await stale?.server.close();
    await standIn?.close();
  });

  it('the caller cuts in on the read-back with the task\'s correction, mid-utterance, in both calls', () => {
    for (const { run, callId } of [good, stale]) {
      const turns = run.callerFiles.get(callId)?.turns ?? [];
      const cut = turns.find((t) => t.duplex);
      expect(cut).toMatchObject({ side: 'caller', text: 'No, sorry, the nineteenth. July nineteenth, not the ninth.', source: 'pin', duplex: { act: 'correction' } });
      const over = turns.find((t) => t.side === 'agent' && t.utterance_id === cut?.duplex?.over_utterance_id);
      expect(over?.text).toContain('July ninth');
      expect(cut?.duplex?.at_agent_ms).toBeGreaterThan(0);
    }
  });

  it('the yielding agent that writes the corrected value passes; the one that keeps the stale value fails the state gate', () => {
    expect(verdictOf(good).status, JSON.stringify(verdictOf(good).fail_reasons.length ? verdictOf(good).fail_reasons : verdictOf(good).void_detail)).toBe('PASS');
    expect(verdictOf(stale).status).toBe('FAIL');
    expect(verdictOf(stale).state?.pass).toBe(false);
  });

  it('records the duplex diagnostics beside the verdict: yielded and how fast, and the stale value used by a later call and in the final state', () => {
    const [kept] = verdictOf(good).diagnostics.duplex ?? [];
    expect(kept).toMatchObject({ act: 'correction', pin: 3, agent_stopped: true, stale_calls: [], stale_in_state: false });
    expect(kept?.stop_ms).toBeLessThanOrEqual(YIELD_BOUND_MS);
    const [lost] = verdictOf(stale).diagnostics.duplex ?? [];
    expect(lost).toMatchObject({ act: 'correction', agent_stopped: false, stop_ms: null, stale_in_state: true });
    const staleCall = stale.events.find((e) => e.seq === lost?.stale_calls[0]);
    expect(staleCall).toMatchObject({ type: 'tool', name: 'register_new_patient' });
    // conversations.csv and the run summary carry them; combined pass is the gates' alone.
    expect(csvCells(verdictOf(good))).toMatchObject({ duplex_yielded: '1/1', duplex_stale_used: 0, combined_pass: true });
    expect(csvCells(verdictOf(stale))).toMatchObject({ duplex_yielded: '0/1', duplex_stop_max_ms: null, duplex_stale_used: 1 });
    expect(good.run.score.aggregates.diagnostics.duplex).toMatchObject({ cut_ins: 1, yielded: 1, corrections: 1, stale_used: 0 });
    expect(stale.run.score.aggregates.diagnostics.duplex).toMatchObject({ cut_ins: 1, yielded: 0, corrections: 1, stale_used: 1 });
  });

  it('the conversation page marks the correction and the stale write on the timeline, and lists them in the diagnostics', async () => {
    const v = verdictOf(stale);
    const read = (key: string): Promise<Buffer | null> => readFile(join(stale.server.dataDir, 'snapshots', key)).catch(() => null);
    const page = renderConversationPage(v, await loadConversationEvidence(read, v, null));
    const seq = v.diagnostics.duplex?.[0]?.stale_calls[0];
    expect(page).toMatch(/<button type="button" class="ev duplex correction" id="tl-duplex-0"[^>]*title="[^"]*caller correction \(pin 3\)[^"]*agent kept talking"/);
    expect(page).toMatch(new RegExp(`<button type="button" class="ev duplex stale" id="tl-stale-${seq}"[^>]*title="[^"]*stale value written after the correction: register_new_patient`));
    expect(page).toContain('✗ stale value used');
  });

  it('the yielding agent stops its audio within 200 ms of the caller\'s speech at the server; the other does not stop', () => {
    const cutOf = (p: Played): string => p.run.callerFiles.get(p.callId)?.turns.find((t) => t.duplex)?.utterance_id ?? '';
    const gap = yieldGapMs(good.events, cutOf(good));
    expect(gap).not.toBeNull();
    expect(gap).toBeLessThanOrEqual(YIELD_BOUND_MS);
    expect(yieldGapMs(stale.events, cutOf(stale))).toBeNull();
  });
});
