import { existsSync, mkdirSync, readdirSync } from 'node:fs';
import { copyFile, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Clock, Timer } from '../core/index.ts';
import { SNAPSHOT_PARTS, snapshotKey, type SnapshotPart } from './schema.ts';
import type { SnapshotSink } from './sinks.ts';

/** First retry delay and its cap; delays double in between. */
const RETRY_BASE_MS = 1_000;
const RETRY_MAX_MS = 60_000;
/** Sets uploaded at once unless configured (MIVAS_UPLOAD_CONCURRENCY): a boot backlog of hundreds never loads at once. */
export const DEFAULT_UPLOAD_CONCURRENCY = 4;
/** Sets spooled just now whose bytes stay in memory for their first upload unless configured: a burst of ending episodes is not read back. */
export const DEFAULT_FRESH_SETS = 64;

/** One part's bytes: in memory, or a file the outbox moves into the spool (the streamed WAV). */
export type SnapshotBody = Buffer | { readonly file: string };
/** The five parts of a set. */
export type SnapshotParts = ReadonlyMap<SnapshotPart, SnapshotBody>;

/** Outbox events worth a log line or a metric. */
export interface OutboxObserver {
  /** A set was uploaded; `durationMs` is the successful attempt's upload time. */
  uploaded(pack: string, callId: string, location: string, durationMs: number): void;
  failed(pack: string, callId: string, attempt: number, error: unknown, retryInMs: number): void;
  /** Another snapshot already holds this call id at the sink; ours was kept in `keptAt`, nothing overwritten. */
  conflicted?(pack: string, callId: string, keptAt: string): void;
  /** The spool refused a set (a full disk, say): it is held in memory and written again, or uploaded from memory. */
  spoolFailed?(pack: string, callId: string, attempt: number, error: unknown): void;
  /** A set held in memory reached the spool after all. */
  spooledLate?(pack: string, callId: string, attempts: number): void;
  /** Sets still held in memory when the outbox stopped: they are lost with the process. */
  abandoned?(sets: readonly { pack: string; callId: string }[]): void;
}

/** The file operations of the spool (a seam so a test can fill the disk). */
export interface SpoolFiles {
  writeFile(path: string, data: Buffer): Promise<void>;
  rename(from: string, to: string): Promise<void>;
  copyFile(from: string, to: string): Promise<void>;
  readFile(path: string): Promise<Buffer>;
  rm(path: string): Promise<void>;
}

/** The real file system. */
export const diskSpoolFiles: SpoolFiles = {
  writeFile: (path, data) => writeFile(path, data),
  rename: (from, to) => rename(from, to),
  copyFile: (from, to) => copyFile(from, to),
  readFile: (path) => readFile(path),
  rm: (path) => rm(path, { force: true }),
};

/** Outbox settings beyond its directories. */
export interface OutboxOptions {
  /** Upload attempts in flight at once (default 4). */
  readonly uploadConcurrency?: number;
  /** Sets spooled just now that keep their bytes in memory for their first upload attempt (default 64); the rest are read back from the spool. */
  readonly freshSets?: number;
  readonly files?: SpoolFiles;
}

/** What is not at the sink yet. */
export interface OutboxBacklog {
  /** Sets not yet uploaded (spooled or held in memory). */
  readonly count: number;
  /** Age of the oldest, in ms. */
  readonly oldestMs: number;
  /** Of those, sets the spool refused, held in memory until it takes them. */
  readonly unspooled: number;
  /** Spool writes that failed since start (each is retried). */
  readonly spoolFailures: number;
}

interface PendingSet {
  readonly pack: string;
  readonly callId: string;
  attempts: number;
  readonly sinceMs: number;
  /** The parts while the spool refuses them; null once spooled. */
  held: Map<SnapshotPart, SnapshotBody> | null;
  /**
   * A set spooled just now: its bytes, so its first upload attempt sends them without reading the
   * spool back. Dropped once that attempt ran (or the outbox stopped); at most `freshSets` sets
   * hold them at once.
   */
  fresh: ReadonlyMap<SnapshotPart, Buffer> | null;
  spoolAttempts: number;
}

/**
 * Durable snapshot outbox: a snapshot is written whole to the spool directory first (summary
 * last), then uploaded part by part (summary last) and removed from the spool. A set held in
 * memory bound for a local sink (the directory sink) is written there directly instead, and takes
 * the spool's way only if that fails. Failed uploads stay
 * spooled and retry with backoff; a restart finds complete spooled sets and resumes them, a few
 * at a time. A set the spool refuses (a full disk) is never dropped: it is held in memory,
 * counted, and on each retry written to the spool again or, failing that, uploaded from memory.
 * All file work is asynchronous, so a hangup never holds the event loop for its writes.
 */
export class SnapshotOutbox {
  private readonly pending = new Map<string, PendingSet>();
  private readonly timers = new Map<string, Timer>();
  private readonly inFlight = new Map<string, Promise<void>>();
  private readonly waiting: PendingSet[] = [];
  /** Sets handed to store() and not yet spooled or held, by id. */
  private readonly storing = new Map<string, Promise<unknown>>();
  private readonly concurrency: number;
  private readonly freshLimit: number;
  /** Sets holding `fresh` bytes now. */
  private freshSets = 0;
  private readonly files: SpoolFiles;
  private spoolFailures = 0;
  private stopped = false;
  /** Pack folders of the spool made already: `writeSet` makes one again only after a write into it failed. */
  private readonly spoolFolders = new Set<string>();

  private readonly spoolDir: string;
  private readonly sink: SnapshotSink;
  private readonly clock: Clock;
  private readonly observer: OutboxObserver;

  constructor(
    spoolDir: string,
    sink: SnapshotSink,
    clock: Clock,
    observer: OutboxObserver,
    options: OutboxOptions = {},
  ) {
    this.spoolDir = spoolDir;
    this.sink = sink;
    this.clock = clock;
    this.observer = observer;
    this.concurrency = Math.max(1, options.uploadConcurrency ?? DEFAULT_UPLOAD_CONCURRENCY);
    this.freshLimit = Math.max(0, options.freshSets ?? DEFAULT_FRESH_SETS);
    this.files = options.files ?? diskSpoolFiles;
    mkdirSync(spoolDir, { recursive: true });
  }

  /**
   * Spools a complete snapshot (the parts may still be assembling) and starts its upload.
   * Resolves `spooled`, or `held` when the spool refused it and it is kept in memory; rejects only
   * when the parts do (the set never existed) or a part is missing.
   */
  store(pack: string, callId: string, parts: SnapshotParts | Promise<SnapshotParts>): Promise<'spooled' | 'held'> {
    const id = `${pack}/${callId}`;
    const sinceMs = this.clock.nowMs();
    const job = Promise.resolve(parts).then((ready) => this.spoolNew(pack, callId, ready, sinceMs));
    this.storing.set(id, job);
    const forget = (): void => {
      if (this.storing.get(id) === job) this.storing.delete(id);
    };
    job.then(forget, forget);
    return job;
  }

  /**
   * Finds complete spooled sets (a summary present) left by an earlier process and queues their
   * upload. Parts of a set without its summary (a write cut short) are never uploaded.
   */
  resume(): number {
    let found = 0;
    for (const pack of existsSync(this.spoolDir) ? readdirSync(this.spoolDir) : []) {
      for (const name of readdirSync(join(this.spoolDir, pack))) {
        // A summary's write cut short by a crash (or a full disk) left a .tmp: never a complete part.
        if (name.endsWith('.tmp')) void this.files.rm(join(this.spoolDir, pack, name)).catch(() => undefined);
        const m = /^(.+)\.summary\.json$/.exec(name);
        if (!m?.[1] || this.pending.has(`${pack}/${m[1]}`)) continue;
        this.enqueue(pack, m[1], null);
        found++;
      }
    }
    return found;
  }

  /** True when the set is waiting: in the spool, held in memory, or being stored. */
  isSpooled(pack: string, callId: string): boolean {
    const id = `${pack}/${callId}`;
    return this.pending.has(id) || this.storing.has(id) || existsSync(join(this.spoolDir, snapshotKey(pack, callId, 'summary.json')));
  }

  /** Sets not yet uploaded, the age of the oldest, and the spool's refusals. */
  backlog(): OutboxBacklog {
    const now = this.clock.nowMs();
    let oldest = 0;
    let unspooled = 0;
    for (const set of this.pending.values()) {
      oldest = Math.max(oldest, now - set.sinceMs);
      if (set.held) unspooled++;
    }
    let storing = 0;
    for (const id of this.storing.keys()) if (!this.pending.has(id)) storing++;
    return { count: this.pending.size + storing, oldestMs: oldest, unspooled, spoolFailures: this.spoolFailures };
  }

  /** Retries everything now (after an outage ends) and waits for the stores and attempts under way. */
  async flush(): Promise<void> {
    await Promise.allSettled([...this.storing.values()]);
    for (const [id, timer] of this.timers) {
      timer.cancel();
      this.timers.delete(id);
      const set = this.pending.get(id);
      if (set) this.attempt(set);
    }
    for (let round = 0; round < 10_000 && (this.inFlight.size > 0 || this.storing.size > 0); round++) {
      await Promise.allSettled([...this.inFlight.values(), ...this.storing.values()]);
    }
  }

  /** Stops scheduling retries (spooled sets stay on disk for the next start; sets held in memory are reported). */
  stop(): void {
    this.stopped = true;
    for (const timer of this.timers.values()) timer.cancel();
    this.timers.clear();
    for (const set of this.waiting) this.dropFresh(set);
    this.waiting.length = 0;
    const held = [...this.pending.values()].filter((s) => s.held).map((s) => ({ pack: s.pack, callId: s.callId }));
    if (held.length) this.observer.abandoned?.(held);
  }

  private async spoolNew(pack: string, callId: string, parts: SnapshotParts, sinceMs: number): Promise<'spooled' | 'held'> {
    for (const part of SNAPSHOT_PARTS) if (!parts.get(part)) throw new Error(`snapshot of ${callId} lacks ${part}`);
    if (this.sink.local && !this.stopped && (await this.sendDirect(pack, callId, parts, sinceMs))) return 'spooled';
    const held = new Map(parts);
    try {
      await this.writeSet(pack, callId, held);
      const keep = this.freshSets < this.freshLimit;
      const fresh = keep ? new Map([...held].filter((entry): entry is [SnapshotPart, Buffer] => Buffer.isBuffer(entry[1]))) : null;
      if (fresh) this.freshSets++;
      this.enqueue(pack, callId, null, 0, sinceMs, fresh);
      return 'spooled';
    } catch (err) {
      this.spoolFailures++;
      this.observer.spoolFailed?.(pack, callId, 1, err);
      const set = this.enqueue(pack, callId, held, 1, sinceMs);
      if (set) this.scheduleRetry(set, err, false);
      return 'held';
    }
  }

  /**
   * A set whose parts are all bytes, bound for a sink on this machine's disk (`local`), goes there
   * at once, summary last, as an upload would send it: spooling it first would only copy it twice
   * on the same disk (it is as durable once its summary is written as a spooled set is). False when
   * a part is a file, the sink refused a part, or it holds another snapshot under this id: the set
   * then takes the spool's way, where a failure is retried and a conflict kept aside.
   */
  private async sendDirect(pack: string, callId: string, parts: SnapshotParts, sinceMs: number): Promise<boolean> {
    const bytes = new Map<SnapshotPart, Buffer>();
    for (const [part, body] of parts) if (Buffer.isBuffer(body)) bytes.set(part, body);
    const summary = bytes.get('summary.json');
    if (bytes.size !== parts.size || !summary) return false;
    const summaryKey = snapshotKey(pack, callId, 'summary.json');
    try {
      const remote = await this.sink.get(summaryKey);
      if (remote && !remote.equals(summary)) return false;
      if (!remote) for (const part of SNAPSHOT_PARTS) await this.sink.put(snapshotKey(pack, callId, part), bytes.get(part) as Buffer);
    } catch {
      return false;
    }
    this.observer.uploaded(pack, callId, this.sink.locate(summaryKey), this.clock.nowMs() - sinceMs);
    return true;
  }

  /**
   * Writes a set into the spool, summary last: a set is complete once its summary is there, so
   * only the summary goes in via a .tmp and a rename; the buffers before it are written in place
   * (one file operation each, not two), a file part is moved. On a failure nothing half-written
   * stays: buffers written so far are removed and file parts moved back (`parts` is updated to
   * where each file is), then the error is rethrown.
   */
  private async writeSet(pack: string, callId: string, parts: Map<SnapshotPart, SnapshotBody>): Promise<void> {
    const folder = join(this.spoolDir, pack);
    if (!this.spoolFolders.has(folder)) {
      mkdirSync(folder, { recursive: true });
      this.spoolFolders.add(folder);
    }
    const written: string[] = [];
    const moved: { part: SnapshotPart; from: string; to: string }[] = [];
    try {
      for (const part of SNAPSHOT_PARTS) {
        const body = parts.get(part) as SnapshotBody;
        const target = join(this.spoolDir, snapshotKey(pack, callId, part));
        if (Buffer.isBuffer(body)) {
          const staged = part === 'summary.json' ? `${target}.tmp` : target;
          try {
            await this.files.writeFile(staged, body);
            if (staged !== target) await this.files.rename(staged, target);
          } catch (err) {
            await this.files.rm(staged).catch(() => undefined);
            throw err;
          }
          written.push(target);
        } else if (body.file !== target) {
          await this.moveFile(body.file, target);
          moved.push({ part, from: body.file, to: target });
        }
      }
    } catch (err) {
      this.spoolFolders.delete(folder);
      for (const file of written) await this.files.rm(file).catch(() => undefined);
      for (const m of moved) {
        const back = await this.files.rename(m.to, m.from).then(
          () => m.from,
          () => m.to,
        );
        parts.set(m.part, { file: back });
      }
      throw err;
    }
  }

  /** Moves a file part into the spool: a rename, or (another file system) a copy and a removal. */
  private async moveFile(from: string, to: string): Promise<void> {
    const renamed = await this.files.rename(from, to).then(
      () => true,
      () => false,
    );
    if (renamed) return;
    try {
      await this.files.copyFile(from, to);
    } catch (err) {
      await this.files.rm(to).catch(() => undefined);
      throw err;
    }
    await this.files.rm(from);
  }

  private enqueue(pack: string, callId: string, held: Map<SnapshotPart, SnapshotBody> | null, spoolAttempts = 0, sinceMs = this.clock.nowMs(), fresh: ReadonlyMap<SnapshotPart, Buffer> | null = null): PendingSet | null {
    const id = `${pack}/${callId}`;
    if (this.pending.has(id)) return null;
    const set: PendingSet = { pack, callId, attempts: 0, sinceMs, held, fresh, spoolAttempts };
    this.pending.set(id, set);
    if (!held) this.attempt(set);
    return set;
  }

  /** Starts the set's next step (spool again if held, then upload) unless too many are in flight. */
  private attempt(set: PendingSet): void {
    const id = `${set.pack}/${set.callId}`;
    if (this.inFlight.has(id) || this.stopped) return;
    if (this.inFlight.size >= this.concurrency) {
      if (!this.waiting.includes(set)) this.waiting.push(set);
      return;
    }
    const startedMs = this.clock.nowMs();
    const run = this.step(set)
      .finally(() => this.dropFresh(set))
      .then(
        (outcome) => {
          this.pending.delete(id);
          if (outcome === 'uploaded') this.observer.uploaded(set.pack, set.callId, this.sink.locate(snapshotKey(set.pack, set.callId, 'summary.json')), this.clock.nowMs() - startedMs);
        },
        (err: unknown) => this.scheduleRetry(set, err, true),
      );
    this.inFlight.set(id, run);
    void run.finally(() => {
      this.inFlight.delete(id);
      const next = this.waiting.shift();
      if (next && this.pending.get(`${next.pack}/${next.callId}`) === next) this.attempt(next);
    });
  }

  private dropFresh(set: PendingSet): void {
    if (!set.fresh) return;
    set.fresh = null;
    this.freshSets--;
  }

  /** One step for a set: a held set is spooled again (or, failing that, uploaded from memory); a spooled one is uploaded. */
  private async step(set: PendingSet): Promise<'uploaded' | 'conflict'> {
    if (set.held) {
      set.spoolAttempts++;
      try {
        await this.writeSet(set.pack, set.callId, set.held);
        set.held = null;
        this.observer.spooledLate?.(set.pack, set.callId, set.spoolAttempts);
      } catch (err) {
        this.spoolFailures++;
        this.observer.spoolFailed?.(set.pack, set.callId, set.spoolAttempts, err);
      }
    }
    set.attempts++;
    return this.upload(set);
  }

  private scheduleRetry(set: PendingSet, err: unknown, uploadFailed: boolean): void {
    const attempts = Math.max(set.attempts, set.spoolAttempts);
    const delay = Math.min(RETRY_MAX_MS, RETRY_BASE_MS * 2 ** Math.min(Math.max(attempts, 1) - 1, 10));
    if (uploadFailed) this.observer.failed(set.pack, set.callId, set.attempts, err, delay);
    if (this.stopped) return;
    const id = `${set.pack}/${set.callId}`;
    this.timers.get(id)?.cancel();
    this.timers.set(
      id,
      this.clock.setTimer(delay, () => {
        this.timers.delete(id);
        this.attempt(set);
      }),
    );
  }

  private async readPart(set: PendingSet, part: SnapshotPart): Promise<Buffer> {
    const body = set.held?.get(part) ?? set.fresh?.get(part);
    if (!body) return this.files.readFile(join(this.spoolDir, snapshotKey(set.pack, set.callId, part)));
    return Buffer.isBuffer(body) ? body : this.files.readFile(body.file);
  }

  private async upload(set: PendingSet): Promise<'uploaded' | 'conflict'> {
    const summaryKey = snapshotKey(set.pack, set.callId, 'summary.json');
    // The upgrade's "snapshot exists" check fails open while the store is down, so a reused id can
    // reach here: never overwrite a different call's snapshot. The same bytes mean an earlier
    // attempt finished before its cleanup did.
    const [remote, local] = await Promise.all([this.sink.get(summaryKey), this.readPart(set, 'summary.json')]);
    if (remote && !remote.equals(local)) {
      if (set.held) throw new Error(`another snapshot holds ${set.callId}; ours stays in memory until the spool takes it`);
      await this.quarantine(set);
      return 'conflict';
    }
    if (!remote) {
      for (const part of SNAPSHOT_PARTS) await this.sink.put(snapshotKey(set.pack, set.callId, part), await this.readPart(set, part));
    }
    await this.removeLocal(set);
    return 'uploaded';
  }

  private async quarantine(set: PendingSet): Promise<void> {
    const dir = join(this.spoolDir, '..', 'conflicts', set.pack);
    mkdirSync(dir, { recursive: true });
    for (const part of SNAPSHOT_PARTS) {
      const key = snapshotKey(set.pack, set.callId, part);
      await this.files.rename(join(this.spoolDir, key), join(this.spoolDir, '..', 'conflicts', key));
    }
    this.observer.conflicted?.(set.pack, set.callId, dir);
  }

  private async removeLocal(set: PendingSet): Promise<void> {
    if (set.held) {
      for (const body of set.held.values()) if (!Buffer.isBuffer(body)) await this.files.rm(body.file).catch(() => undefined);
      set.held = null;
      return;
    }
    // Remove the summary first so a crash mid-cleanup never leaves a "complete" partial set.
    for (const part of [...SNAPSHOT_PARTS].reverse()) await this.files.rm(join(this.spoolDir, snapshotKey(set.pack, set.callId, part)));
  }
}
