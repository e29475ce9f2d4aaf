import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { isDrizzleSpecifier } from '../../../src/core/index.ts';

const CORE = fileURLToPath(new URL('../../../src/core/index.ts', import.meta.url));
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/** Runs an ES module script in a fresh Node (the hooks are per process and thread) and returns its stdout. */
function node(script: string): string {
  return execFileSync(process.execPath, ['--input-type=module', '-e', script], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
}

describe('drizzle-orm loads from its CommonJS build (src/core/module-hooks.ts)', () => {
  it('names drizzle-orm and its subpaths only', () => {
    expect(isDrizzleSpecifier('drizzle-orm')).toBe(true);
    expect(isDrizzleSpecifier('drizzle-orm/better-sqlite3')).toBe(true);
    expect(isDrizzleSpecifier('drizzle-orm-extra')).toBe(false);
    expect(isDrizzleSpecifier('drizzle-kit')).toBe(false);
  });

  it('resolves every drizzle import to a .cjs file once the hook is on, and leaves other packages alone', () => {
    const before = node(`console.log(import.meta.resolve('drizzle-orm/better-sqlite3'))`).trim();
    expect(before).toMatch(/drizzle-orm\/better-sqlite3\/index\.js$/);
    const out = node(`
      const { loadDrizzleAsCommonJs } = await import(${JSON.stringify(CORE)});
      loadDrizzleAsCommonJs();
      console.log(JSON.stringify([import.meta.resolve('drizzle-orm'), import.meta.resolve('drizzle-orm/sqlite-core'), import.meta.resolve('zod')]));
    `);
    const [root, core, zod] = JSON.parse(out) as string[];
    expect(root).toMatch(/drizzle-orm\/index\.cjs$/);
    expect(core).toMatch(/drizzle-orm\/sqlite-core\/index\.cjs$/);
    expect(zod).not.toMatch(/\.cjs$/);
  });

  it('the CommonJS build gives the named exports a query needs, through the same ESM imports the packs use', () => {
    const out = node(`
      const { loadDrizzleAsCommonJs } = await import(${JSON.stringify(CORE)});
      loadDrizzleAsCommonJs();
      const Database = (await import('better-sqlite3')).default;
      const { drizzle } = await import('drizzle-orm/better-sqlite3');
      const { sqliteTable, integer, text } = await import('drizzle-orm/sqlite-core');
      const { eq } = await import('drizzle-orm');
      const t = sqliteTable('t', { id: integer('id').primaryKey(), name: text('name').notNull() });
      const sqlite = new Database(':memory:');
      sqlite.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT NOT NULL)');
      const db = drizzle(sqlite);
      db.insert(t).values([{ id: 1, name: 'a' }, { id: 2, name: 'b' }]).run();
      console.log(JSON.stringify(db.select().from(t).where(eq(t.id, 2)).all()));
    `);
    expect(JSON.parse(out)).toEqual([{ id: 2, name: 'b' }]);
  });
});
