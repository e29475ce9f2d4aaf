import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSpeechSynth, type SpeechSynth } from '../../src/audio/index.ts';
import { dialOpeningLine, openingLineOf, type CallerReport } from '../../src/caller/index.ts';
import { summarySchema, timelineFileSchema, type Summary, type TimelineEvent } from '../../src/snapshot/index.ts';
import { BluejayApiStandIn } from '../support/bluejay-api.ts';
import { OTLP_PROTOBUF, OtlpCollector } from '../support/otlp-collector.ts';
import { parsePrometheus, sumOf, type PromSample } from '../support/prometheus.ts';
import { dial, eventsOf, readSnapshot as readRealtimeSnapshot, startRealtimeRig, type RealtimeRig } from '../support/realtime-call.ts';
import { tone, type StandInConnection } from '../support/realtime-server.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

const KEY = 'bj_ops_key';

async function call(server: TestServer, synth: SpeechSynth, callId: string, taskId: string, traceparent?: string): Promise<CallerReport> {
  const intent = server.ctx.pack.tasks.get(taskId)?.intent ?? '';
  return dialOpeningLine({ url: server.wsUrl, callId, taskId, runId: null, auth: null, openingLine: openingLineOf(intent), synth, paced: false, timeoutMs: 20_000, ...(traceparent ? { traceparent } : {}) });
}

function readSnapshot(server: TestServer, callId: string): { summary: Summary; events: readonly TimelineEvent[] } {
  const dir = join(server.dataDir, 'snapshots', 'control-industry');
  return {
    summary: summarySchema.parse(JSON.parse(readFileSync(join(dir, `${callId}.summary.json`), 'utf8'))),
    events: timelineFileSchema.parse(JSON.parse(readFileSync(join(dir, `${callId}.timeline.json`), 'utf8'))).events,
  };
}

describe('/metrics after a scripted run (acceptance 4, wire checklist 33)', () => {
  const CALLS = [
    ['met_a', 'S-E1'],
    ['met_b', 'S-E2'],
    ['met_c', 'S-E3'],
  ] as const;
  let server: TestServer;
  let reports: CallerReport[];
  let text: string;
  let samples: PromSample[];
  let contentType: string | null;

  beforeAll(async () => {
    server = await startTestServer({ MIVAS_FAST: '1' });
    const synth = await createSpeechSynth(16_000);
    reports = await Promise.all(CALLS.map(([id, task]) => call(server, synth, id, task)));
    await server.ctx.outbox.flush();
    const res = await fetch(`${server.httpUrl}/metrics`);
    contentType = res.headers.get('content-type');
    text = await res.text();
    samples = parsePrometheus(text).samples;
  }, 60_000);
  afterAll(async () => {
    await server?.close();
  });

  it('is Prometheus text, served without credentials', () => {
    expect(contentType).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(text).toContain('# TYPE mivas_calls_active gauge');
    expect(text).toContain('# TYPE mivas_snapshot_backlog gauge');
    expect(text).toContain('# TYPE mivas_calls_total counter');
    expect(text).toContain('# TYPE mivas_call_duration_seconds histogram');
    expect(text).toMatch(/^nodejs_eventloop_lag_seconds /m);
  });

  it('counts every call by end reason, as the snapshots record it', () => {
    const byReason = new Map<string, number>();
    for (const [id] of CALLS) {
      const reason = readSnapshot(server, id).summary.end_reason;
      byReason.set(reason, (byReason.get(reason) ?? 0) + 1);
    }
    expect(sumOf(samples, 'mivas_calls_total')).toBe(CALLS.length);
    for (const [reason, n] of byReason) expect(sumOf(samples, 'mivas_calls_total', { pack: 'control-industry', harness: 'scripted', end_reason: reason })).toBe(n);
    expect(sumOf(samples, 'mivas_call_duration_seconds_count')).toBe(CALLS.length);
    expect(sumOf(samples, 'mivas_calls_active')).toBe(0);
    expect(sumOf(samples, 'mivas_snapshot_backlog')).toBe(0);
    expect(sumOf(samples, 'mivas_snapshot_uploads_total', { result: 'ok' })).toBe(CALLS.length);
    expect(sumOf(samples, 'mivas_bluejay_links_total', { result: 'skipped' })).toBe(CALLS.length);
  });

  it('counts tool calls by tool and kind, and handoffs, as the timelines record them', () => {
    const tools = new Map<string, number>();
    let handoffs = 0;
    for (const [id] of CALLS) {
      for (const e of readSnapshot(server, id).events) {
        if (e.type === 'tool') tools.set(`${e.name}/${e.kind}`, (tools.get(`${e.name}/${e.kind}`) ?? 0) + 1);
        if (e.type === 'handoff') handoffs++;
      }
    }
    expect(tools.size).toBeGreaterThan(0);
    for (const [key, n] of tools) {
      const [tool = '', kind = ''] = key.split('/');
      expect(sumOf(samples, 'mivas_tool_calls_total', { pack: 'control-industry', tool, kind }), key).toBe(n);
    }
    expect(sumOf(samples, 'mivas_tool_calls_total')).toBe([...tools.values()].reduce((a, b) => a + b, 0));
    expect(sumOf(samples, 'mivas_handoffs_total')).toBe(handoffs);
  });

  it('counts CHIRP audio bytes exactly as the callers saw them', () => {
    expect(sumOf(samples, 'mivas_audio_bytes_total', { direction: 'outbound' })).toBe(reports.reduce((a, r) => a + r.agentAudioBytes, 0));
    expect(sumOf(samples, 'mivas_audio_bytes_total', { direction: 'inbound' })).toBe(reports.reduce((a, r) => a + r.callerAudioBytes, 0));
  });

  it('times each provider connect and response, and the echo of every mark the callers echoed, as the timelines record them', () => {
    const timelines = CALLS.map(([id]) => readSnapshot(server, id).events);
    const count = (type: TimelineEvent['type']): number => timelines.reduce((n, events) => n + events.filter((e) => e.type === type).length, 0);
    expect(sumOf(samples, 'mivas_provider_connect_seconds_count', { provider: 'scripted' })).toBe(CALLS.length);
    expect(count('provider.ready')).toBe(CALLS.length);
    expect(sumOf(samples, 'mivas_model_ttft_seconds_count', { provider: 'scripted', model: 'scripted' })).toBe(count('response.first_audio'));
    expect(count('response.first_audio')).toBeGreaterThanOrEqual(CALLS.length);
    expect(sumOf(samples, 'mivas_model_ttft_seconds_sum')).toBeGreaterThan(0);
    expect(sumOf(samples, 'mivas_mark_echo_seconds_count')).toBeGreaterThanOrEqual(CALLS.length);
    expect(sumOf(samples, 'mivas_pacer_clock_resets_total')).toBe(count('audio.clock_reset'));
  });

  it('never labels a series with a call id', () => {
    const ids = new Set<string>(CALLS.map(([id]) => id));
    for (const s of samples) {
      expect(Object.keys(s.labels)).not.toContain('call_id');
      for (const v of Object.values(s.labels)) expect(ids.has(v), `${s.name} ${v}`).toBe(false);
    }
  });
});

describe('Bluejay link and OTLP export from a live server (wire checklist 29, 31, 32)', () => {
  let api: BluejayApiStandIn;
  let collector: OtlpCollector;
  let synth: SpeechSynth;

  beforeAll(async () => {
    api = await BluejayApiStandIn.start();
    collector = await OtlpCollector.start();
    synth = await createSpeechSynth(16_000);
  });
  afterAll(async () => {
    await api?.close();
    await collector?.close();
  });

  it('trace mode: spans reach the collector with X-API-KEY, one execute_tool span per dispatch, and the POST carries only trace_ids', async () => {
    const server = await startTestServer({
      MIVAS_FAST: '1',
      BLUEJAY_API_KEY: KEY,
      BLUEJAY_API_URL: api.url,
      BLUEJAY_OTLP_ENDPOINT: collector.url,
      BLUEJAY_SERVICE_NAME: 'mivas-test',
      MIVAS_UPSERT_SETTLE_SECONDS: '0',
    });
    try {
      const before = api.updates().length;
      const [linked, local] = await Promise.all([call(server, synth, '4242', 'S-E1'), call(server, synth, 'loc_0123456789ab', 'S-E1')]);
      expect([linked.closeCode, local.closeCode]).toEqual([1000, 1000]);
      await server.ctx.outbox.flush();
      const { summary, events } = readSnapshot(server, '4242');
      expect(summary.trace_id).toMatch(/^[0-9a-f]{32}$/);
      expect(summary.smoke.trace_id_present).toBe(true);

      await api.waitFor(() => api.updates().length === before + 1);
      const post = api.updates().at(-1);
      expect(post?.headers['x-api-key']).toBe(KEY);
      expect(post?.body).toMatchObject({ simulation_result_id: '4242', trace_ids: [summary.trace_id] });
      expect(post?.body).not.toHaveProperty('tool_calls');

      const tools = events.filter((e) => e.type === 'tool');
      expect(tools.length).toBeGreaterThan(0);
      const traceId = summary.trace_id ?? '';
      await collector.waitFor(() => collector.spans.some((s) => s.traceId === traceId && s.name === 'voice.call'));
      expect(collector.exports.every((e) => e.headers['x-api-key'] === KEY)).toBe(true);
      // wire.md §5.1: OTLP/HTTP protobuf, every export decoded (the collector answers 400 to anything else).
      expect(collector.exports.length).toBeGreaterThan(0);
      expect(collector.exports.map((e) => [e.headers['content-type'], e.status])).toEqual(collector.exports.map(() => [OTLP_PROTOBUF, 200]));
      const spans = collector.spans.filter((s) => s.traceId === traceId);
      const root = spans.find((s) => s.name === 'voice.call');
      expect(root?.parentSpanId).toBeNull();
      expect(root?.serviceName).toBe('mivas-test');
      expect(root?.attributes['bluejay.simulation_result_id']).toBe('4242');
      const toolSpans = spans.filter((s) => s.name.startsWith('execute_tool '));
      expect(toolSpans.map((s) => s.name).sort()).toEqual(tools.map((t) => `execute_tool ${t.type === 'tool' ? t.name : ''}`).sort());
      for (const t of tools) {
        if (t.type !== 'tool') continue;
        const span = toolSpans.find((s) => s.name === `execute_tool ${t.name}` && s.attributes['mivas.tool.call_id'] === (t.tool_call_id ?? undefined));
        expect(span?.attributes['gen_ai.tool.call.arguments'], t.name).toBe(JSON.stringify(t.arguments ?? null));
        expect(span?.attributes['bluejay.speech.start_offset_ms']).toBe(Math.round(t.at_ms - t.duration_ms));
      }
      expect(spans.some((s) => s.name === 'agent.speech')).toBe(true);
      // The loc_ call exported spans too but was never linked.
      expect(api.updates().filter((r) => (r.body as { simulation_result_id?: string }).simulation_result_id === 'loc_0123456789ab')).toEqual([]);
    } finally {
      await server.close();
    }
  });

  it('standard OTLP variables: spans reach any collector with no Bluejay key, with the configured headers and service name', async () => {
    const base = collector.url.replace(/\/v1\/traces$/, '');
    const server = await startTestServer({ MIVAS_FAST: '1', OTEL_EXPORTER_OTLP_ENDPOINT: base, OTEL_EXPORTER_OTLP_HEADERS: 'authorization=Bearer%20collector-token,x-tenant=lab', OTEL_SERVICE_NAME: 'mivas-otlp' });
    try {
      const exportsBefore = collector.exports.length;
      const report = await call(server, synth, 'otel_plain', 'S-E1');
      expect(report.closeCode).toBe(1000);
      await server.ctx.outbox.flush();
      const traceId = readSnapshot(server, 'otel_plain').summary.trace_id ?? '';
      expect(traceId).toMatch(/^[0-9a-f]{32}$/);
      await collector.waitFor(() => collector.spans.some((s) => s.traceId === traceId && s.name === 'voice.call'));
      const mine = collector.exports.slice(exportsBefore);
      expect(mine.every((e) => e.path === '/v1/traces' && e.headers.authorization === 'Bearer collector-token' && e.headers['x-tenant'] === 'lab' && e.headers['x-api-key'] === undefined)).toBe(true);
      expect(collector.spans.find((s) => s.traceId === traceId && s.name === 'voice.call')?.serviceName).toBe('mivas-otlp');
      // A dialler's traceparent: the call joins that trace, its root span a child of the dialler's span.
      await call(server, synth, 'otel_parent', 'S-E1', '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01');
      await server.ctx.outbox.flush();
      expect(readSnapshot(server, 'otel_parent').summary.trace_id).toBe('0af7651916cd43dd8448eb211c80319c');
      await collector.waitFor(() => collector.spans.some((s) => s.traceId === '0af7651916cd43dd8448eb211c80319c' && s.name === 'voice.call'));
      expect(collector.spans.find((s) => s.traceId === '0af7651916cd43dd8448eb211c80319c' && s.name === 'voice.call')?.parentSpanId).toBe('b7ad6b7169203331');
    } finally {
      await server.close();
    }
  });

  it('tool_calls mode (MIVAS_OTEL=0): one POST with non-decreasing offsets and no trace_ids', async () => {
    const server = await startTestServer({ MIVAS_FAST: '1', BLUEJAY_API_KEY: KEY, BLUEJAY_API_URL: api.url, BLUEJAY_OTLP_ENDPOINT: collector.url, MIVAS_OTEL: '0', MIVAS_UPSERT_SETTLE_SECONDS: '0' });
    try {
      const spansBefore = collector.spans.length;
      const before = api.updates().length;
      await call(server, synth, '4343', 'S-E1');
      await api.waitFor(() => api.updates().length === before + 1);
      const body = api.updates().at(-1)?.body as { simulation_result_id: string; tool_calls: { name: string; start_offset_ms: number }[]; trace_ids?: unknown };
      expect(body.simulation_result_id).toBe('4343');
      expect(body.trace_ids).toBeUndefined();
      await server.ctx.outbox.flush();
      const { summary, events } = readSnapshot(server, '4343');
      expect(summary.trace_id).toBeNull();
      expect(body.tool_calls.map((t) => t.name).sort()).toEqual(events.flatMap((e) => (e.type === 'tool' ? [e.name] : [])).sort());
      const offsets = body.tool_calls.map((t) => t.start_offset_ms);
      expect(offsets).toEqual([...offsets].sort((a, b) => a - b));
      expect(collector.spans.length).toBe(spansBefore);
    } finally {
      await server.close();
    }
  });
});

/** The model's side of a short call: greet, answer the caller with end_call alone, then the farewell it asks for. */
async function playShortCall(conn: StandInConnection, rateLimits: readonly { name: string; limit: number; remaining: number; reset_seconds: number }[]): Promise<void> {
  await conn.next('response.create');
  conn.send({ type: 'rate_limits.updated', rate_limits: rateLimits });
  conn.respond([{ audio: tone(600, 24_000), transcript: 'Thanks for calling Maple Lane Repairs.' }]);
  await conn.waitForCallerSpeech();
  conn.send({ type: 'input_audio_buffer.speech_started', item_id: 'in_1', audio_start_ms: 700 });
  conn.send({ type: 'input_audio_buffer.speech_stopped', item_id: 'in_1', audio_end_ms: 2_500 });
  const end = conn.respond([{ call: { name: 'end_call', args: { reason: 'caller_done' } } }]);
  await conn.toolOutput(end.callIds[0] ?? '');
  await conn.next('response.create');
  conn.respond([{ audio: tone(400, 24_000, 550), transcript: 'Goodbye.' }]);
}

describe('/metrics after a realtime call: provider connect, time to first audio, mark echo, rate limits (wire.md §5.3)', () => {
  const CALL_ID = 'rt_metrics';
  const RATE_LIMITS = [
    { name: 'requests', limit: 1_000, remaining: 997, reset_seconds: 0.2 },
    { name: 'tokens', limit: 40_000, remaining: 38_765, reset_seconds: 1.5 },
  ];
  let rig: RealtimeRig;
  let samples: PromSample[];
  let events: readonly TimelineEvent[];
  let model: string;

  beforeAll(async () => {
    rig = await startRealtimeRig('openai/realtime');
    const caller = dial(rig, CALL_ID);
    await playShortCall(await rig.standIn.nextConnection(), RATE_LIMITS);
    await caller;
    const snapshot = await readRealtimeSnapshot(rig.server, CALL_ID);
    events = snapshot.events;
    model = snapshot.summary.model ?? '';
    samples = parsePrometheus(await (await fetch(`${rig.server.httpUrl}/metrics`)).text()).samples;
  }, 60_000);
  afterAll(async () => {
    await rig?.close();
  });

  it('observes the connect to session.updated once, labelled by provider', () => {
    expect(eventsOf(events, 'provider.ready')).toHaveLength(1);
    expect(sumOf(samples, 'mivas_provider_connect_seconds_count', { provider: 'openai/realtime' })).toBe(1);
    expect(sumOf(samples, 'mivas_provider_connect_seconds_sum', { provider: 'openai/realtime' })).toBeGreaterThan(0);
  });

  it('observes the time to first audio of every response that spoke', () => {
    expect(model).not.toBe('');
    // The greeting and the farewell; the response that only called end_call had no audio to time.
    expect(eventsOf(events, 'response.first_audio')).toHaveLength(2);
    expect(sumOf(samples, 'mivas_model_ttft_seconds_count', { provider: 'openai/realtime', model })).toBe(2);
    expect(sumOf(samples, 'mivas_model_ttft_seconds_sum', { provider: 'openai/realtime', model })).toBeGreaterThan(0);
  });

  it('observes the echo of the greeting mark the caller sent back', () => {
    const greeting = eventsOf(events, 'speech.started').find((e) => e.side === 'agent')?.utterance_id;
    expect(eventsOf(events, 'mark.echo').map((e) => e.name)).toContain(greeting);
    expect(sumOf(samples, 'mivas_mark_echo_seconds_count')).toBeGreaterThanOrEqual(1);
  });

  it('holds the latest rate-limit remainders the provider sent', () => {
    for (const limit of RATE_LIMITS) expect(sumOf(samples, 'mivas_rate_limit_remaining', { provider: 'openai/realtime', name: limit.name })).toBe(limit.remaining);
  });

  it('exports the pacer clock-reset counter, counted from the timeline', () => {
    expect(samples.some((s) => s.name === 'mivas_pacer_clock_resets_total')).toBe(true);
    expect(sumOf(samples, 'mivas_pacer_clock_resets_total')).toBe(eventsOf(events, 'audio.clock_reset').length);
  });
});
