import { join } from 'node:path';
import { BluejayClient, LinkLedger, LinkWorker } from '../bluejay/index.ts';
import type { CallObserver } from '../call/index.ts';
import type { ChirpSocket } from '../chirp/index.ts';
import type { Config } from '../config.ts';
import type { Clock, IdSource, Log } from '../core/index.ts';
import { snapshotKey, type TimelineEvent } from '../snapshot/index.ts';
import { CallTracer, MivasMetrics, type MetricSources, type RemoteParent } from '../telemetry/index.ts';

/** Metrics, traces and the Bluejay link of one app (wire.md §4–5). */
export interface Operations {
  readonly metrics: MivasMetrics;
  /** Null unless a Bluejay key is set and MIVAS_OTEL is not 0. */
  readonly tracer: CallTracer | null;
  readonly links: LinkWorker;
}

/** Builds the app's metrics registry, tracer and link worker; resumes links left pending. */
export function createOperations(config: Config, deps: { clock: Clock; ids: IdSource; log: Log; dataDir: string; sources: MetricSources }): Operations {
  const metrics = new MivasMetrics(deps.sources);
  const settings = config.bluejay;
  const tracer = config.tracing.destinations.length ? new CallTracer(config.tracing, deps.ids, (n) => metrics.spansLost(n)) : null;
  const client = settings.apiKey ? new BluejayClient({ apiUrl: settings.apiUrl, apiKey: settings.apiKey, bounds: { timeoutMs: settings.timeoutMs, maxBodyBytes: settings.maxBodyBytes } }) : null;
  const links = new LinkWorker({
    ledger: new LinkLedger(join(deps.dataDir, 'bluejay')),
    client,
    settings,
    clock: deps.clock,
    log: deps.log,
    beforePost: () => tracer?.forceFlush() ?? Promise.resolve(),
    observe: (outcome) => metrics.bluejayLink(outcome),
  });
  const resumed = links.resume();
  if (resumed) deps.log.info({ count: resumed }, 'resuming pending bluejay links');
  return { metrics, tracer, links };
}

/**
 * The observer a call reports to: at hangup its record feeds the metrics, its spans are built and
 * queued for export, and its Bluejay link is scheduled (the snapshot is already spooled).
 */
export function callObserver(ops: Operations, log: Log, remoteParent: RemoteParent | null = null, labels: { readonly pack: string; readonly harness: string } | null = null): CallObserver {
  // A dialler that sent traceparent gets the call in its own trace (W3C Trace Context).
  const traceId = ops.tracer ? (remoteParent?.traceId ?? ops.tracer.mintTraceId()) : null;
  const guarded = (what: string, fn: () => void): void => {
    try {
      fn();
    } catch (err) {
      log.error({ err }, `${what} failed`);
    }
  };
  return {
    traceId,
    callEnded(record) {
      guarded('metrics', () => ops.metrics.callEnded(record));
      if (ops.tracer && traceId) guarded('tracing', () => ops.tracer?.recordCall(record, traceId, remoteParent));
      guarded('bluejay link', () => ops.links.schedule(record, traceId, snapshotKey(record.pack.id, record.callId, 'summary.json')));
    },
    ...(labels ? { eventRecorded: (event: TimelineEvent) => guarded('live metrics', () => ops.metrics.eventRecorded(labels.pack, labels.harness, event)) } : {}),
    rateLimitsUpdated: (harness, limits) => ops.metrics.rateLimitsUpdated(harness, limits),
  };
}

/** Counts CHIRP PCM bytes both ways for `mivas_audio_bytes_total` without touching the call. */
export function countAudio(socket: ChirpSocket, metrics: MivasMetrics): ChirpSocket {
  socket.events.on('binary', (pcm) => metrics.audio('inbound', pcm.length));
  return {
    ...socket,
    sendBinary: (pcm) => {
      if (socket.isOpen()) metrics.audio('outbound', pcm.length);
      socket.sendBinary(pcm);
    },
  };
}

/** Stops the link worker and the tracer after waiting (bounded) for links and span export. */
export async function closeOperations(ops: Operations, settleMs: number): Promise<void> {
  // A link waits its settle time and up to 7 s of backoff; past this bound it resumes at next start.
  await ops.links.flush(settleMs + 30_000);
  ops.links.stop();
  await ops.tracer?.shutdown().catch(() => undefined);
}
