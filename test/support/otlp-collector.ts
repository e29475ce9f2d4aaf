import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';

/** One span as the collector decoded it from OTLP/JSON. */
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

interface OtlpValue {
  stringValue?: string;
  intValue?: string | number;
  doubleValue?: number;
  boolValue?: boolean;
}
interface OtlpAttr {
  key: string;
  value: OtlpValue;
}
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  startTimeUnixNano: string | number;
  endTimeUnixNano: string | number;
  attributes?: OtlpAttr[];
  status?: { code?: number };
}
interface OtlpExport {
  resourceSpans?: { resource?: { attributes?: OtlpAttr[] }; scopeSpans?: { spans?: OtlpSpan[] }[] }[];
}

function valueOf(v: OtlpValue): string | number | boolean {
  if (v.stringValue !== undefined) return v.stringValue;
  if (v.intValue !== undefined) return Number(v.intValue);
  if (v.doubleValue !== undefined) return v.doubleValue;
  return v.boolValue ?? '';
}

function attrs(list: OtlpAttr[] | undefined): Record<string, string | number | boolean> {
  return Object.fromEntries((list ?? []).map((a) => [a.key, valueOf(a.value)]));
}

/** A local OTLP/HTTP traces collector (JSON encoding, as exporter-trace-otlp-http sends it). */
export class OtlpCollector {
  readonly spans: CollectedSpan[] = [];
  readonly exports: { headers: IncomingHttpHeaders; path: string }[] = [];
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
        let raw = Buffer.concat(chunks);
        if (req.headers['content-encoding'] === 'gzip') raw = gunzipSync(raw);
        c.exports.push({ headers: req.headers, path: req.url ?? '/' });
        c.ingest(JSON.parse(raw.toString('utf8')) as OtlpExport);
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{}');
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

  private ingest(body: OtlpExport): void {
    for (const rs of body.resourceSpans ?? []) {
      const service = attrs(rs.resource?.attributes)['service.name'];
      for (const ss of rs.scopeSpans ?? []) {
        for (const s of ss.spans ?? []) {
          this.spans.push({
            traceId: s.traceId,
            spanId: s.spanId,
            parentSpanId: s.parentSpanId || null,
            name: s.name,
            kind: s.kind,
            startMs: Number(BigInt(s.startTimeUnixNano) / 1_000_000n),
            endMs: Number(BigInt(s.endTimeUnixNano) / 1_000_000n),
            attributes: attrs(s.attributes),
            serviceName: typeof service === 'string' ? service : null,
            statusCode: s.status?.code ?? 0,
          });
        }
      }
    }
  }
}
