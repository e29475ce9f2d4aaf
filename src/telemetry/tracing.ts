import { context, SpanKind, SpanStatusCode, trace, TraceFlags, type Context, type Span } from '@opentelemetry/api';
import type { RemoteParent } from './trace-context.ts';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, RandomIdGenerator, TracerProvider, type IdGenerator, type ReadableSpan, type SpanExporter } from '@opentelemetry/sdk-trace';
import type { CallRecord } from '../snapshot/index.ts';
import type { TracingSettings } from '../config.ts';
import type { IdSource } from '../core/index.ts';
import { planCallSpans, type SpanPlan } from './call-spans.ts';

/** Batch processor settings of wire.md §5.1 (the queue comes from MIVAS_OTEL_QUEUE). */
const BATCH_SIZE = 512;
const BATCH_DELAY_MS = 1000;
const FLUSH_TIMEOUT_MS = 10_000;

/** `ExportResultCode.SUCCESS` of @opentelemetry/core (a transitive package, so not imported directly). */
const EXPORT_SUCCESS = 0;

type ExportDone = Parameters<SpanExporter['export']>[1];

const KINDS = { server: SpanKind.SERVER, client: SpanKind.CLIENT, internal: SpanKind.INTERNAL } as const;

/**
 * Hands out the call's pre-minted trace id for the next root span. The id is minted at accept
 * (so the summary can carry it) and the spans are built at hangup; `claim` is set and consumed
 * synchronously around one startSpan, so concurrent calls cannot interleave.
 */
class PresetIdGenerator implements IdGenerator {
  private readonly random = new RandomIdGenerator();
  private preset: string | null = null;

  claim(traceId: string): void {
    this.preset = traceId;
  }

  generateTraceId(): string {
    const id = this.preset ?? this.random.generateTraceId();
    this.preset = null;
    return id;
  }

  generateSpanId(): string {
    return this.random.generateSpanId();
  }
}

/** Wraps the exporter to count spans lost in failed exports. */
function countingExporter(inner: SpanExporter, lost: (count: number) => void): SpanExporter {
  return {
    export(spans: ReadableSpan[], done: ExportDone) {
      inner.export(spans, (result) => {
        if (result.code !== EXPORT_SUCCESS) lost(spans.length);
        done(result);
      });
    },
    shutdown: () => inner.shutdown(),
    forceFlush: () => inner.forceFlush?.() ?? Promise.resolve(),
  };
}

/**
 * OpenTelemetry for calls (wire.md §5): a private tracer provider (library spans stay out) with a
 * batch processor and the OTLP/HTTP protobuf exporter (wire.md §5.1), sending to Bluejay with
 * `X-API-KEY`. A call's spans are built from its timeline at hangup with explicit start and end
 * times.
 */
export class CallTracer {
  private readonly ids = new PresetIdGenerator();
  private readonly provider: TracerProvider;

  private readonly idSource: IdSource;

  constructor(
    settings: TracingSettings,
    idSource: IdSource,
    spansLost: (count: number) => void,
    exporter?: SpanExporter,
  ) {
    this.idSource = idSource;
    // One batch processor per destination, so a collector that is down delays only its own spans.
    const exporters = exporter ? [exporter] : settings.destinations.map((d) => new OTLPTraceExporter({ url: d.url, headers: { ...d.headers } }));
    this.provider = new TracerProvider({
      resource: resourceFromAttributes({ 'service.name': settings.serviceName }),
      idGenerator: this.ids,
      spanProcessors: exporters.map(
        (e) =>
          new BatchSpanProcessor({
            exporter: countingExporter(e, spansLost),
            maxQueueSize: settings.otelQueueSize,
            maxExportBatchSize: Math.min(BATCH_SIZE, settings.otelQueueSize),
            scheduledDelayMillis: BATCH_DELAY_MS,
            exportTimeoutMillis: FLUSH_TIMEOUT_MS,
          }),
      ),
    });
  }

  /** A fresh 32-hex trace id for a call that is starting (recorded in its summary). */
  mintTraceId(): string {
    let id = this.idSource.hex(32);
    while (/^0+$/.test(id)) id = this.idSource.hex(32);
    return id;
  }

  /** Emits every span of a finished call under the given trace id; the batch processor exports them. */
  recordCall(record: CallRecord, traceId: string, remoteParent: RemoteParent | null = null): void {
    const tracer = this.provider.getTracer('mivas');
    const plan = planCallSpans(record);
    const at = (ms: number): number => record.startedAtEpochMs + ms;
    const start = (span: SpanPlan, parent: Context): Span =>
      tracer.startSpan(span.name, { kind: KINDS[span.kind], startTime: at(span.startMs), attributes: span.attributes }, parent);
    const finish = (s: Span, span: SpanPlan): void => {
      if (span.error) s.setStatus({ code: SpanStatusCode.ERROR, message: span.error });
      s.end(at(Math.max(span.startMs, span.endMs)));
    };
    // A caller's traceparent makes the call's root span a child of the caller's span, in its trace.
    const parentCtx = remoteParent ? trace.setSpanContext(context.active(), { traceId: remoteParent.traceId, spanId: remoteParent.spanId, traceFlags: remoteParent.sampled ? TraceFlags.SAMPLED : TraceFlags.NONE, isRemote: true }) : context.active();
    if (!remoteParent) this.ids.claim(traceId);
    const root = start(plan.root, parentCtx);
    const rootCtx = trace.setSpan(context.active(), root);
    const turns = plan.turns.map((t) => ({ plan: t, span: start(t, rootCtx) }));
    for (const child of plan.children) {
      const parentSpan = child.parent === 'root' ? root : (turns[child.parent]?.span ?? root);
      finish(start(child, trace.setSpan(context.active(), parentSpan)), child);
    }
    for (const t of turns) finish(t.span, t.plan);
    finish(root, plan.root);
  }

  /** Exports everything queued (wire.md §4.2: before the link POST). */
  async forceFlush(): Promise<void> {
    await this.provider.forceFlush();
  }

  /** Flushes and stops the exporter. */
  async shutdown(): Promise<void> {
    await this.provider.shutdown();
  }
}
