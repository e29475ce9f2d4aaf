import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/core/index.ts';
import { directorySink, diskSpoolFiles, SNAPSHOT_PARTS, SnapshotOutbox, type OutboxObserver, type SnapshotBody, type SnapshotPart, type SnapshotSink, type SpoolFiles } from '../../../src/snapshot/index.ts';

const PACK = 'control-industry';

function parts(callId: string): Map<SnapshotPart, Buffer> {
  return new Map(SNAPSHOT_PARTS.map((p) => [p, Buffer.from(`${callId}:${p}`)]));
}

/** An in-memory sink whose failures the test switches on and off (a real implementation of the interface). */
class MemorySink implements SnapshotSink {
  readonly root = 'mem://snapshots';
  readonly objects = new Map<string, Buffer>();
  readonly puts: string[] = [];
  /** Every read; an upload attempt starts with one (the overwrite check), synchronously. */
  readonly gets: string[] = [];
  failOn: ((key: string) => boolean) | null = null;

  async put(key: string, body: Buffer): Promise<void> {
    this.puts.push(key);
    if (this.failOn?.(key)) throw new Error(`refused ${key}`);
    this.objects.set(key, Buffer.from(body));
  }
  async exists(key: string): Promise<boolean> {
    return this.objects.has(key);
  }
  async get(key: string): Promise<Buffer | null> {
    this.gets.push(key);
    return this.objects.get(key) ?? null;
  }
  locate(key: string): string {
    return `${this.root}/${key}`;
  }
}

/** Records observer calls and lets a test await the nth of a kind. */
class Observed implements OutboxObserver {
  readonly uploads: string[] = [];
  readonly failures: { callId: string; attempt: number; retryInMs: number }[] = [];
  private waiters: (() => void)[] = [];

  uploaded(_pack: string, callId: string): void {
    this.uploads.push(callId);
    this.wake();
  }
  failed(_pack: string, callId: string, attempt: number, _error: unknown, retryInMs: number): void {
    this.failures.push({ callId, attempt, retryInMs });
    this.wake();
  }
  async until(predicate: () => boolean): Promise<void> {
    while (!predicate()) await new Promise<void>((resolve) => this.waiters.push(resolve));
  }
  private wake(): void {
    for (const w of this.waiters.splice(0)) w();
  }
}

describe('SnapshotOutbox', () => {
  const dirs: string[] = [];
  const tempDir = (): string => {
    const d = mkdtempSync(join(tmpdir(), 'mivas-outbox-'));
    dirs.push(d);
    return d;
  };
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });

  it('spools the whole set, uploads every part with the summary last, then empties the spool', async () => {
    const spool = tempDir();
    const sink = new MemorySink();
    const seen = new Observed();
    const outbox = new SnapshotOutbox(spool, sink, new ManualClock(), seen);
    void outbox.store(PACK, 'call_1', parts('call_1'));
    await seen.until(() => seen.uploads.length === 1);
    expect(sink.puts).toEqual(SNAPSHOT_PARTS.map((p) => `${PACK}/call_1.${p}`));
    expect(sink.puts.at(-1)).toBe(`${PACK}/call_1.summary.json`);
    for (const p of SNAPSHOT_PARTS) expect(sink.objects.get(`${PACK}/call_1.${p}`)?.toString()).toBe(`call_1:${p}`);
    expect(readdirSync(join(spool, PACK))).toEqual([]);
    expect(outbox.backlog().count).toBe(0);
    expect(outbox.isSpooled(PACK, 'call_1')).toBe(false);
  });

  it('refuses an incomplete set', async () => {
    const outbox = new SnapshotOutbox(tempDir(), new MemorySink(), new ManualClock(), new Observed());
    const missing = parts('call_1');
    missing.delete('wav');
    await expect(outbox.store(PACK, 'call_1', missing)).rejects.toThrow(/wav/);
  });

  it('keeps a failing set spooled, retries with doubling backoff on the clock, and never uploads the summary early', async () => {
    const spool = tempDir();
    const sink = new MemorySink();
    sink.failOn = (key) => key.endsWith('.wav');
    const seen = new Observed();
    const clock = new ManualClock();
    const outbox = new SnapshotOutbox(spool, sink, clock, seen);
    void outbox.store(PACK, 'call_1', parts('call_1'));

    const expectedDelays = [1_000, 2_000, 4_000, 8_000];
    for (const [i, delay] of expectedDelays.entries()) {
      await seen.until(() => seen.failures.length === i + 1);
      expect(seen.failures[i]).toEqual({ callId: 'call_1', attempt: i + 1, retryInMs: delay });
      expect(outbox.isSpooled(PACK, 'call_1')).toBe(true);
      expect(outbox.backlog().count).toBe(1);
      expect(sink.objects.has(`${PACK}/call_1.summary.json`)).toBe(false);
      const attemptsSoFar = sink.gets.length;
      clock.advance(delay - 1);
      expect(sink.gets.length).toBe(attemptsSoFar); // not yet
      if (i === expectedDelays.length - 1) sink.failOn = null; // the outage ends before the next retry
      clock.advance(1);
      expect(sink.gets.length).toBeGreaterThan(attemptsSoFar); // retried exactly at the delay
    }
    await seen.until(() => seen.uploads.length === 1);
    expect(sink.puts.filter((k) => k.endsWith('.summary.json'))).toEqual([`${PACK}/call_1.summary.json`]);
    expect(existsSync(join(spool, PACK, 'call_1.summary.json'))).toBe(false);
    expect(outbox.backlog()).toEqual({ count: 0, oldestMs: 0, unspooled: 0, spoolFailures: 0 });
    expect(clock.pendingCount()).toBe(0);
  });

  it('caps the backoff at 60 s', async () => {
    const sink = new MemorySink();
    sink.failOn = () => true;
    const seen = new Observed();
    const clock = new ManualClock();
    const outbox = new SnapshotOutbox(tempDir(), sink, clock, seen);
    void outbox.store(PACK, 'call_1', parts('call_1'));
    for (let attempt = 1; attempt <= 9; attempt++) {
      await seen.until(() => seen.failures.length === attempt);
      clock.advance(seen.failures[attempt - 1]?.retryInMs ?? 0);
    }
    expect(seen.failures.map((f) => f.retryInMs)).toEqual([1_000, 2_000, 4_000, 8_000, 16_000, 32_000, 60_000, 60_000, 60_000]);
    outbox.stop();
  });

  it('reports the backlog and the age of the oldest pending set', async () => {
    const sink = new MemorySink();
    sink.failOn = () => true;
    const seen = new Observed();
    const clock = new ManualClock();
    const outbox = new SnapshotOutbox(tempDir(), sink, clock, seen);
    void outbox.store(PACK, 'call_1', parts('call_1'));
    clock.advance(700);
    void outbox.store(PACK, 'call_2', parts('call_2'));
    await seen.until(() => seen.failures.length >= 2);
    clock.advance(100);
    expect(outbox.backlog()).toEqual({ count: 2, oldestMs: 800, unspooled: 0, spoolFailures: 0 });
    outbox.stop();
  });

  it('flush retries at once and waits for the uploads', async () => {
    const sink = new MemorySink();
    sink.failOn = () => true;
    const seen = new Observed();
    const clock = new ManualClock();
    const outbox = new SnapshotOutbox(tempDir(), sink, clock, seen);
    void outbox.store(PACK, 'call_1', parts('call_1'));
    await seen.until(() => seen.failures.length === 1);
    sink.failOn = null;
    await outbox.flush();
    expect(seen.uploads).toEqual(['call_1']);
    expect(outbox.backlog().count).toBe(0);
    expect(clock.pendingCount()).toBe(0);
  });

  it('stop keeps failed sets on disk and schedules nothing more', async () => {
    const spool = tempDir();
    const sink = new MemorySink();
    sink.failOn = () => true;
    const seen = new Observed();
    const clock = new ManualClock();
    const outbox = new SnapshotOutbox(spool, sink, clock, seen);
    await outbox.store(PACK, 'call_1', parts('call_1'));
    await seen.until(() => seen.failures.length === 1);
    outbox.stop();
    const puts = sink.puts.length;
    clock.advance(600_000);
    expect(sink.puts.length).toBe(puts);
    expect(readdirSync(join(spool, PACK)).sort()).toEqual(SNAPSHOT_PARTS.map((p) => `call_1.${p}`).sort());
  });

  it('resume uploads complete sets left by an earlier process, and only those', async () => {
    const spool = tempDir();
    // An earlier process spooled call_1 and call_2 and died; call_3 died mid-spool (no summary).
    const first = new MemorySink();
    first.failOn = () => true;
    const earlier = new SnapshotOutbox(spool, first, new ManualClock(), new Observed());
    await earlier.store(PACK, 'call_1', parts('call_1'));
    await earlier.store(PACK, 'call_2', parts('call_2'));
    earlier.stop();
    mkdirSync(join(spool, PACK), { recursive: true });
    writeFileSync(join(spool, PACK, 'call_3.timeline.json'), 'partial');

    const sink = new MemorySink();
    const seen = new Observed();
    const outbox = new SnapshotOutbox(spool, sink, new ManualClock(), seen);
    expect(outbox.resume()).toBe(2);
    await seen.until(() => seen.uploads.length === 2);
    expect(seen.uploads.sort()).toEqual(['call_1', 'call_2']);
    for (const id of ['call_1', 'call_2']) {
      for (const p of SNAPSHOT_PARTS) expect(sink.objects.get(`${PACK}/${id}.${p}`)?.toString()).toBe(`${id}:${p}`);
    }
    expect([...sink.objects.keys()].some((k) => k.includes('call_3'))).toBe(false);
    expect(readdirSync(join(spool, PACK))).toEqual(['call_3.timeline.json']);
    // Resuming twice does not upload twice.
    expect(outbox.resume()).toBe(0);
    expect(sink.puts.filter((k) => k.endsWith('.summary.json'))).toHaveLength(2);
  });

  it('delivers to a directory sink byte for byte', async () => {
    const root = tempDir();
    const seen = new Observed();
    const outbox = new SnapshotOutbox(join(root, 'spool'), directorySink(join(root, 'out')), new ManualClock(), seen);
    void outbox.store(PACK, 'call_9', parts('call_9'));
    await seen.until(() => seen.uploads.length === 1);
    for (const p of SNAPSHOT_PARTS) expect(readFileSync(join(root, 'out', PACK, `call_9.${p}`), 'utf8')).toBe(`call_9:${p}`);
    expect(readdirSync(join(root, 'out', PACK)).some((f) => f.endsWith('.partial'))).toBe(false);
  });
});

describe('SnapshotOutbox and an id the sink already holds', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });

  it('never overwrites another call’s snapshot: ours is kept aside and reported', async () => {
    const root = mkdtempSync(join(tmpdir(), 'mivas-outbox-conflict-'));
    dirs.push(root);
    const sink = new MemorySink();
    for (const [part, body] of parts('earlier')) sink.objects.set(`${PACK}/loc_reused.${part}`, body);
    const conflicts: string[] = [];
    const seen = new Observed();
    const outbox = new SnapshotOutbox(join(root, 'spool'), sink, new ManualClock(), {
      uploaded: (p, c, l, d) => seen.uploaded(p, c),
      failed: (p, c, a, e, r) => seen.failed(p, c, a, e, r),
      conflicted: (_p, callId) => conflicts.push(callId),
    });
    void outbox.store(PACK, 'loc_reused', parts('later'));
    await outbox.flush();
    expect(conflicts).toEqual(['loc_reused']);
    expect(seen.uploads).toEqual([]);
    expect(sink.puts).toEqual([]);
    expect(sink.objects.get(`${PACK}/loc_reused.summary.json`)?.toString()).toBe('earlier:summary.json');
    expect(readFileSync(join(root, 'conflicts', PACK, 'loc_reused.summary.json'), 'utf8')).toBe('later:summary.json');
    expect(outbox.backlog().count).toBe(0);
  });

  it('treats an identical summary at the sink as already uploaded and only cleans the spool', async () => {
    const root = mkdtempSync(join(tmpdir(), 'mivas-outbox-same-'));
    dirs.push(root);
    const sink = new MemorySink();
    for (const [part, body] of parts('same')) sink.objects.set(`${PACK}/loc_same.${part}`, body);
    const seen = new Observed();
    const outbox = new SnapshotOutbox(join(root, 'spool'), sink, new ManualClock(), seen);
    void outbox.store(PACK, 'loc_same', parts('same'));
    await outbox.flush();
    expect(seen.uploads).toEqual(['loc_same']);
    expect(sink.puts).toEqual([]);
    expect(outbox.isSpooled(PACK, 'loc_same')).toBe(false);
  });
});

/** The real spool file system, except that while `full` every write leaves a partial file and fails with ENOSPC, as a full disk does. */
class FillableDisk implements SpoolFiles {
  full = false;
  refused = 0;
  async writeFile(path: string, data: Buffer): Promise<void> {
    if (this.full) {
      this.refused++;
      await diskSpoolFiles.writeFile(path, data.subarray(0, Math.floor(data.length / 2)));
      throw Object.assign(new Error(`ENOSPC: no space left on device, write '${path}'`), { code: 'ENOSPC' });
    }
    return diskSpoolFiles.writeFile(path, data);
  }
  rename = diskSpoolFiles.rename;
  copyFile = diskSpoolFiles.copyFile;
  readFile = diskSpoolFiles.readFile;
  rm = diskSpoolFiles.rm;
}

/** A sink whose puts wait until the test lets them go, counting how many are in flight at once. */
class GatedSink extends MemorySink {
  inFlight = 0;
  peak = 0;
  private gates: (() => void)[] = [];
  override async get(key: string): Promise<Buffer | null> {
    this.inFlight++;
    this.peak = Math.max(this.peak, this.inFlight);
    await new Promise<void>((resolve) => this.gates.push(resolve));
    this.inFlight--;
    return super.get(key);
  }
  waitingCount(): number {
    return this.gates.length;
  }
  /** Resolves once a get is held at the gate. */
  untilWaiting(): Promise<void> {
    return new Promise<void>((resolve) => {
      const poll = (): void => (this.gates.length > 0 ? resolve() : void setImmediate(poll));
      poll();
    });
  }
  releaseAll(): void {
    for (const g of this.gates.splice(0)) g();
  }
}

/** The real disk, counting each kind of operation. */
class CountedDisk implements SpoolFiles {
  readonly counts = { writeFile: 0, rename: 0, readFile: 0, rm: 0 };
  async writeFile(path: string, data: Buffer): Promise<void> {
    this.counts.writeFile++;
    return diskSpoolFiles.writeFile(path, data);
  }
  async rename(from: string, to: string): Promise<void> {
    this.counts.rename++;
    return diskSpoolFiles.rename(from, to);
  }
  copyFile = diskSpoolFiles.copyFile;
  async readFile(path: string): Promise<Buffer> {
    this.counts.readFile++;
    return diskSpoolFiles.readFile(path);
  }
  async rm(path: string): Promise<void> {
    this.counts.rm++;
    return diskSpoolFiles.rm(path);
  }
}

describe('SnapshotOutbox on a full disk and with a backlog', () => {
  const dirs: string[] = [];
  const tempDir = (): string => {
    const d = mkdtempSync(join(tmpdir(), 'mivas-outbox-disk-'));
    dirs.push(d);
    return d;
  };
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });

  it('holds a set the spool refuses, counts it, leaves no partial file, and spools it once space returns', async () => {
    const spool = tempDir();
    const disk = new FillableDisk();
    const sink = new MemorySink();
    sink.failOn = () => true; // the sink is down too: the set must wait for the spool
    const seen = new Observed();
    const spoolFailures: number[] = [];
    const late: string[] = [];
    const clock = new ManualClock();
    const outbox = new SnapshotOutbox(spool, sink, clock, { uploaded: (p, c) => seen.uploaded(p, c), failed: (p, c, a, e, r) => seen.failed(p, c, a, e, r), spoolFailed: (_p, _c, attempt) => spoolFailures.push(attempt), spooledLate: (_p, c) => late.push(c) }, { files: disk });
    disk.full = true;
    expect(await outbox.store(PACK, 'call_full', parts('call_full'))).toBe('held');
    expect(outbox.backlog()).toMatchObject({ count: 1, unspooled: 1, spoolFailures: 1 });
    expect(outbox.isSpooled(PACK, 'call_full')).toBe(true);
    expect(readdirSync(join(spool, PACK))).toEqual([]);

    // Still full at the first retry: refused again (counted), the upload from memory fails too.
    clock.advance(1_000);
    await seen.until(() => seen.failures.length === 1);
    expect(spoolFailures).toEqual([1, 2]);
    expect(readdirSync(join(spool, PACK))).toEqual([]);

    // Space returns; the sink is still down, so the next retry lands the set in the spool.
    disk.full = false;
    clock.advance(seen.failures[0]?.retryInMs ?? 0);
    await seen.until(() => seen.failures.length === 2);
    expect(late).toEqual(['call_full']);
    expect(outbox.backlog()).toMatchObject({ count: 1, unspooled: 0, spoolFailures: 2 });
    expect(readdirSync(join(spool, PACK)).sort()).toEqual(SNAPSHOT_PARTS.map((p) => `call_full.${p}`).sort());

    sink.failOn = null;
    await outbox.flush();
    expect(seen.uploads).toEqual(['call_full']);
    expect(sink.puts.filter((k) => k.endsWith('.summary.json'))).toEqual([`${PACK}/call_full.summary.json`]);
    for (const p of SNAPSHOT_PARTS) expect(sink.objects.get(`${PACK}/call_full.${p}`)?.toString()).toBe(`call_full:${p}`);
    expect(readdirSync(join(spool, PACK))).toEqual([]);
    expect(outbox.backlog().count).toBe(0);
  });

  it('uploads a held set from memory when the disk stays full but the sink answers, once', async () => {
    const root = tempDir();
    const disk = new FillableDisk();
    const sink = new MemorySink();
    const seen = new Observed();
    const clock = new ManualClock();
    const outbox = new SnapshotOutbox(join(root, 'spool'), sink, clock, seen, { files: disk });
    // The WAV arrives as a file (the recorder's), moved rather than copied.
    const wavFile = join(root, 'call_mem.wav');
    writeFileSync(wavFile, 'call_mem:wav');
    const set: Map<SnapshotPart, SnapshotBody> = parts('call_mem');
    set.set('wav', { file: wavFile });
    disk.full = true;
    expect(await outbox.store(PACK, 'call_mem', set)).toBe('held');
    expect(existsSync(wavFile)).toBe(true);
    clock.advance(1_000);
    await seen.until(() => seen.uploads.length === 1);
    for (const p of SNAPSHOT_PARTS) expect(sink.objects.get(`${PACK}/call_mem.${p}`)?.toString()).toBe(`call_mem:${p}`);
    expect(existsSync(wavFile)).toBe(false);
    expect(outbox.backlog()).toMatchObject({ count: 0, unspooled: 0 });
    clock.advance(600_000);
    await outbox.flush();
    expect(seen.uploads).toEqual(['call_mem']);
  });

  it('uploads a boot backlog a few sets at a time', async () => {
    const spool = tempDir();
    const first = new MemorySink();
    first.failOn = () => true;
    const earlier = new SnapshotOutbox(spool, first, new ManualClock(), new Observed());
    const ids = Array.from({ length: 12 }, (_, i) => `backlog_${i}`);
    for (const id of ids) await earlier.store(PACK, id, parts(id));
    earlier.stop();

    const sink = new GatedSink();
    const seen = new Observed();
    const outbox = new SnapshotOutbox(spool, sink, new ManualClock(), seen, { uploadConcurrency: 3 });
    expect(outbox.resume()).toBe(12);
    for (let round = 0; round < 4; round++) {
      await sink.untilWaiting();
      expect(sink.inFlight).toBeLessThanOrEqual(3);
      sink.releaseAll();
      await seen.until(() => seen.uploads.length >= (round + 1) * 3);
    }
    expect(sink.peak).toBe(3);
    expect(seen.uploads.sort()).toEqual([...ids].sort());
    expect(readdirSync(join(spool, PACK))).toEqual([]);
  });

  it('flush waits for a set whose parts are still being assembled', async () => {
    const spool = tempDir();
    const sink = new MemorySink();
    const outbox = new SnapshotOutbox(spool, sink, new ManualClock(), new Observed());
    let finish: (p: Map<SnapshotPart, Buffer>) => void = () => undefined;
    const stored = outbox.store(PACK, 'call_late', new Promise((resolve) => (finish = resolve)));
    expect(outbox.backlog().count).toBe(1);
    expect(outbox.isSpooled(PACK, 'call_late')).toBe(true);
    const flushed = outbox.flush();
    finish(parts('call_late'));
    await flushed;
    expect(await stored).toBe('spooled');
    expect(sink.objects.get(`${PACK}/call_late.summary.json`)?.toString()).toBe('call_late:summary.json');
  });

  it('renames only the summary into the spool and uploads a set spooled just now from its bytes, never reading the spool back', async () => {
    const spool = tempDir();
    const disk = new CountedDisk();
    const sink = new MemorySink();
    const seen = new Observed();
    const outbox = new SnapshotOutbox(spool, sink, new ManualClock(), seen, { files: disk });
    expect(await outbox.store(PACK, 'call_ops', parts('call_ops'))).toBe('spooled');
    await outbox.flush();
    expect(seen.uploads).toEqual(['call_ops']);
    for (const p of SNAPSHOT_PARTS) expect(sink.objects.get(`${PACK}/call_ops.${p}`)?.toString()).toBe(`call_ops:${p}`);
    expect(disk.counts).toEqual({ writeFile: SNAPSHOT_PARTS.length, rename: 1, readFile: 0, rm: SNAPSHOT_PARTS.length });
    expect(readdirSync(join(spool, PACK))).toEqual([]);
  });

  it('writes a set held in memory straight to a local sink: no spool file, and a flush waits for it', async () => {
    const spool = tempDir();
    const disk = new CountedDisk();
    const sink = Object.assign(new GatedSink(), { local: true });
    const seen = new Observed();
    const outbox = new SnapshotOutbox(spool, sink, new ManualClock(), seen, { files: disk });
    const stored = outbox.store(PACK, 'call_direct', parts('call_direct'));
    await sink.untilWaiting();
    // Under way: counted as waiting, and a flush (the shutdown's hand-over) does not return before it lands.
    expect(outbox.isSpooled(PACK, 'call_direct')).toBe(true);
    let flushed = false;
    const flush = outbox.flush().then(() => (flushed = true));
    await new Promise((resolve) => setImmediate(resolve));
    expect(flushed).toBe(false);
    sink.releaseAll();
    await flush;
    expect(await stored).toBe('spooled');
    expect(seen.uploads).toEqual(['call_direct']);
    for (const p of SNAPSHOT_PARTS) expect(sink.objects.get(`${PACK}/call_direct.${p}`)?.toString()).toBe(`call_direct:${p}`);
    expect(sink.puts.at(-1)).toBe(`${PACK}/call_direct.summary.json`);
    expect(disk.counts).toEqual({ writeFile: 0, rename: 0, readFile: 0, rm: 0 });
    expect(outbox.backlog().count).toBe(0);
  });

  it('spools a set a local sink refused and retries it; a file part always goes through the spool', async () => {
    const spool = tempDir();
    const sink = Object.assign(new MemorySink(), { local: true });
    sink.failOn = (key) => key.endsWith('final.json');
    const clock = new ManualClock();
    const seen = new Observed();
    const outbox = new SnapshotOutbox(spool, sink, clock, seen);
    expect(await outbox.store(PACK, 'call_refused', parts('call_refused'))).toBe('spooled');
    await seen.until(() => seen.failures.length === 1);
    expect(existsSync(join(spool, PACK, 'call_refused.summary.json'))).toBe(true);
    sink.failOn = null;
    clock.advance(1_000);
    await seen.until(() => seen.uploads.length === 1);
    for (const p of SNAPSHOT_PARTS) expect(sink.objects.get(`${PACK}/call_refused.${p}`)?.toString()).toBe(`call_refused:${p}`);
    const wav = join(tempDir(), 'call_file.wav');
    writeFileSync(wav, 'recorded');
    const withFile = new Map<SnapshotPart, SnapshotBody>([...parts('call_file'), ['wav', { file: wav }]]);
    const disk = new CountedDisk();
    const second = new SnapshotOutbox(tempDir(), sink, new ManualClock(), seen, { files: disk });
    expect(await second.store(PACK, 'call_file', withFile)).toBe('spooled');
    await second.flush();
    expect(sink.objects.get(`${PACK}/call_file.wav`)?.toString()).toBe('recorded');
    expect(disk.counts.writeFile).toBe(SNAPSHOT_PARTS.length - 1);
  });

  it('reads a set back from the spool when more sets than freshSets wait for their upload', async () => {
    const spool = tempDir();
    const disk = new CountedDisk();
    const sink = new GatedSink();
    const seen = new Observed();
    const outbox = new SnapshotOutbox(spool, sink, new ManualClock(), seen, { files: disk, uploadConcurrency: 1, freshSets: 1 });
    // All three spooled while the first upload is held at the sink.
    await Promise.all(['call_a', 'call_b', 'call_c'].map((id) => outbox.store(PACK, id, parts(id))));
    for (let done = 1; done <= 3; done++) {
      await sink.untilWaiting();
      sink.releaseAll();
      await seen.until(() => seen.uploads.length >= done);
    }
    await outbox.flush();
    expect(seen.uploads.sort()).toEqual(['call_a', 'call_b', 'call_c']);
    for (const id of ['call_a', 'call_b', 'call_c']) for (const p of SNAPSHOT_PARTS) expect(sink.objects.get(`${PACK}/${id}.${p}`)?.toString()).toBe(`${id}:${p}`);
    // The first set kept its bytes; the two spooled while it held the one place were read back, every part and the summary's overwrite check.
    expect(disk.counts.readFile).toBe(2 * (SNAPSHOT_PARTS.length + 1));
  });
});
