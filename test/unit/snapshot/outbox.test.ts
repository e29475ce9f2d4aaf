import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/core/index.ts';
import { directorySink, SNAPSHOT_PARTS, SnapshotOutbox, type OutboxObserver, type SnapshotPart, type SnapshotSink } from '../../../src/snapshot/index.ts';

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
    outbox.store(PACK, 'call_1', parts('call_1'));
    await seen.until(() => seen.uploads.length === 1);
    expect(sink.puts).toEqual(SNAPSHOT_PARTS.map((p) => `${PACK}/call_1.${p}`));
    expect(sink.puts.at(-1)).toBe(`${PACK}/call_1.summary.json`);
    for (const p of SNAPSHOT_PARTS) expect(sink.objects.get(`${PACK}/call_1.${p}`)?.toString()).toBe(`call_1:${p}`);
    expect(readdirSync(join(spool, PACK))).toEqual([]);
    expect(outbox.backlog().count).toBe(0);
    expect(outbox.isSpooled(PACK, 'call_1')).toBe(false);
  });

  it('refuses an incomplete set', () => {
    const outbox = new SnapshotOutbox(tempDir(), new MemorySink(), new ManualClock(), new Observed());
    const missing = parts('call_1');
    missing.delete('wav');
    expect(() => outbox.store(PACK, 'call_1', missing)).toThrow(/wav/);
  });

  it('keeps a failing set spooled, retries with doubling backoff on the clock, and never uploads the summary early', async () => {
    const spool = tempDir();
    const sink = new MemorySink();
    sink.failOn = (key) => key.endsWith('.wav');
    const seen = new Observed();
    const clock = new ManualClock();
    const outbox = new SnapshotOutbox(spool, sink, clock, seen);
    outbox.store(PACK, 'call_1', parts('call_1'));

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
    expect(outbox.backlog()).toEqual({ count: 0, oldestMs: 0 });
    expect(clock.pendingCount()).toBe(0);
  });

  it('caps the backoff at 60 s', async () => {
    const sink = new MemorySink();
    sink.failOn = () => true;
    const seen = new Observed();
    const clock = new ManualClock();
    const outbox = new SnapshotOutbox(tempDir(), sink, clock, seen);
    outbox.store(PACK, 'call_1', parts('call_1'));
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
    outbox.store(PACK, 'call_1', parts('call_1'));
    clock.advance(700);
    outbox.store(PACK, 'call_2', parts('call_2'));
    await seen.until(() => seen.failures.length >= 2);
    clock.advance(100);
    expect(outbox.backlog()).toEqual({ count: 2, oldestMs: 800 });
    outbox.stop();
  });

  it('flush retries at once and waits for the uploads', async () => {
    const sink = new MemorySink();
    sink.failOn = () => true;
    const seen = new Observed();
    const clock = new ManualClock();
    const outbox = new SnapshotOutbox(tempDir(), sink, clock, seen);
    outbox.store(PACK, 'call_1', parts('call_1'));
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
    outbox.store(PACK, 'call_1', parts('call_1'));
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
    earlier.store(PACK, 'call_1', parts('call_1'));
    earlier.store(PACK, 'call_2', parts('call_2'));
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
    outbox.store(PACK, 'call_9', parts('call_9'));
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
    outbox.store(PACK, 'loc_reused', parts('later'));
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
    outbox.store(PACK, 'loc_same', parts('same'));
    await outbox.flush();
    expect(seen.uploads).toEqual(['loc_same']);
    expect(sink.puts).toEqual([]);
    expect(outbox.isSpooled(PACK, 'loc_same')).toBe(false);
  });
});
