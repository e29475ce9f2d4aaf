import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { BluejayClient, LinkLedger, LinkWorker, LINK_MAX_ATTEMPTS, type LinkOutcome } from '../../../src/bluejay/index.ts';
import { ManualClock, silentLog } from '../../../src/core/index.ts';
import type { Pack } from '../../../src/packs/index.ts';
import { BluejayApiStandIn } from '../../support/bluejay-api.ts';
import { loadControlPack, sampleRecord } from '../../support/call-record.ts';

const KEY = 'bj_test_key';
const SETTLE_MS = 10_000;
const TRACE_ID = '0af7651916cd43dd8448eb211c80319c';

/** Polls a condition the async HTTP path makes true (no fixed sleeps; bounded as a safety net). */
async function until(predicate: () => boolean, limitMs = 10_000): Promise<void> {
  const start = Date.now();
  while (!predicate()) {
    if (Date.now() - start > limitMs) throw new Error('condition not met');
    await new Promise((r) => setTimeout(r, 5));
  }
}

describe('Bluejay link worker (acceptance 3, wire checklist 29–31)', () => {
  let pack: Pack;
  let api: BluejayApiStandIn;
  let dir: string;
  let clock: ManualClock;
  let outcomes: LinkOutcome[];

  const worker = (options: { tracingOn?: boolean; apiKey?: string | undefined } = {}): LinkWorker =>
    new LinkWorker({
      ledger: new LinkLedger(dir),
      client: new BluejayClient({ apiUrl: api.url, apiKey: KEY }),
      settings: { apiKey: 'apiKey' in options ? options.apiKey : KEY, tracingOn: options.tracingOn ?? false, settleMs: SETTLE_MS },
      clock,
      log: silentLog(),
      beforePost: async () => undefined,
      observe: (o) => outcomes.push(o),
    });
  const ledgerState = (callId: string) => new LinkLedger(dir).read(callId);

  /** Lets the settle time pass, then steps through the backoff one attempt at a time. */
  async function driveAttempts(callId: string, attempts: number): Promise<void> {
    clock.advance(SETTLE_MS);
    for (let n = 1; n <= attempts; n++) {
      await api.waitFor(() => api.updates().length === n);
      await until(() => {
        const e = ledgerState(callId);
        return e !== null && e.attempts === n && e.state !== 'in_flight';
      });
      const e = ledgerState(callId);
      if (e?.state !== 'pending') return;
      clock.advance(2 ** (n - 1) * 1000);
    }
  }

  beforeAll(async () => {
    pack = await loadControlPack();
    api = await BluejayApiStandIn.start();
  });
  afterAll(async () => {
    await api.close();
  });
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'mivas-link-'));
    clock = new ManualClock();
    api.requests.length = 0;
    api.updateAnswers.length = 0;
    api.stamp = () => clock.nowMs();
    outcomes = [];
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('waits the settle time, then posts once with X-API-Key and a string simulation_result_id', async () => {
    worker().schedule(sampleRecord(pack, '675'), null, 'control-industry/675.summary.json');
    clock.advance(SETTLE_MS - 1);
    await new Promise((r) => setImmediate(r));
    expect(api.updates()).toHaveLength(0);
    clock.advance(1);
    await api.waitFor(() => api.updates().length === 1);
    await until(() => ledgerState('675')?.state === 'linked');
    const [req] = api.updates();
    expect(req?.headers['x-api-key']).toBe(KEY);
    expect(req?.stamp).toBe(SETTLE_MS);
    expect((req?.body as { simulation_result_id: unknown }).simulation_result_id).toBe('675');
    expect(outcomes).toEqual(['ok']);
  });

  it('503 then 200: two attempts 1 s apart', async () => {
    api.updateAnswers.push({ status: 503, body: { detail: 'busy' } });
    worker().schedule(sampleRecord(pack, '1001'), null, 'k');
    await driveAttempts('1001', 2);
    await until(() => ledgerState('1001')?.state === 'linked');
    const stamps = api.updates().map((r) => r.stamp);
    expect(stamps).toEqual([SETTLE_MS, SETTLE_MS + 1000]);
    expect(outcomes).toEqual(['retried', 'ok']);
  });

  it('a transport error is retried like a 503', async () => {
    api.updateAnswers.push({ status: 0 });
    worker().schedule(sampleRecord(pack, '1002'), null, 'k');
    await driveAttempts('1002', 2);
    await until(() => ledgerState('1002')?.state === 'linked');
    expect(api.updates()).toHaveLength(2);
  });

  it('400: one attempt, recorded as failed, never retried', async () => {
    api.updateAnswers.push({ status: 400, body: { detail: 'bad' } });
    worker().schedule(sampleRecord(pack, '1003'), null, 'k');
    await driveAttempts('1003', 1);
    await until(() => ledgerState('1003')?.state === 'failed');
    clock.advance(60_000);
    await new Promise((r) => setImmediate(r));
    expect(api.updates()).toHaveLength(1);
    expect(ledgerState('1003')?.last_error).toContain('HTTP 400');
    expect(outcomes).toEqual(['failed']);
  });

  it('four 503s: exactly four attempts at 0, 1, 3 and 7 s', async () => {
    for (let i = 0; i < 6; i++) api.updateAnswers.push({ status: 503 });
    worker().schedule(sampleRecord(pack, '1004'), null, 'k');
    await driveAttempts('1004', LINK_MAX_ATTEMPTS);
    await until(() => ledgerState('1004')?.state === 'failed');
    clock.advance(120_000);
    await new Promise((r) => setImmediate(r));
    expect(api.updates().map((r) => r.stamp - SETTLE_MS)).toEqual([0, 1000, 3000, 7000]);
    expect(outcomes).toEqual(['retried', 'retried', 'retried', 'failed']);
  });

  it('a restart after a success posts nothing (resume, schedule again, outbox replay)', async () => {
    worker().schedule(sampleRecord(pack, '1005'), null, 'k');
    await driveAttempts('1005', 1);
    await until(() => ledgerState('1005')?.state === 'linked');
    const restarted = worker();
    expect(restarted.resume()).toBe(0);
    restarted.schedule(sampleRecord(pack, '1005'), null, 'k');
    clock.advance(SETTLE_MS * 10);
    await new Promise((r) => setImmediate(r));
    expect(api.updates()).toHaveLength(1);
  });

  it('a restart resumes a pending link; an in-flight one (outcome unknown) is never re-sent', async () => {
    const ledger = new LinkLedger(dir);
    const base = { attempts: 0, due_epoch_ms: clock.epochMs() + 500, updated_epoch_ms: clock.epochMs(), last_error: null, body: { simulation_result_id: '1006', events: [], recorded_transcript: [], tags: [], metadata: {}, tool_calls: [] } };
    ledger.write({ ...base, call_id: '1006', state: 'pending' });
    ledger.write({ ...base, call_id: '1007', state: 'in_flight', attempts: 1 });
    const restarted = worker();
    expect(restarted.resume()).toBe(1);
    clock.advance(500);
    await api.waitFor(() => api.updates().length === 1);
    await until(() => ledgerState('1006')?.state === 'linked');
    expect((api.updates()[0]?.body as { simulation_result_id: string }).simulation_result_id).toBe('1006');
    expect(ledgerState('1007')?.state).toBe('failed');
  });

  it('tool_calls path: every kind, offsets from the timeline, non-decreasing, no trace_ids', async () => {
    worker({ tracingOn: false }).schedule(sampleRecord(pack, '1008'), null, 'k');
    await driveAttempts('1008', 1);
    const body = api.updates()[0]?.body as { tool_calls: { name: string; start_offset_ms: number; parameters: unknown }[]; trace_ids?: unknown; events: { title: string }[]; recorded_transcript: { speaker: string; start_offset_ms: number; end_offset_ms: number }[] };
    expect(body.trace_ids).toBeUndefined();
    // book_appointment was dispatched at 5200 (5800 − 600), check_date at 5100 (5400 − 300).
    expect(body.tool_calls.map((t) => [t.name, t.start_offset_ms])).toEqual([
      ['transfer_to_billing', 4700],
      ['transfer_to_scheduler', 4800],
      ['check_date', 5100],
      ['book_appointment', 5200],
      ['end_call', 8000],
    ]);
    const offsets = body.tool_calls.map((t) => t.start_offset_ms);
    expect(offsets).toEqual([...offsets].sort((a, b) => a - b));
    expect(body.tool_calls[3]?.parameters).toEqual({ date: '2026-10-07' });
    expect(body.events.map((e) => e.title)).toEqual(['handoff reception → scheduler', 'barge-in']);
    expect(body.recorded_transcript).toEqual([
      { start_offset_ms: 400, end_offset_ms: 2000, speaker: 'AGENT', utterance: 'Maple Lane Repairs, how can I help?' },
      { start_offset_ms: 2500, end_offset_ms: 4500, speaker: 'USER', utterance: "Hi, I'd like to book a repair visit." },
    ]);
  });

  it('trace path: trace_ids only, never tool_calls', async () => {
    worker({ tracingOn: true }).schedule(sampleRecord(pack, '1009'), TRACE_ID, 'k');
    await driveAttempts('1009', 1);
    const body = api.updates()[0]?.body as Record<string, unknown>;
    expect(body.trace_ids).toEqual([TRACE_ID]);
    expect(body).not.toHaveProperty('tool_calls');
  });

  it.each([
    ['a minted call_ id', 'call_0123456789ab', {}, null],
    ['a local loc_ id', 'loc_0123456789ab', {}, null],
    ['no API key', '1010', { apiKey: undefined }, null],
    ['trace mode without a trace id', '1011', { tracingOn: true }, null],
  ] as const)('%s is never linked', async (_name, callId, options, traceId) => {
    const decision = worker(options).schedule(sampleRecord(pack, callId), traceId, 'k');
    expect(decision.link).toBe(false);
    clock.advance(SETTLE_MS * 10);
    await new Promise((r) => setImmediate(r));
    expect(api.updates()).toHaveLength(0);
    expect(ledgerState(callId)).toBeNull();
    expect(outcomes).toEqual(['skipped']);
  });
});
