import Database from 'better-sqlite3';
import { join } from 'node:path';
import { loadPack, listPackIds } from '../src/packs/index.ts';
import { buildDatabase, CallDatabases, dumpDatabase, ensureTemplate } from '../src/store/index.ts';
import { ROOT, tempDir } from './bench-context.ts';
import { summarize, type LatencySummary } from './stats.ts';

/** Per-pack database figures. */
export interface DbRow {
  readonly pack: string;
  readonly templateCopy: LatencySummary;
  readonly migrateAndSeed: LatencySummary;
  readonly dump: LatencySummary;
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
        const db = dbs.acquire(`copy_${i}`);
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
      rows.push({ pack: id, templateCopy: summarize(copy), migrateAndSeed: summarize(migrate), dump: summarize(dumps) });
    } finally {
      tmp.remove();
    }
  }
  return rows;
}
