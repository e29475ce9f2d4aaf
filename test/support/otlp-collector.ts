import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';
import protobuf from 'protobufjs';

/** One span as the collector decoded it from an OTLP/HTTP protobuf export. */
export interface CollectedSpan {
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId: string | null;
  readonly name: string;
  readonly kind: number;
  readonly startMs: number;
  readonly endMs: number;
  readonly attributes: Readonly<Record<string, string | number | boolean>>;
  readonly serviceName: string | null;
  readonly statusCode: number;
}

/** One POST the collector received, decoded or not. */
export interface CollectedExport {
  readonly headers: IncomingHttpHeaders;
  readonly path: string;
  /** The status the collector answered: 200, or 400 for a body that is not OTLP protobuf. */
  readonly status: number;
}

/** The media type of OTLP/HTTP binary protobuf (the OTLP specification's "Binary Protobuf Encoding"). */
export const OTLP_PROTOBUF = 'application/x-protobuf';

/**
 * The messages of ExportTraceServiceRequest the tests read, with the field numbers of the public
 * opentelemetry-proto definitions (collector/trace/v1, trace/v1, resource/v1, common/v1). Fields
 * left out (events, links, trace_state, flags, schema_url, scope, array/kvlist/bytes values, ...)
 * are skipped on decode.
 * Enums (SpanKind, StatusCode) are declared as int32: the same varint on the wire, read as numbers.
 */
const PROTO = `
syntax = "proto3";
package otlp;
message ExportTraceServiceRequest { repeated ResourceSpans resource_spans = 1; }
message ResourceSpans { Resource resource = 1; repeated ScopeSpans scope_spans = 2; }
message Resource { repeated KeyValue attributes = 1; }
message ScopeSpans { repeated Span spans = 2; }
message Span {
  bytes trace_id = 1;
  bytes span_id = 2;
  bytes parent_span_id = 4;
  string name = 5;
  int32 kind = 6;
  fixed64 start_time_unix_nano = 7;
  fixed64 end_time_unix_nano = 8;
  repeated KeyValue attributes = 9;
  Status status = 15;
}
message Status { string message = 2; int32 code = 3; }
message KeyValue { string key = 1; AnyValue value = 2; }
message AnyValue {
  oneof value {
    string string_value = 1;
    bool bool_value = 2;
    int64 int_value = 3;
    double double_value = 4;
  }
}
`;

const REQUEST = protobuf.parse(PROTO).root.lookupType('otlp.ExportTraceServiceRequest');

/** The decoded request, as `toObject` with `longs: String` gives it (bytes stay Uint8Array). */
interface OtlpValue {
  stringValue?: string;
  intValue?: string;
  doubleValue?: number;
  boolValue?: boolean;
}
interface OtlpAttr {
  key: string;
  value?: OtlpValue;
}
interface OtlpSpan {
  traceId?: Uint8Array;
  spanId?: Uint8Array;
  parentSpanId?: Uint8Array;
  name?: string;
  kind?: number;
  startTimeUnixNano?: string;
  endTimeUnixNano?: string;
  attributes?: OtlpAttr[];
  status?: { code?: number };
}
interface OtlpExport {
  resourceSpans?: { resource?: { attributes?: OtlpAttr[] }; scopeSpans?: { spans?: OtlpSpan[] }[] }[];
}

/** Decodes an ExportTraceServiceRequest; throws on a body that is not one. */
export function decodeTraceRequest(body: Uint8Array): OtlpExport {
  return REQUEST.toObject(REQUEST.decode(body), { longs: String, defaults: false }) as OtlpExport;
}

function valueOf(v: OtlpValue | undefined): string | number | boolean {
  if (v?.stringValue !== undefined) return v.stringValue;
  if (v?.intValue !== undefined) return Number(v.intValue);
  if (v?.doubleValue !== undefined) return v.doubleValue;
  return v?.boolValue ?? '';
}

function attrs(list: OtlpAttr[] | undefined): Record<string, string | number | boolean> {
  return Object.fromEntries((list ?? []).map((a) => [a.key, valueOf(a.value)]));
}

function hex(bytes: Uint8Array | undefined): string {
  return Buffer.from(bytes ?? []).toString('hex');
}

function mediaType(headers: IncomingHttpHeaders): string {
  return (headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
}

/**
 * A local OTLP/HTTP traces collector for the binary protobuf encoding (wire.md §5.1), as
 * exporter-trace-otlp-proto sends it. Any other body (OTLP/JSON included) is answered 400 and
 * decodes no spans, so a regression of the exporter to JSON fails the tests that wait for spans.
 */
export class OtlpCollector {
  readonly spans: CollectedSpan[] = [];
  readonly exports: CollectedExport[] = [];
  url = '';
  private server: Server | null = null;
  private waiters: { predicate: () => boolean; resolve: () => void }[] = [];

  /** Starts on an ephemeral loopback port; `url` is the full traces endpoint. */
  static async start(): Promise<OtlpCollector> {
    const c = new OtlpCollector();
    c.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const status = c.receive(req.headers, Buffer.concat(chunks));
        c.exports.push({ headers: req.headers, path: req.url ?? '/', status });
        res.writeHead(status, { 'content-type': OTLP_PROTOBUF });
        // An empty ExportTraceServiceResponse is a zero-length protobuf message.
        res.end();
        c.waiters = c.waiters.filter((w) => (w.predicate() ? (w.resolve(), false) : true));
      });
    });
    await new Promise<void>((resolve) => c.server?.listen(0, '127.0.0.1', resolve));
    c.url = `http://127.0.0.1:${(c.server.address() as AddressInfo).port}/v1/traces`;
    return c;
  }

  /** Resolves once the predicate holds; rejects after `limitMs` as a safety net. */
  waitFor(predicate: () => boolean, limitMs = 20_000): Promise<void> {
    if (predicate()) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`otlp collector: condition not met after ${limitMs} ms (${this.spans.length} spans)`)), limitMs);
      this.waiters.push({ predicate, resolve: () => (clearTimeout(timer), resolve()) });
    });
  }

  async close(): Promise<void> {
    await new Promise<void>((resolve) => {
      this.server?.closeAllConnections();
      this.server?.close(() => resolve());
    });
  }

  /** Decodes one POST body into `spans`; the HTTP status to answer. */
  private receive(headers: IncomingHttpHeaders, raw: Buffer): number {
    if (mediaType(headers) !== OTLP_PROTOBUF) return 400;
    let body: OtlpExport;
    try {
      body = decodeTraceRequest(headers['content-encoding'] === 'gzip' ? gunzipSync(raw) : raw);
    } catch {
      return 400;
    }
    this.ingest(body);
    return 200;
  }

  private ingest(body: OtlpExport): void {
    for (const rs of body.resourceSpans ?? []) {
      const service = attrs(rs.resource?.attributes)['service.name'];
      for (const ss of rs.scopeSpans ?? []) {
        for (const s of ss.spans ?? []) {
          this.spans.push({
            traceId: hex(s.traceId),
            spanId: hex(s.spanId),
            parentSpanId: hex(s.parentSpanId) || null,
            name: s.name ?? '',
            kind: s.kind ?? 0,
            startMs: Number(BigInt(s.startTimeUnixNano ?? '0') / 1_000_000n),
            endMs: Number(BigInt(s.endTimeUnixNano ?? '0') / 1_000_000n),
            attributes: attrs(s.attributes),
            serviceName: typeof service === 'string' ? service : null,
            statusCode: s.status?.code ?? 0,
          });
        }
      }
    }
  }
}
