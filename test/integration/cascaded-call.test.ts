import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSpeechSynth } from '../../src/audio/index.ts';
import { dialOpeningLine, type CallerReport } from '../../src/caller/index.ts';
import { CASCADE_OPENING_CUE } from '../../src/providers/index.ts';
import type { Summary, TimelineEvent } from '../../src/snapshot/index.ts';
import { CascadeStandIn, type ChatRequest, type SeenMessage } from '../support/cascade-endpoints-server.ts';
import { eventsOf, OPENING_LINE, readSnapshot } from '../support/realtime-call.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

const CALL_ID = 'cascade_full_call';
const GREETING = 'Thanks for calling Maple Lane Repairs. How can I help you today?';
const FAREWELL = 'You are booked for Wednesday, October seventh. Thank you for calling. Goodbye.';

function last(req: ChatRequest): SeenMessage | undefined {
  return req.body.messages.at(-1);
}

describe('cascaded: a full control-industry call through the real server (issue 19 acceptance 1)', () => {
  let standIn: CascadeStandIn;
  let server: TestServer;
  let report: CallerReport;
  let requests: ChatRequest[];
  let summary: Summary;
  let events: readonly TimelineEvent[];

  beforeAll(async () => {
    standIn = await CascadeStandIn.start();
    standIn.stt.handler = () => OPENING_LINE;
    const synth = await createSpeechSynth(16_000, { preferTones: true });
    server = await startTestServer({ MIVAS_PACK: 'control-industry', ...standIn.env({ MIVAS_CASCADE_STT_STREAM: '1' }) }, { synth });
    const caller = dialOpeningLine({ url: server.wsUrl, callId: CALL_ID, taskId: null, runId: null, auth: null, openingLine: OPENING_LINE, synth, paced: true, timeoutMs: 60_000 });
    // The model's side of task S-E1: greet, hand off, book, then confirm, say goodbye and end the call in one response.
    const greet = await standIn.chat.next();
    greet.respond({ text: GREETING });
    const hop = await standIn.chat.next();
    hop.respond({ calls: [{ name: 'transfer_to_scheduler', args: {} }] });
    const book = await standIn.chat.next();
    book.respond({ calls: [{ name: 'book_appointment', args: { date: '2026-10-07' } }] });
    const end = await standIn.chat.next();
    end.respond({ text: FAREWELL, calls: [{ name: 'end_call', args: { reason: 'caller_done' } }] });
    report = await caller;
    requests = [greet.request, hop.request, book.request, end.request];
    ({ summary, events } = await readSnapshot(server, CALL_ID));
  }, 60_000);
  afterAll(async () => {
    await server?.close();
    await standIn?.close();
  });

  it('sent nothing the strict stand-ins refused', () => {
    expect(standIn.violations).toEqual([]);
  });

  it('greets on the nudge from an opening cue, the entry agent streaming with its tools', () => {
    const greet = requests[0];
    expect(greet?.body).toMatchObject({ model: 'llama-standin', stream: true, stream_options: { include_usage: true } });
    expect(greet?.body.messages[0]?.role).toBe('system');
    expect(String(greet?.body.messages[0]?.content)).toContain('Maple Lane Repairs');
    expect(last(greet as ChatRequest)).toEqual({ role: 'user', content: CASCADE_OPENING_CUE });
    expect(greet?.body.tools?.map((t) => t.function.name)).toEqual(['transfer_to_scheduler', 'end_call']);
    expect(eventsOf(events, 'item.injected')).toMatchObject([{ role: 'user', text: CASCADE_OPENING_CUE }]);
  });

  it('transcribes the caller segment-wise with the model and key of the STT endpoint', () => {
    expect(standIn.stt.seen).toHaveLength(1);
    const stt = standIn.stt.seen[0];
    expect(stt?.fields).toMatchObject({ model: 'whisper-standin', stream: 'true' });
    expect(stt?.headers.authorization).toBe('Bearer stt-key');
    expect(stt?.wav.subarray(0, 4).toString('ascii')).toBe('RIFF');
    // The segment holds the opening line's speech (at least most of its tone-speech length).
    expect(stt?.wav.length ?? 0).toBeGreaterThan(32 * 1500);
    expect(eventsOf(events, 'transcript').filter((t) => t.side === 'caller').map((t) => t.text)).toEqual([OPENING_LINE]);
  });

  it('hands off natively: the scheduler gets its own instructions and tools, the history carried over', () => {
    const book = requests[2];
    expect(String(book?.body.messages[0]?.content)).toContain('YOUR ROLE: Scheduler');
    expect(book?.body.tools?.map((t) => t.function.name)).toEqual(['check_date', 'book_appointment', 'end_call']);
    const roles = book?.body.messages.map((m) => m.role);
    expect(roles).toEqual(['system', 'user', 'assistant', 'user', 'assistant', 'tool']);
    expect(book?.body.messages[2]?.content).toBe(GREETING);
    const hopCall = book?.body.messages[4]?.tool_calls?.[0];
    expect(hopCall?.function.name).toBe('transfer_to_scheduler');
    expect(book?.body.messages[5]).toEqual({ role: 'tool', tool_call_id: hopCall?.id, content: '{"assistant":"scheduler"}' });
    expect(eventsOf(events, 'handoff')).toMatchObject([{ from: 'reception', to: 'scheduler' }]);
  });

  it('makes the booking and relays its output to the next completion', () => {
    const tool = eventsOf(events, 'tool').find((e) => e.name === 'book_appointment');
    expect(tool?.executed).toBe(true);
    const toolMessage = requests[3]?.body.messages.at(-1);
    expect(toolMessage?.role).toBe('tool');
    expect(JSON.parse(String(toolMessage?.content))).toMatchObject({ ok: true, data: { date: '2026-10-07' } });
    expect(summary.counts.rows_written).toBeGreaterThan(0);
  });

  it('speaks every sentence through /audio/speech as PCM and ends after the farewell played', () => {
    const spoken = standIn.tts.seen.map((r) => r.body.input);
    expect(spoken).toEqual(['Thanks for calling Maple Lane Repairs.', 'How can I help you today?', 'You are booked for Wednesday, October seventh.', 'Thank you for calling.', 'Goodbye.']);
    expect(standIn.tts.seen.every((r) => r.body.response_format === 'pcm' && r.body.voice === 'af_heart' && r.body.model === 'kokoro')).toBe(true);
    expect(standIn.chat.seen).toHaveLength(4);
    expect(report.closeCode).toBe(1000);
    expect(summary.end_reason).toBe('agent_end_call');
    expect(summary.void_reason).toBeNull();
    expect(eventsOf(events, 'transcript').filter((t) => t.side === 'agent').map((t) => t.text)).toEqual([GREETING, FAREWELL]);
  });

  it('reports the LLM usage in text classes and the per-turn latency split in the summary', () => {
    expect(summary.harness).toBe('cascaded');
    expect(summary.model).toBe('llama-standin');
    expect(summary.usage).toMatchObject({ input_tokens: 2000, output_tokens: 160, cached_text_tokens: 400, input_text_tokens: 1600, input_audio_tokens: 0, output_audio_tokens: 0 });
    expect(summary.turn_latency).toHaveLength(1);
    const turn = summary.turn_latency?.[0];
    expect(turn?.endpoint_ms).toBe(0);
    expect(turn?.total_ms).not.toBeNull();
    expect(turn?.total_ms ?? 0).toBeGreaterThanOrEqual((turn?.stt_ms ?? 0) + (turn?.llm_first_token_ms ?? 0));
  });
});
