import { beforeAll, describe, expect, it } from 'vitest';
import type { Pack } from '../../../src/packs/index.ts';
import { CallTracer, clipJson, MivasMetrics, parseTraceparent, planCallSpans } from '../../../src/telemetry/index.ts';
import { seededIds } from '../../../src/core/index.ts';
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace';
import { loadControlPack, sampleRecord } from '../../support/call-record.ts';

describe('call spans from the timeline (wire.md §5.2)', () => {
  let pack: Pack;
  beforeAll(async () => {
    pack = await loadControlPack();
  });

  it('plans a voice.call root, a turn per caller utterance, and one execute_tool span per dispatch of every kind', () => {
    const plan = planCallSpans(sampleRecord(pack, '675'));
    expect(plan.root).toMatchObject({ name: 'voice.call', kind: 'server', startMs: 0, endMs: 9000 });
    expect(plan.root.attributes['bluejay.simulation_result_id']).toBe('675');
    expect(plan.turns.map((t) => [t.startMs, t.endMs])).toEqual([
      [2500, 6500],
      [6500, 9000],
    ]);
    const tools = plan.children.filter((s) => s.name.startsWith('execute_tool '));
    expect(tools.map((s) => [s.name, s.startMs, s.endMs])).toEqual([
      ['execute_tool transfer_to_billing', 4700, 4700],
      ['execute_tool transfer_to_scheduler', 4800, 4800],
      ['execute_tool check_date', 5100, 5400],
      ['execute_tool book_appointment', 5200, 5800],
      ['execute_tool end_call', 8000, 8000],
    ]);
    const handoff = tools[1];
    expect(handoff?.attributes).toMatchObject({ 'gen_ai.handoff.from_agent': 'reception', 'gen_ai.handoff.to_agent': 'scheduler', 'gen_ai.tool.call.arguments': '{"reason":"repair visit"}' });
    expect(tools[0]?.error).toBe('HANDOFF_NOT_ALLOWED');
    expect(tools[3]?.attributes['bluejay.speech.start_offset_ms']).toBe(5200);
    expect(tools[3]?.parent).toBe(0);
    expect(plan.children.filter((s) => s.name === 'agent.speech').map((s) => [s.startMs, s.endMs, s.attributes['mivas.interrupted']])).toEqual([
      [400, 2000, false],
      [6000, 6520, true],
    ]);
    expect(plan.children.filter((s) => s.name === 'audio_interrupted')).toHaveLength(1);
    expect(plan.children.find((s) => s.name === 'model')?.attributes['gen_ai.usage.output_tokens']).toBe(20);
  });

  it('clips tool arguments and results to 4000 characters with ...', () => {
    const clipped = clipJson({ text: 'x'.repeat(5000) });
    expect(clipped).toHaveLength(4000);
    expect(clipped.endsWith('...')).toBe(true);
  });

  it('exports the spans under the pre-minted trace id with explicit times', async () => {
    const exporter = new InMemorySpanExporter();
    const lost: number[] = [];
    const tracer = new CallTracer({ destinations: [], serviceName: 'mivas-unit', otelQueueSize: 64 }, seededIds('spans'), (n) => lost.push(n), exporter);
    const record = sampleRecord(pack, '676');
    const traceId = tracer.mintTraceId();
    expect(traceId).toMatch(/^[0-9a-f]{32}$/);
    tracer.recordCall(record, traceId);
    await tracer.forceFlush();
    const spans = exporter.getFinishedSpans();
    expect(new Set(spans.map((s) => s.spanContext().traceId))).toEqual(new Set([traceId]));
    const root = spans.find((s) => s.name === 'voice.call');
    expect(root?.parentSpanContext).toBeUndefined();
    expect(root?.startTime[0]).toBe(record.startedAtEpochMs / 1000);
    expect(spans.filter((s) => s.name.startsWith('execute_tool '))).toHaveLength(5);
    expect(lost).toEqual([]);
    await tracer.shutdown();
  });

  it('joins the dialler\'s trace when the upgrade carried a traceparent: same trace id, root span a child of its span', async () => {
    const exporter = new InMemorySpanExporter();
    const tracer = new CallTracer({ destinations: [], serviceName: 'mivas-unit', otelQueueSize: 64 }, seededIds('spans-parent'), () => undefined, exporter);
    const parent = parseTraceparent('00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01');
    expect(parent).toEqual({ traceId: '4bf92f3577b34da6a3ce929d0e0e4736', spanId: '00f067aa0ba902b7', sampled: true });
    tracer.recordCall(sampleRecord(pack, '677'), parent?.traceId ?? '', parent);
    await tracer.forceFlush();
    const spans = exporter.getFinishedSpans();
    expect(new Set(spans.map((s) => s.spanContext().traceId))).toEqual(new Set(['4bf92f3577b34da6a3ce929d0e0e4736']));
    const root = spans.find((s) => s.name === 'voice.call');
    expect(root?.parentSpanContext).toMatchObject({ spanId: '00f067aa0ba902b7', isRemote: true });
    await tracer.shutdown();
  });

  it('reads only valid traceparent headers (W3C Trace Context)', () => {
    expect(parseTraceparent(undefined)).toBeNull();
    expect(parseTraceparent('00-00000000000000000000000000000000-00f067aa0ba902b7-01')).toBeNull();
    expect(parseTraceparent('00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01')).toBeNull();
    expect(parseTraceparent('ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01')).toBeNull();
    expect(parseTraceparent('00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01')).toBeNull();
    expect(parseTraceparent('00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-extra')).toBeNull();
    expect(parseTraceparent('01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00-future')).toMatchObject({ sampled: false });
  });
});

describe('metrics from a finished record', () => {
  it('derive per-call series without a call-id label', async () => {
    const pack = await loadControlPack();
    const metrics = new MivasMetrics({ liveCalls: () => 0, maxCalls: () => 5, isDraining: () => false, snapshotBacklog: () => ({ count: 0, oldestMs: 0 }) });
    const record = sampleRecord(pack, '677');
    // Tool calls, handoffs and barge-ins count live, event by event; the rest at hangup.
    for (const event of record.events) metrics.eventRecorded(record.pack.id, record.harness, event);
    expect((await metrics.scrape()).body).toMatch(/mivas_tool_calls_total\{pack="control-industry",tool="transfer_to_billing",kind="handoff",ok="false"\} 1/);
    expect((await metrics.scrape()).body).not.toMatch(/mivas_calls_total\{/);
    metrics.callEnded(record);
    const text = (await metrics.scrape()).body;
    expect(text).toMatch(/mivas_calls_total\{pack="control-industry",harness="scripted",end_reason="agent_end_call"\} 1/);
    expect(text).toMatch(/mivas_handoffs_refused_total\{pack="control-industry"\} 1/);
    expect(text).toMatch(/mivas_tool_calls_total\{pack="control-industry",tool="transfer_to_billing",kind="handoff",ok="false"\} 1/);
    expect(text).toMatch(/mivas_barge_ins_total\{harness="scripted"\} 1/);
    expect(text).toMatch(/mivas_tokens_total\{model="scripted",class="output_audio"\} 20/);
    expect(text).toMatch(/mivas_greeting_latency_seconds_sum\{harness="scripted"\} 0.4/);
    // Process metrics are numbers that may contain the digits; only label sets must never hold the id.
    expect(text.match(/\{[^}]*\}/g)?.filter((labels) => labels.includes('677')) ?? []).toEqual([]);
  });
});
