import { InMemorySpanExporter, type ReadableSpan } from '@opentelemetry/sdk-trace';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seededIds } from '../../../src/core/index.ts';
import type { Pack } from '../../../src/packs/index.ts';
import { CallTracer } from '../../../src/telemetry/index.ts';
import { loadControlPack, sampleRecord } from '../../support/call-record.ts';
import { OTLP_PROTOBUF, OtlpCollector, type CollectedSpan } from '../../support/otlp-collector.ts';

const SETTINGS = { serviceName: 'mivas-unit', otelQueueSize: 64 } as const;
const bluejayAt = (url: string) => [{ name: 'bluejay' as const, url, headers: { 'X-API-KEY': 'bj_unit_key' } }];

/** The parts of a span both sides can state: ids are random per tracer, so they are left out. */
function comparable(s: Omit<CollectedSpan, 'traceId' | 'spanId' | 'parentSpanId' | 'serviceName'>): unknown {
  return { name: s.name, kind: s.kind, startMs: s.startMs, endMs: s.endMs, attributes: s.attributes, statusCode: s.statusCode };
}

function fromSdk(s: ReadableSpan): unknown {
  const ms = ([sec, ns]: readonly [number, number]): number => sec * 1000 + Math.floor(ns / 1_000_000);
  // OTLP's SpanKind is the API's plus one (0 is UNSPECIFIED on the wire).
  return comparable({ name: s.name, kind: s.kind + 1, startMs: ms(s.startTime), endMs: ms(s.endTime), attributes: s.attributes as CollectedSpan['attributes'], statusCode: s.status.code });
}

describe('OTLP export to Bluejay (wire.md §5.1)', () => {
  let pack: Pack;
  let collector: OtlpCollector;

  beforeAll(async () => {
    pack = await loadControlPack();
    collector = await OtlpCollector.start();
  });
  afterAll(async () => {
    await collector?.close();
  });

  it('sends a call as OTLP/HTTP protobuf with X-API-KEY, decoding to exactly the spans the SDK recorded', async () => {
    const lost: number[] = [];
    const tracer = new CallTracer({ ...SETTINGS, destinations: bluejayAt(collector.url) }, seededIds('otlp-wire'), (n) => lost.push(n));
    const memory = new InMemorySpanExporter();
    const reference = new CallTracer({ ...SETTINGS, destinations: bluejayAt('http://127.0.0.1:1/v1/traces') }, seededIds('otlp-ref'), () => undefined, memory);
    const record = sampleRecord(pack, '678');
    const traceId = tracer.mintTraceId();
    tracer.recordCall(record, traceId);
    reference.recordCall(record, traceId);
    await Promise.all([tracer.forceFlush(), reference.forceFlush()]);

    expect(collector.exports.length).toBeGreaterThan(0);
    for (const e of collector.exports) {
      expect(e.headers['content-type']).toBe(OTLP_PROTOBUF);
      expect(e.headers['x-api-key']).toBe('bj_unit_key');
      expect(e.path).toBe('/v1/traces');
      expect(e.status).toBe(200);
    }
    const spans = collector.spans.filter((s) => s.traceId === traceId);
    expect(spans).toHaveLength(collector.spans.length);
    const sdk = memory.getFinishedSpans();
    expect(spans.map(comparable)).toEqual(sdk.map(fromSdk));

    const root = spans.find((s) => s.name === 'voice.call');
    expect(root).toMatchObject({ parentSpanId: null, serviceName: SETTINGS.serviceName, kind: 2, startMs: record.startedAtEpochMs });
    expect(root?.attributes['bluejay.simulation_result_id']).toBe('678');
    const ids = new Set(spans.map((s) => s.spanId));
    for (const s of spans) if (s !== root) expect(ids.has(s.parentSpanId ?? ''), s.name).toBe(true);
    expect(spans.filter((s) => s.name.startsWith('execute_tool '))).toHaveLength(5);
    expect(lost).toEqual([]);
    await Promise.all([tracer.shutdown(), reference.shutdown()]);
  });

  it('the test collector answers 400 to OTLP/JSON, so an exporter sending JSON is caught', async () => {
    const before = collector.spans.length;
    const json = JSON.stringify({ resourceSpans: [{ scopeSpans: [{ spans: [{ traceId: '0'.repeat(31) + '1', spanId: '0'.repeat(15) + '1', name: 'voice.call', kind: 2, startTimeUnixNano: '1', endTimeUnixNano: '2' }] }] }] });
    const asJson = await fetch(collector.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: json });
    const mislabelled = await fetch(collector.url, { method: 'POST', headers: { 'content-type': OTLP_PROTOBUF }, body: json });
    expect([asJson.status, mislabelled.status]).toEqual([400, 400]);
    expect(collector.spans).toHaveLength(before);
    expect(collector.exports.slice(-2).map((e) => e.status)).toEqual([400, 400]);
  });
});
