import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { CallerReport } from '../../src/caller/index.ts';
import { PRICE_TABLE } from '../../src/providers/index.ts';
import type { Summary, TimelineEvent } from '../../src/snapshot/index.ts';
import { dial, eventsOf, OPENING_LINE, readSnapshot, startRealtimeRig, type RealtimeRig } from '../support/realtime-call.ts';
import { decodeAudio, outputOf, sessionOf, tone, type StandInConnection, type WireEntry } from '../support/realtime-server.ts';

const CALL_ID = 'rt_full_call';
const GREETING_MS = 1_000;
const FAREWELL_MS = 800;
const FAREWELL = 'You are booked for Wednesday, October seventh. Thank you for calling. Goodbye.';

/** Plays the model's side of task S-E1: greet, hand off, book, then confirm and say goodbye in the response that ends the call. */
async function playModel(conn: StandInConnection): Promise<{ hopCallId: string; hopResponseId: string; bookCallId: string; endCallId: string; bookOutput: string }> {
  await conn.next('response.create');
  conn.respond([{ audio: tone(GREETING_MS, 24_000), transcript: 'Thanks for calling Maple Lane Repairs.' }]);
  await conn.waitForCallerSpeech();
  conn.send({ type: 'input_audio_buffer.speech_started', item_id: 'in_1', audio_start_ms: 1_000 });
  conn.send({ type: 'input_audio_buffer.speech_stopped', item_id: 'in_1', audio_end_ms: 3_000 });
  conn.send({ type: 'conversation.item.input_audio_transcription.completed', item_id: 'in_1', content_index: 0, transcript: OPENING_LINE });
  const hop = conn.respond([{ call: { name: 'transfer_to_scheduler', args: {} } }]);
  const hopCallId = hop.callIds[0] ?? '';
  await conn.toolOutput(hopCallId);
  await conn.next('response.create');
  const book = conn.respond([{ call: { name: 'book_appointment', args: { date: '2026-10-07' } } }]);
  const bookCallId = book.callIds[0] ?? '';
  const bookOutput = await conn.toolOutput(bookCallId);
  await conn.next('response.create');
  // The goodbye and end_call in one response: no further response.create may follow (the call just closes after it plays).
  const end = conn.respond([{ audio: tone(FAREWELL_MS, 24_000, 550), transcript: FAREWELL }, { call: { name: 'end_call', args: { reason: 'caller_done' } } }]);
  const endCallId = end.callIds[0] ?? '';
  await conn.toolOutput(endCallId);
  return { hopCallId, hopResponseId: hop.responseId, bookCallId, endCallId, bookOutput };
}

function inbound(log: readonly WireEntry[]): WireEntry[] {
  return log.filter((e) => e.dir === 'in');
}

describe('openai/realtime: a full control-industry call through the real server (issue 3 acceptance 1, 6)', () => {
  let rig: RealtimeRig;
  let conn: StandInConnection;
  let report: CallerReport;
  let model: Awaited<ReturnType<typeof playModel>>;
  let summary: Summary;
  let events: readonly TimelineEvent[];

  beforeAll(async () => {
    rig = await startRealtimeRig('openai/realtime');
    const caller = dial(rig, CALL_ID);
    conn = await rig.standIn.nextConnection();
    model = await playModel(conn);
    report = await caller;
    ({ summary, events } = await readSnapshot(rig.server, CALL_ID));
  });
  afterAll(async () => {
    await rig?.close();
  });

  it('configures the session first with the entry agent and GA audio settings (wire.md §6.19)', () => {
    const first = inbound(conn.log)[0];
    expect(first?.type).toBe('session.update');
    const session = sessionOf(conn.received('session.update')[0] ?? { type: '' });
    expect(session).toMatchObject({
      type: 'realtime',
      tool_choice: 'auto',
      output_modalities: ['audio'],
      audio: {
        input: { format: { type: 'audio/pcm', rate: 24000 }, transcription: { model: 'gpt-4o-mini-transcribe' }, turn_detection: { type: 'semantic_vad', interrupt_response: true } },
        output: { format: { type: 'audio/pcm', rate: 24000 }, voice: 'ash' },
      },
    });
    expect(toolNames(session)).toEqual(['transfer_to_scheduler', 'end_call']);
    expect(String(session.instructions)).toContain('Maple Lane Repairs');
  });

  it('sends caller audio only after session.updated, resampled to 24 kHz (wire.md §6.7, §6.20)', () => {
    const firstUpdated = conn.log.find((e) => e.dir === 'out' && e.type === 'session.updated')?.seq ?? Infinity;
    const firstAppend = conn.log.find((e) => e.type === 'input_audio_buffer.append')?.seq ?? -1;
    expect(firstAppend).toBeGreaterThan(firstUpdated);
    for (const e of conn.received('input_audio_buffer.append')) expect(decodeAudio(e).length % 2).toBe(0);
    // 16 kHz → 24 kHz is 1.5 × the bytes (checked exactly in realtime-audio-rates); frames still in
    // flight when the call ended never reach the provider, so only the upper bound is exact here.
    expect(conn.appendedBytes()).toBeLessThanOrEqual(report.callerAudioBytes * 1.5 + 960);
    expect(conn.appendedBytes()).toBeGreaterThan(report.callerAudioBytes);
  });

  it('delivers agent audio to the caller at 16 kHz, paced (wire.md §1.7)', () => {
    const sentMs = GREETING_MS + FAREWELL_MS;
    expect(Math.abs(report.agentAudioBytes - sentMs * 32)).toBeLessThanOrEqual(640);
    const started = eventsOf(events, 'speech.started').filter((e) => e.side === 'agent');
    const completed = eventsOf(events, 'speech.completed').filter((e) => e.side === 'agent');
    expect(started).toHaveLength(2);
    const greetingEnd = completed.find((c) => c.utterance_id === started[0]?.utterance_id);
    // Paced: a 1 s utterance takes at least 1 s less the 200 ms lead to leave; the slack covers its
    // last frame, the resampler's tail and the timeline's whole-millisecond stamps. Unpaced it takes ~0 ms.
    expect((greetingEnd?.at_ms ?? 0) - (started[0]?.at_ms ?? 0)).toBeGreaterThanOrEqual(GREETING_MS - 260);
    expect(completed.every((c) => !c.interrupted)).toBe(true);
  });

  it('hands off in the SDK order: session.update, then the output, then response.create after response.done (wire.md §6.21)', () => {
    const wire = inbound(conn.log);
    const outputAt = wire.findIndex((e) => outputOf({ type: e.type, ...e.event }, model.hopCallId) !== null);
    const update = wire[outputAt - 1];
    expect(update?.type).toBe('session.update');
    const session = sessionOf({ type: 'session.update', ...update?.event });
    expect(Object.keys(session).sort()).toEqual(['instructions', 'tools', 'type']);
    // The prompt file as written, then the conversation's date and time from the pack clock.
    expect(session.instructions).toBe(`${readFileSync(join('packs', 'control-industry', 'prompts', 'scheduler.md'), 'utf8').trimEnd()}\n\nToday is Monday, October fifth, 2026 (2026-10-05); the local time is nine a.m. (America/New_York).\n`);
    expect(outputOf({ type: 'x', ...wire[outputAt]?.event }, model.hopCallId)).toBe('{"assistant":"scheduler"}');
    const between = wire.slice(outputAt + 1);
    const createAt = between.findIndex((e) => e.type === 'response.create');
    expect(between.slice(0, createAt).every((e) => e.type === 'input_audio_buffer.append')).toBe(true);
    const hopDone = conn.log.find((e) => e.dir === 'out' && e.type === 'response.done' && responseIdOf(e) === model.hopResponseId);
    expect(between[createAt]?.seq).toBeGreaterThan(hopDone?.seq ?? Infinity);
    expect(eventsOf(events, 'handoff')).toMatchObject([{ from: 'reception', to: 'scheduler' }]);
  });

  it('offers only the scheduler tools after the handoff', () => {
    const updates = conn.received('session.update');
    expect(updates).toHaveLength(2);
    expect(toolNames(sessionOf(updates[1] ?? { type: '' }))).toEqual(['check_date', 'book_appointment', 'end_call']);
  });

  it('relays the tool output byte for byte and answers each call id once (wire.md §6.23)', () => {
    const tool = eventsOf(events, 'tool').find((e) => e.name === 'book_appointment');
    expect(tool?.executed).toBe(true);
    expect(model.bookOutput).toBe(JSON.stringify(tool?.output));
    expect(JSON.parse(model.bookOutput)).toMatchObject({ ok: true, data: { date: '2026-10-07' } });
    const items = conn.received('conversation.item.create');
    expect(items.filter((e) => outputOf(e) !== null)).toHaveLength(3);
    for (const id of [model.hopCallId, model.bookCallId, model.endCallId]) expect(items.filter((e) => outputOf(e, id) !== null)).toHaveLength(1);
  });

  it('never requests a response while one is active, apart from the nudge (wire.md §6.24)', () => {
    let created = 0;
    let done = 0;
    let creates = 0;
    for (const e of conn.log) {
      if (e.dir === 'out' && e.type === 'response.created') created++;
      if (e.dir === 'out' && e.type === 'response.done') done++;
      if (e.dir === 'in' && e.type === 'response.create' && creates++ > 0) expect(created).toBe(done);
    }
    // The nudge, then one after each response that carried a call (hop, booking); none after end_call, whose response spoke the goodbye.
    expect(creates).toBe(3);
    const endOutputAt = conn.log.find((e) => e.dir === 'in' && outputOf({ type: e.type, ...e.event }, model.endCallId) !== null)?.seq ?? Infinity;
    expect(conn.log.filter((e) => e.dir === 'in' && e.type === 'response.create' && e.seq > endOutputAt)).toEqual([]);
  });

  it('records how evenly its own frames left past each lead (summary.pacing; counts, not timings, are asserted)', () => {
    const pacing = summary.pacing;
    // Frames 0 to 10 of each utterance leave together (the lead), so at most frames − 10 per utterance count.
    const frames = Math.ceil(report.agentAudioBytes / 640);
    expect(pacing).toBeDefined();
    expect(pacing?.intervals).toBeGreaterThan(0);
    expect(pacing?.intervals).toBeLessThanOrEqual(frames - 10 * report.agentUtterances);
    expect(pacing?.off_over_5ms).toBeLessThanOrEqual(pacing?.intervals ?? -1);
  });

  it('closes 1000 after end_call only once the farewell has played (wire.md §6.14)', () => {
    expect(report.closeCode).toBe(1000);
    expect(summary.end_reason).toBe('agent_end_call');
    const endCall = eventsOf(events, 'tool').find((e) => e.name === 'end_call');
    const farewell = eventsOf(events, 'speech.started').filter((e) => e.side === 'agent').at(-1);
    const farewellDone = eventsOf(events, 'speech.completed').find((e) => e.utterance_id === farewell?.utterance_id);
    const ended = eventsOf(events, 'call.ended')[0];
    // The farewell's audio and end_call come in one response: the tool is recorded on arrival and the
    // speech when its paced play-out starts, so either may come first; what must hold is the close.
    expect(endCall?.seq).toBeLessThan(ended?.seq ?? -1);
    expect(farewellDone?.interrupted).toBe(false);
    expect(ended?.seq).toBeGreaterThan(farewellDone?.seq ?? Infinity);
    // The close waits for the caller's play-out, not the last send (200 ms earlier): a bound the code guarantees, so load cannot break it.
    expect((ended?.at_ms ?? 0) - (farewell?.at_ms ?? 0)).toBeGreaterThanOrEqual(FAREWELL_MS - 60);
  });

  it('records transcripts of both sides', () => {
    const transcripts = eventsOf(events, 'transcript');
    expect(transcripts.filter((t) => t.side === 'caller').map((t) => t.text)).toEqual([OPENING_LINE]);
    expect(transcripts.filter((t) => t.side === 'agent').map((t) => t.text)).toContain(FAREWELL);
  });

  it('sums usage over every response.done and prices it in the six classes (wire.md §6.26)', () => {
    const responses = conn.log.filter((e) => e.dir === 'out' && e.type === 'response.done').length;
    expect(responses).toBe(4);
    expect(summary.usage).toEqual({
      input_tokens: 200 * responses,
      output_tokens: 100 * responses,
      total_tokens: 300 * responses,
      input_text_tokens: 90 * responses,
      input_audio_tokens: 70 * responses,
      cached_text_tokens: 30 * responses,
      cached_audio_tokens: 10 * responses,
      output_text_tokens: 20 * responses,
      output_audio_tokens: 80 * responses,
    });
    const perResponseUsd = (90 * 4 + 70 * 32 + 30 * 0.4 + 10 * 0.4 + 20 * 24 + 80 * 64) / 1_000_000;
    expect(summary.cost_usd_est).toBeCloseTo(perResponseUsd * responses, 9);
    expect(summary.price_table_version).toBe(PRICE_TABLE.version);
    expect(summary.model).toBe('gpt-realtime-2.1');
    expect(summary.harness).toBe('openai/realtime');
    expect(summary.void_reason).toBeNull();
  });
});

const responseDoneSchema = z.object({ response: z.object({ id: z.string() }) });

function responseIdOf(entry: WireEntry): string | null {
  const parsed = responseDoneSchema.safeParse(entry.event);
  return parsed.success ? parsed.data.response.id : null;
}

function toolNames(session: Record<string, unknown>): string[] {
  const tools = Array.isArray(session.tools) ? (session.tools as unknown[]) : [];
  return tools.map((t) => (t !== null && typeof t === 'object' && 'name' in t ? String(t.name) : ''));
}
