import Database from 'better-sqlite3';
import { join } from 'node:path';
import { loadPack, listPackIds } from '../src/packs/index.ts';
import { buildDatabase, CallDatabases, dumpDatabase, ensureTemplate } from '../src/store/index.ts';
import { systemClock } from '../src/core/index.ts';
import { syntheticSummary, syntheticTimeline, type SyntheticStep } from '../src/scoring/index.ts';
import { directorySink, emptyUsage, snapshotParts, SnapshotOutbox, type CallRecord } from '../src/snapshot/index.ts';
import { ROOT, tempDir } from './bench-context.ts';
import { summarize, type LatencySummary } from './stats.ts';

/** Per-pack database figures. */
export interface DbRow {
  readonly pack: string;
  readonly templateCopy: LatencySummary;
  readonly migrateAndSeed: LatencySummary;
  readonly dump: LatencySummary;
  /** Hangup: dump + the five parts (summary, timeline, final state, .db bytes, a 60 s stereo WAV). */
  readonly snapshotAssembly: LatencySummary;
  /** Writing the assembled parts to the spool (before the upload starts). */
  readonly spoolWrite: LatencySummary;
}

/** A 60 s call's record: ~300 timeline events, as a busy call leaves. */
function callRecord(pack: Awaited<ReturnType<typeof loadPack>>, callId: string): CallRecord {
  const steps: SyntheticStep[] = Array.from({ length: 100 }, (_, i) => ({ kind: 'speech', side: i % 2 ? 'caller' : 'agent', text: `line ${i} of a long and winding conversation` }));
  const options = { callId, pack: pack.id, taskId: null, endAtMs: 60_000 };
  return {
    pack,
    callId,
    runId: null,
    taskId: null,
    harness: 'scripted',
    model: null,
    startedAtEpochMs: Date.UTC(2026, 9, 5, 13),
    endedAtEpochMs: Date.UTC(2026, 9, 5, 13, 1),
    durationMs: 60_000,
    endReason: 'caller_hangup',
    closeCode: 1000,
    events: syntheticTimeline(steps, options),
    smoke: syntheticSummary(pack, options).smoke,
    usage: emptyUsage(),
    costUsd: null,
    priceTableVersion: null,
    traceId: null,
    pacing: { intervals: 2_400, offOver5Ms: 3, maxOffMs: 21.5 },
  };
}

/** A call database by template copy vs by running migrations and seed, and the hangup dump. */
export async function benchDatabases(iterations: number): Promise<DbRow[]> {
  const rows: DbRow[] = [];
  for (const id of listPackIds(join(ROOT, 'packs'))) {
    const pack = await loadPack(join(ROOT, 'packs'), id).catch(() => null);
    if (!pack) continue;
    const tmp = tempDir('mivas-bench-db-');
    try {
      const dbs = new CallDatabases(join(tmp.dir, 'calls'), ensureTemplate(join(tmp.dir, 'templates'), pack));
      const copy: number[] = [];
      const dumps: number[] = [];
      for (let i = 0; i < iterations; i++) {
        const t0 = performance.now();
        const db = dbs.create(`copy_${i}`);
        copy.push(performance.now() - t0);
        const t1 = performance.now();
        dumpDatabase(db.sqlite);
        dumps.push(performance.now() - t1);
        dbs.remove(`copy_${i}`);
      }
      const migrate: number[] = [];
      for (let i = 0; i < Math.min(iterations, 50); i++) {
        const t0 = performance.now();
        buildDatabase(pack, join(tmp.dir, `built_${i}.db`));
        new Database(join(tmp.dir, `built_${i}.db`)).close();
        migrate.push(performance.now() - t0);
      }
      const assembly: number[] = [];
      const spool: number[] = [];
      const templateDump = dumpDatabase(dbs.create('template_view').sqlite);
      const outbox = new SnapshotOutbox(join(tmp.dir, 'spool'), directorySink(join(tmp.dir, 'snapshots')), systemClock(), { uploaded: () => undefined, failed: () => undefined });
      const wav = Buffer.alloc(60 * 64_000 + 44);
      for (let i = 0; i < Math.min(iterations, 100); i++) {
        const callId = `snap_${i}`;
        const db = dbs.create(callId);
        const record = callRecord(pack, callId);
        const t0 = performance.now();
        const dump = dumpDatabase(db.sqlite);
        const { parts } = snapshotParts(record, dump, templateDump, db.sqlite.serialize(), wav);
        assembly.push(performance.now() - t0);
        const t1 = performance.now();
        void outbox.store(id, callId, parts);
        spool.push(performance.now() - t1);
        dbs.remove(callId);
      }
      await outbox.flush();
      outbox.stop();
      dbs.closeAll();
      rows.push({ pack: id, templateCopy: summarize(copy), migrateAndSeed: summarize(migrate), dump: summarize(dumps), snapshotAssembly: summarize(assembly), spoolWrite: summarize(spool) });
    } finally {
      tmp.remove();
    }
  }
  return rows;
}
