import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSpeechSynth, parseWav } from '../../src/audio/index.ts';
import { dialOpeningLine, openingLineOf, type CallerReport } from '../../src/caller/index.ts';
import { finalStateSchema, summarySchema, timelineFileSchema, type Summary, type TimelineEvent } from '../../src/snapshot/index.ts';
import { startTestS3, useStaticS3Credentials, type TestS3 } from '../support/s3.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

const CALL_ID = 'loc_e2e0000000a1';
const RUN_ID = 'run_e2e000000001';
const PREFIX = 'e2e-prefix';

/** Root-mean-square level of one channel of interleaved stereo PCM16. */
function channelRms(data: Buffer, channel: 0 | 1, fromFrame = 0, toFrame = data.length / 4): number {
  let sum = 0;
  let n = 0;
  for (let f = fromFrame; f < toFrame; f++) {
    const v = data.readInt16LE(f * 4 + channel * 2);
    sum += v * v;
    n++;
  }
  return n ? Math.sqrt(sum / n) : 0;
}

function firstNonZeroFrame(data: Buffer, channel: 0 | 1): number {
  for (let f = 0; f < data.length / 4; f++) if (data.readInt16LE(f * 4 + channel * 2) !== 0) return f;
  return -1;
}

describe('end to end: local caller → CHIRP → scripted graph → per-call SQLite → S3 (acceptance 2)', () => {
  let s3: TestS3;
  let server: TestServer;
  let report: CallerReport;
  let keys: string[];
  let summary: Summary;
  let events: readonly TimelineEvent[];
  let scratch: string;

  beforeAll(async () => {
    useStaticS3Credentials();
    s3 = await startTestS3();
    // Paced on both sides: the WAV-versus-duration check is only meaningful in real time.
    server = await startTestServer({ ...s3.env, MIVAS_SNAPSHOT_PREFIX: `/${PREFIX}/` });
    const task = server.ctx.pack.tasks.get('S-E1');
    if (!task) throw new Error('S-E1 missing');
    report = await dialOpeningLine({
      url: server.wsUrl,
      callId: CALL_ID,
      taskId: 'S-E1',
      runId: RUN_ID,
      auth: null,
      openingLine: openingLineOf(task.intent),
      synth: await createSpeechSynth(16_000),
      paced: true,
      timeoutMs: 45_000,
    });
    await server.ctx.outbox.flush();
    keys = await s3.listKeys();
    summary = summarySchema.parse(JSON.parse((await s3.getObject(`${PREFIX}/control-industry/${CALL_ID}.summary.json`)).toString('utf8')));
    events = timelineFileSchema.parse(JSON.parse((await s3.getObject(`${PREFIX}/control-industry/${CALL_ID}.timeline.json`)).toString('utf8'))).events;
    scratch = mkdtempSync(join(tmpdir(), 'mivas-e2e-'));
  }, 60_000);

  afterAll(async () => {
    await server?.close();
    await s3?.close();
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  });

  it('ends with the agent hanging up (1000) after the caller spoke', () => {
    expect(report.refusedStatus).toBeNull();
    expect(report.timedOut).toBe(false);
    expect(report.closeCode).toBe(1000);
    expect(report.agentUtterances).toBeGreaterThanOrEqual(3);
    expect(report.callerAudioBytes).toBeGreaterThan(0);
    expect(summary.end_reason).toBe('agent_end_call');
    expect(summary.close_code).toBe(1000);
    expect(summary.call_id).toBe(CALL_ID);
    expect(summary.run_id).toBe(RUN_ID);
    expect(summary.task_id).toBe('S-E1');
    expect(summary.void_reason).toBeNull();
  });

  it('uploads exactly the five parts under <prefix>/<pack>/<call_id>, and empties the spool', async () => {
    expect(keys).toEqual(['db', 'final.json', 'summary.json', 'timeline.json', 'wav'].map((p) => `${PREFIX}/control-industry/${CALL_ID}.${p}`));
    expect(server.ctx.outbox.backlog().count).toBe(0);
    expect(server.ctx.outbox.isSpooled('control-industry', CALL_ID)).toBe(false);
    const health = (await (await fetch(`${server.httpUrl}/health`)).json()) as { snapshot_backlog: number };
    expect(health.snapshot_backlog).toBe(0);
  });

  it('final.json and the .db hold the booked row', async () => {
    const final = finalStateSchema.parse(JSON.parse((await s3.getObject(`${PREFIX}/control-industry/${CALL_ID}.final.json`)).toString('utf8')));
    expect(final.appointments?.map(({ id, date }) => ({ id, date }))).toEqual([{ id: 'appt_20261007', date: '2026-10-07' }]);
    expect(summary.counts.rows_written).toBe(1);
    const file = join(scratch, 'call.db');
    writeFileSync(file, await s3.getObject(`${PREFIX}/control-industry/${CALL_ID}.db`));
    const db = new Database(file, { readonly: true });
    try {
      expect(db.prepare('SELECT id, date FROM appointments ORDER BY id').all()).toEqual([{ id: 'appt_20261007', date: '2026-10-07' }]);
    } finally {
      db.close();
    }
  });

  it('the timeline holds the handoff and the tool calls with the agent that made each', () => {
    const handoffs = events.filter((e) => e.type === 'handoff');
    expect(handoffs.map((e) => [e.from, e.to])).toEqual([['reception', 'scheduler']]);
    const tools = events.flatMap((e) => (e.type === 'tool' ? [e] : []));
    expect(tools.map((t) => [t.kind, t.name, t.agent, t.executed])).toEqual([
      ['handoff', 'transfer_to_scheduler', 'reception', true],
      ['industry', 'book_appointment', 'scheduler', true],
      ['session', 'end_call', 'scheduler', true],
    ]);
    const booking = tools[1];
    expect(booking?.canonical_arguments).toEqual({ date: '2026-10-07' });
    expect(booking?.output).toMatchObject({ ok: true, data: { appointment_id: 'appt_20261007', date: '2026-10-07', idempotent: false } });
    expect(tools[0]?.output).toEqual({ assistant: 'scheduler' });
    // The scripted agent waits for the caller's first utterance before its first tool call.
    const callerDone = events.find((e) => e.type === 'speech.completed' && e.side === 'caller');
    expect(callerDone).toBeDefined();
    expect((callerDone?.seq ?? Infinity) < (tools[0]?.seq ?? -1)).toBe(true);
    // seq is a total order and media offsets never go backwards.
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i));
    for (let i = 1; i < events.length; i++) expect(events[i]?.at_ms).toBeGreaterThanOrEqual(events[i - 1]?.at_ms ?? 0);
    expect(events.at(-1)).toMatchObject({ type: 'call.ended', end_reason: 'agent_end_call', close_code: 1000 });
  });

  it('the WAV is stereo 16 kHz PCM16, as long as the call (±10%), caller left and agent right', async () => {
    const wav = parseWav(await s3.getObject(`${PREFIX}/control-industry/${CALL_ID}.wav`));
    expect(wav.channels).toBe(2);
    expect(wav.rateHz).toBe(16_000);
    expect(wav.bitsPerSample).toBe(16);
    const wavMs = (wav.data.length / 4 / 16_000) * 1000;
    // A paced call of a few seconds: greeting, the caller's line, the bridge line and a goodbye.
    expect(summary.duration_ms).toBeGreaterThan(3_000);
    expect(Math.abs(wavMs - summary.duration_ms)).toBeLessThanOrEqual(summary.duration_ms * 0.1);
    expect(channelRms(wav.data, 0)).toBeGreaterThan(50);
    expect(channelRms(wav.data, 1)).toBeGreaterThan(50);
    // The agent's first sound lands in the right channel where the timeline says it started speaking.
    const agentStart = events.find((e) => e.type === 'speech.started' && e.side === 'agent');
    const firstAgentFrameMs = (firstNonZeroFrame(wav.data, 1) / 16_000) * 1000;
    expect(agentStart).toBeDefined();
    expect(firstAgentFrameMs).toBeGreaterThanOrEqual((agentStart?.at_ms ?? 0) - 250);
    expect(firstAgentFrameMs).toBeLessThanOrEqual((agentStart?.at_ms ?? 0) + 600);
    // The caller's line lies in the left channel between its speech events, and the left channel is quiet before it.
    const callerStart = events.find((e) => e.type === 'speech.started' && e.side === 'caller');
    const callerEnd = events.find((e) => e.type === 'speech.completed' && e.side === 'caller');
    const frameAt = (ms: number): number => Math.max(0, Math.round((ms / 1000) * 16_000));
    expect(channelRms(wav.data, 0, frameAt((callerStart?.at_ms ?? 0) - 100), frameAt(callerEnd?.at_ms ?? 0))).toBeGreaterThan(200);
    expect(channelRms(wav.data, 0, 0, frameAt(agentStart?.at_ms ?? 0))).toBe(0);
  });

  it('the summary passes the smoke rubric', () => {
    expect(summary.smoke.both_sides_spoke).toBe(true);
    expect(summary.smoke.tools_recorded).toBe(true);
    expect(summary.smoke.first_agent_audio_ms).not.toBeNull();
    expect(summary.counts).toEqual({ tool_calls: 3, handoffs: 1, rows_written: 1 });
    expect(summary.pack_version).toBe(server.ctx.pack.packVersion);
    expect(summary.template_hash).toBe(server.ctx.pack.templateHash);
  });
});
