import type { CallRecord } from '../snapshot/index.ts';
import type { Clock, Log, Timer } from '../core/index.ts';
import type { BluejayAttempt, BluejayClient } from './client.ts';
import { buildLinkBody, decideLink, type LinkDecision } from './link-body.ts';
import type { LinkEntry, LinkLedger } from './link-ledger.ts';
import type { UpdateSimulationResultBody } from './schema.ts';

/** At most 4 attempts, 1, 2 and 4 s apart (wire.md §4.2). */
export const LINK_RETRY_DELAYS_MS = [1_000, 2_000, 4_000] as const;
export const LINK_MAX_ATTEMPTS = LINK_RETRY_DELAYS_MS.length + 1;
/** One POST may take this long (wire.md §4.2). */
const POST_TIMEOUT_MS = 20_000;

/** Link outcomes for metrics: `retried` once per retry, the others once per call. */
export type LinkOutcome = 'ok' | 'retried' | 'failed' | 'skipped';

/** What the worker needs (injected; the clock drives settle, backoff and timeouts). */
export interface LinkWorkerDeps {
  readonly ledger: LinkLedger;
  readonly client: BluejayClient | null;
  readonly settings: { readonly apiKey: string | undefined; readonly tracingOn: boolean; readonly settleMs: number };
  readonly clock: Clock;
  readonly log: Log;
  /** Exports queued spans before the POST (Bluejay reads the trace once). */
  readonly beforePost: () => Promise<void>;
  readonly observe: (outcome: LinkOutcome) => void;
}

/**
 * Links finished calls to Bluejay: after the snapshot is spooled, waits the settle time, then
 * sends one update-simulation-result with retries. Every step is recorded in the ledger first,
 * so a restart resumes pending links and never posts a call twice.
 */
export class LinkWorker {
  private readonly jobs = new Map<string, Promise<void>>();
  private readonly sleepers = new Set<{ timer: Timer; wake: () => void }>();
  private stopped = false;

  private readonly deps: LinkWorkerDeps;

  constructor(deps: LinkWorkerDeps) {
    this.deps = deps;
  }

  /** Schedules the link of a call whose snapshot is spooled; returns the decision (skips are logged). */
  schedule(record: CallRecord, traceId: string | null, snapshotKey: string): LinkDecision {
    const { deps } = this;
    const decision = decideLink(record.callId, deps.settings, traceId);
    if (!decision.link) {
      if (decision.reason !== 'no_api_key') deps.log.warn({ callId: record.callId, reason: decision.reason }, 'bluejay link skipped');
      deps.observe('skipped');
      return decision;
    }
    if (deps.ledger.has(record.callId)) {
      deps.log.warn({ callId: record.callId }, 'bluejay link already recorded; not posting again');
      return decision;
    }
    const now = deps.clock.epochMs();
    const entry: LinkEntry = {
      call_id: record.callId,
      state: 'pending',
      attempts: 0,
      due_epoch_ms: now + deps.settings.settleMs,
      updated_epoch_ms: now,
      last_error: null,
      body: buildLinkBody(record, decision.path, traceId, snapshotKey) as unknown as Record<string, unknown>,
    };
    deps.ledger.write(entry);
    this.start(entry);
    return decision;
  }

  /** Resumes pending links left by an earlier process; an in-flight one (outcome unknown) is never re-sent. */
  resume(): number {
    let resumed = 0;
    for (const entry of this.deps.ledger.entries()) {
      if (entry.state === 'in_flight') {
        this.deps.log.warn({ callId: entry.call_id }, 'bluejay link outcome unknown after a restart; not posting again');
        this.record(entry, 'failed', 'outcome unknown after restart');
        this.deps.observe('failed');
      }
      if (entry.state !== 'pending' || this.jobs.has(entry.call_id)) continue;
      this.start(entry);
      resumed++;
    }
    return resumed;
  }

  /** Waits for scheduled links to finish, at most `maxWaitMs` on the clock. */
  async flush(maxWaitMs: number): Promise<void> {
    if (this.jobs.size === 0) return;
    await Promise.race([Promise.allSettled([...this.jobs.values()]), this.sleep(maxWaitMs)]);
  }

  /** Stops waiting: pending links stay in the ledger for the next start. */
  stop(): void {
    this.stopped = true;
    for (const s of this.sleepers) {
      s.timer.cancel();
      s.wake();
    }
    this.sleepers.clear();
  }

  private start(entry: LinkEntry): void {
    const job = this.run(entry).catch((err: unknown) => this.deps.log.error({ err, callId: entry.call_id }, 'bluejay link failed unexpectedly'));
    this.jobs.set(entry.call_id, job);
    void job.finally(() => this.jobs.delete(entry.call_id));
  }

  private async run(first: LinkEntry): Promise<void> {
    const { deps } = this;
    let entry = first;
    await this.sleep(entry.due_epoch_ms - deps.clock.epochMs());
    while (!this.stopped && entry.attempts < LINK_MAX_ATTEMPTS) {
      await deps.beforePost().catch((err: unknown) => deps.log.warn({ err }, 'span flush before the link failed'));
      if (this.stopped) return;
      entry = this.record({ ...entry, attempts: entry.attempts + 1 }, 'in_flight', entry.last_error);
      const answer = await this.post(entry.body as unknown as UpdateSimulationResultBody);
      if (answer.kind === 'ok') {
        this.record(entry, 'linked', null);
        deps.log.info({ callId: entry.call_id, attempts: entry.attempts }, 'bluejay link posted');
        return deps.observe('ok');
      }
      const error = answer.kind === 'transport_error' ? answer.message : `HTTP ${answer.status}: ${answer.bodyHead}`;
      const delay = LINK_RETRY_DELAYS_MS[entry.attempts - 1];
      if (!answer.retryable || delay === undefined) {
        this.record(entry, 'failed', error);
        deps.log.warn({ callId: entry.call_id, attempts: entry.attempts, error }, 'bluejay link failed; not retried');
        return deps.observe('failed');
      }
      entry = this.record(entry, 'pending', error);
      deps.log.warn({ callId: entry.call_id, attempt: entry.attempts, retryInMs: delay, error }, 'bluejay link attempt failed; retrying');
      deps.observe('retried');
      await this.sleep(delay);
    }
  }

  private async post(body: UpdateSimulationResultBody): Promise<BluejayAttempt> {
    const client = this.deps.client;
    if (!client) return { kind: 'http_error', status: 0, bodyHead: 'no client', retryable: false };
    const abort = new AbortController();
    const timer = this.deps.clock.setTimer(POST_TIMEOUT_MS, () => abort.abort(new Error('timed out after 20 s')));
    try {
      return await client.updateSimulationResult(body, abort.signal);
    } finally {
      timer.cancel();
    }
  }

  private record(entry: LinkEntry, state: LinkEntry['state'], lastError: string | null): LinkEntry {
    const next = { ...entry, state, last_error: lastError, updated_epoch_ms: this.deps.clock.epochMs() };
    this.deps.ledger.write(next);
    return next;
  }

  private sleep(ms: number): Promise<void> {
    if (this.stopped) return Promise.resolve();
    return new Promise((resolve) => {
      const sleeper = {
        timer: this.deps.clock.setTimer(Math.max(0, ms), () => {
          this.sleepers.delete(sleeper);
          resolve();
        }),
        wake: resolve,
      };
      this.sleepers.add(sleeper);
    });
  }
}
