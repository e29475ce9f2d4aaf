import { afterEach, describe, expect, it } from 'vitest';
import { createSpeechSynth } from '../../src/audio/index.ts';
import { dialOpeningLine } from '../../src/caller/index.ts';
import type { TimelineEvent } from '../../src/snapshot/index.ts';
import { eventsOf, OPENING_LINE, PACK, readSnapshot } from '../support/realtime-call.ts';
import { RealtimeStandIn } from '../support/realtime-server.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

/**
 * Issue 26: a realtime provider that refuses the session setup, or never confirms it, ends the
 * call `provider_error` within seconds instead of holding it until the caller hangs up (voided
 * `no_agent_audio`). The refusal is the `error` event openai-node 7.59 types as
 * `RealtimeErrorEvent` (`resources/realtime/realtime.d.ts`), whose doc says most errors leave the
 * session open: the socket stays up, so only the session can tell the setup failed.
 */
let standIn: RealtimeStandIn | null = null;
let server: TestServer | null = null;

afterEach(async () => {
  await server?.close();
  await standIn?.close();
  server = null;
  standIn = null;
});

async function callAgainst(options: Parameters<typeof RealtimeStandIn.start>[0], env: Record<string, string> = {}): Promise<{ elapsedMs: number; closeCode: number; callId: string }> {
  standIn = await RealtimeStandIn.start(options);
  server = await startTestServer({ MIVAS_HARNESS: 'openai/realtime', MIVAS_PACK: PACK, OPENAI_API_KEY: 'sk-test', MIVAS_OPENAI_BASE_URL: standIn.baseUrl('/v1'), ...env }, { synth: await createSpeechSynth(16_000, { preferTones: true }) });
  const callId = `rt_setup_${Date.now().toString(36)}`;
  const started = performance.now();
  // The caller's own timeout (60 s) is far past the bounds: only the server can end this call in time.
  const report = await dialOpeningLine({ url: server.wsUrl, callId, taskId: null, runId: null, auth: null, openingLine: OPENING_LINE, synth: server.ctx.synth, paced: true, timeoutMs: 60_000 });
  return { elapsedMs: performance.now() - started, closeCode: report.closeCode, callId };
}

/** Checks that the server ended the call (1011) as provider_error, end and void; returns its timeline. */
async function endedByProvider(callId: string, closeCode: number): Promise<readonly TimelineEvent[]> {
  expect(closeCode).toBe(1011);
  if (!server) throw new Error('no server');
  const { summary, events } = await readSnapshot(server, callId);
  expect(summary.end_reason).toBe('provider_error');
  expect(summary.void_reason).toBe('provider_error');
  return events;
}

describe('a provider that refuses or never confirms its setup ends the call provider_error (issue 26)', () => {
  it('an error answering the first session.update ends the call provider_error in under 10 s', async () => {
    const refusal = { type: 'invalid_request_error', code: 'invalid_value', message: "Invalid value: 'ash2'. Supported values are: 'alloy', 'ash'.", param: 'session.audio.output.voice' };
    const { elapsedMs, closeCode, callId } = await callAgainst({ refuseSetup: refusal });
    console.log(`setup refused: call ended after ${(elapsedMs / 1000).toFixed(2)} s`);
    expect(elapsedMs).toBeLessThan(10_000);
    const events = await endedByProvider(callId, closeCode);
    expect(eventsOf(events, 'provider.ready')).toHaveLength(0);
    expect(eventsOf(events, 'provider.error')).toEqual([expect.objectContaining({ code: 'session_refused', fatal: true, message: expect.stringContaining('invalid_value') })]);
  }, 30_000);

  it('a provider that never answers session.update ends the call at the ready deadline', async () => {
    const { elapsedMs, closeCode, callId } = await callAgainst({ autoSessionUpdated: false }, { MIVAS_PROVIDER_READY_S: '1.5' });
    console.log(`silent provider: call ended after ${(elapsedMs / 1000).toFixed(2)} s (ready deadline 1.5 s)`);
    expect(elapsedMs).toBeGreaterThanOrEqual(1_500);
    expect(elapsedMs).toBeLessThan(10_000);
    const events = await endedByProvider(callId, closeCode);
    expect(eventsOf(events, 'provider.error')).toEqual([expect.objectContaining({ code: 'provider_not_ready', fatal: true })]);
  }, 30_000);

  it('a provider that confirms its setup is not cut by the deadline', async () => {
    standIn = await RealtimeStandIn.start();
    server = await startTestServer({ MIVAS_HARNESS: 'openai/realtime', MIVAS_PACK: PACK, OPENAI_API_KEY: 'sk-test', MIVAS_OPENAI_BASE_URL: standIn.baseUrl('/v1'), MIVAS_PROVIDER_READY_S: '0.5' }, { synth: await createSpeechSynth(16_000, { preferTones: true }) });
    const callId = 'rt_setup_ok';
    const caller = dialOpeningLine({ url: server.wsUrl, callId, taskId: null, runId: null, auth: null, openingLine: OPENING_LINE, synth: server.ctx.synth, paced: true, timeoutMs: 60_000 });
    const conn = await standIn.nextConnection();
    await conn.next('response.create');
    // Well past the deadline the call is still up: the nudge came, nothing ended it.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(server.ctx.registry.sessions().map((s) => s.identity.callId)).toContain(callId);
    conn.drop();
    await caller;
    const { events } = await readSnapshot(server, callId);
    expect(eventsOf(events, 'provider.error').map((e) => e.code)).not.toContain('provider_not_ready');
  }, 30_000);
});
