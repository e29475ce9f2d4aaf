import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Clock, Timer } from '../core/index.ts';
import { SNAPSHOT_PARTS, snapshotKey, type SnapshotPart } from './schema.ts';
import type { SnapshotSink } from './sinks.ts';

/** First retry delay and its cap; delays double in between. */
const RETRY_BASE_MS = 1_000;
const RETRY_MAX_MS = 60_000;

/** Outbox events worth a log line or a metric. */
export interface OutboxObserver {
  /** A set was uploaded; `durationMs` is the successful attempt's upload time. */
  uploaded(pack: string, callId: string, location: string, durationMs: number): void;
  failed(pack: string, callId: string, attempt: number, error: unknown, retryInMs: number): void;
  /** Another snapshot already holds this call id at the sink; ours was kept in `keptAt`, nothing overwritten. */
  conflicted?(pack: string, callId: string, keptAt: string): void;
}

interface PendingSet {
  readonly pack: string;
  readonly callId: string;
  attempts: number;
  readonly sinceMs: number;
}

/**
 * Durable snapshot outbox: a snapshot is written whole to the spool directory first (summary
 * last), then uploaded part by part (summary last) and removed from the spool. Failed uploads stay
 * spooled and retry with backoff; a restart finds complete spooled sets and resumes them.
 */
export class SnapshotOutbox {
  private readonly pending = new Map<string, PendingSet>();
  private readonly timers = new Map<string, Timer>();
  private readonly inFlight = new Map<string, Promise<void>>();
  private stopped = false;

  constructor(
    private readonly spoolDir: string,
    private readonly sink: SnapshotSink,
    private readonly clock: Clock,
    private readonly observer: OutboxObserver,
  ) {
    mkdirSync(spoolDir, { recursive: true });
  }

  /** Spools a complete snapshot and starts its upload. */
  store(pack: string, callId: string, parts: ReadonlyMap<SnapshotPart, Buffer>): void {
    for (const part of SNAPSHOT_PARTS) {
      const body = parts.get(part);
      if (!body) throw new Error(`snapshot of ${callId} lacks ${part}`);
      const file = join(this.spoolDir, snapshotKey(pack, callId, part));
      mkdirSync(join(this.spoolDir, pack), { recursive: true });
      writeFileSync(`${file}.tmp`, body);
      renameSync(`${file}.tmp`, file);
    }
    this.enqueue(pack, callId);
  }

  /** Finds complete spooled sets (a summary present) left by an earlier process and uploads them. */
  resume(): number {
    let found = 0;
    for (const pack of existsSync(this.spoolDir) ? readdirSync(this.spoolDir) : []) {
      for (const name of readdirSync(join(this.spoolDir, pack))) {
        const m = /^(.+)\.summary\.json$/.exec(name);
        if (!m?.[1]) continue;
        this.enqueue(pack, m[1]);
        found++;
      }
    }
    return found;
  }

  /** True when the set is waiting in the spool. */
  isSpooled(pack: string, callId: string): boolean {
    return existsSync(join(this.spoolDir, snapshotKey(pack, callId, 'summary.json')));
  }

  /** Sets not yet uploaded, and the age of the oldest in ms. */
  backlog(): { count: number; oldestMs: number } {
    const now = this.clock.nowMs();
    let oldest = 0;
    for (const set of this.pending.values()) oldest = Math.max(oldest, now - set.sinceMs);
    return { count: this.pending.size, oldestMs: oldest };
  }

  /** Retries everything now (after an outage ends) and waits for the in-flight uploads. */
  async flush(): Promise<void> {
    for (const [id, timer] of this.timers) {
      timer.cancel();
      this.timers.delete(id);
      const set = this.pending.get(id);
      if (set) this.attempt(set);
    }
    await Promise.allSettled([...this.inFlight.values()]);
  }

  /** Stops scheduling retries (spooled sets stay on disk for the next start). */
  stop(): void {
    this.stopped = true;
    for (const timer of this.timers.values()) timer.cancel();
    this.timers.clear();
  }

  private enqueue(pack: string, callId: string): void {
    const id = `${pack}/${callId}`;
    if (this.pending.has(id)) return;
    const set: PendingSet = { pack, callId, attempts: 0, sinceMs: this.clock.nowMs() };
    this.pending.set(id, set);
    this.attempt(set);
  }

  private attempt(set: PendingSet): void {
    const id = `${set.pack}/${set.callId}`;
    if (this.inFlight.has(id) || this.stopped) return;
    set.attempts++;
    const startedMs = this.clock.nowMs();
    const run = this.upload(set).then(
      (outcome) => {
        this.pending.delete(id);
        if (outcome === 'uploaded') this.observer.uploaded(set.pack, set.callId, this.sink.locate(snapshotKey(set.pack, set.callId, 'summary.json')), this.clock.nowMs() - startedMs);
      },
      (err: unknown) => this.scheduleRetry(set, err),
    );
    this.inFlight.set(id, run);
    void run.finally(() => this.inFlight.delete(id));
  }

  private scheduleRetry(set: PendingSet, err: unknown): void {
    const delay = Math.min(RETRY_MAX_MS, RETRY_BASE_MS * 2 ** Math.min(set.attempts - 1, 10));
    this.observer.failed(set.pack, set.callId, set.attempts, err, delay);
    if (this.stopped) return;
    const id = `${set.pack}/${set.callId}`;
    this.timers.set(
      id,
      this.clock.setTimer(delay, () => {
        this.timers.delete(id);
        this.attempt(set);
      }),
    );
  }

  private async upload(set: PendingSet): Promise<'uploaded' | 'conflict'> {
    const summaryKey = snapshotKey(set.pack, set.callId, 'summary.json');
    const local = readFileSync(join(this.spoolDir, summaryKey));
    // The upgrade's "snapshot exists" check fails open while the store is down, so a reused id can
    // reach here: never overwrite a different call's snapshot. The same bytes mean an earlier
    // attempt finished before its cleanup did.
    const remote = await this.sink.get(summaryKey);
    if (remote && !remote.equals(local)) {
      this.quarantine(set);
      return 'conflict';
    }
    if (!remote) {
      for (const part of SNAPSHOT_PARTS) {
        const key = snapshotKey(set.pack, set.callId, part);
        await this.sink.put(key, readFileSync(join(this.spoolDir, key)));
      }
    }
    this.removeFromSpool(set);
    return 'uploaded';
  }

  private quarantine(set: PendingSet): void {
    const dir = join(this.spoolDir, '..', 'conflicts', set.pack);
    mkdirSync(dir, { recursive: true });
    for (const part of SNAPSHOT_PARTS) {
      const key = snapshotKey(set.pack, set.callId, part);
      renameSync(join(this.spoolDir, key), join(this.spoolDir, '..', 'conflicts', key));
    }
    this.observer.conflicted?.(set.pack, set.callId, dir);
  }

  private removeFromSpool(set: PendingSet): void {
    // Remove the summary first so a crash mid-cleanup never leaves a "complete" partial set.
    for (const part of [...SNAPSHOT_PARTS].reverse()) rmSync(join(this.spoolDir, snapshotKey(set.pack, set.callId, part)), { force: true });
  }
}
