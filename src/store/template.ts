import Database from 'better-sqlite3';
import { drizzle } from 'drizzle-orm/better-sqlite3';
import { migrate } from 'drizzle-orm/better-sqlite3/migrator';
import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Pack } from '../packs/index.ts';

/** Path of the pack's template database for its current template hash. */
export function templatePath(templatesDir: string, pack: Pack): string {
  return join(templatesDir, `${pack.id}-${pack.templateHash}.db`);
}

/** Runs the pack's migrations and seed into a new SQLite file at `file`. */
export function buildDatabase(pack: Pack, file: string): void {
  const sqlite = new Database(file);
  try {
    sqlite.pragma('journal_mode = DELETE');
    const db = drizzle(sqlite);
    migrate(db, { migrationsFolder: pack.migrationsDir });
    if (pack.seed.kind === 'sql') sqlite.exec(pack.seed.sql);
    else {
      const run = pack.seed.run;
      sqlite.transaction(() => run(db))();
    }
  } finally {
    sqlite.close();
  }
}

/**
 * Builds the template once per template hash (written to a temp name, then renamed) and returns
 * its path. An existing template with the same hash is reused.
 */
export function ensureTemplate(templatesDir: string, pack: Pack): string {
  const file = templatePath(templatesDir, pack);
  if (existsSync(file)) return file;
  mkdirSync(templatesDir, { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  rmSync(tmp, { force: true });
  buildDatabase(pack, tmp);
  renameSync(tmp, file);
  return file;
}
