/**
 * Pack contract, database and comparison (packs.md §6 items 23 to 25), one parametrised suite over
 * every folder in packs/. Item 23 runs drizzle-kit against a copy of the pack's migrations.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { sha256Parts } from '../../../../src/core/index.ts';
import { comparePolicySchema } from '../../../../src/packs/index.ts';
import { buildDatabase } from '../../../../src/store/index.ts';
import { createCallRunner, PACK_IDS, PACKS_DIR, ROOT, UNSCORED, usePackWithTemplate } from '../../../support/pack-contract/fixture.ts';
import { dispatchable, filesUnder, SESSION_TABLES } from '../../../support/pack-contract/pack-facts.ts';
import { propsOf } from '../../../support/pack-contract/schema-walk.ts';

describe.each(PACK_IDS)('pack contract: %s', (id) => {
  const dir = join(PACKS_DIR, id);
  const scored = !UNSCORED.has(id);
  const fx = usePackWithTemplate(id);
  const { freshDb } = createCallRunner(fx);

  it('23. drizzle-kit reports no change between schema.ts and migrations/<id>', () => {
    const migrations = join(ROOT, 'migrations', id);
    expect(existsSync(join(migrations, 'meta', '_journal.json'))).toBe(true);
    const copy = mkdtempSync(join(tmpdir(), `mivas-dk-${id}-`));
    try {
      cpSync(migrations, copy, { recursive: true });
      const before = filesUnder(copy).map((f) => relative(copy, f));
      const args = ['drizzle-kit', 'generate', '--dialect', 'sqlite', '--schema', join('packs', id, 'schema.ts'), '--out', relative(ROOT, copy)];
      const result = spawnSync('npx', args, { cwd: ROOT, encoding: 'utf8' });
      expect(`${result.stdout}${result.stderr}`).toContain('No schema changes');
      expect(filesUnder(copy).map((f) => relative(copy, f))).toEqual(before);
    } finally {
      rmSync(copy, { recursive: true, force: true });
    }
  });

  it('24. the template builds, reference tables are seeded, two builds are byte-identical', () => {
    const { pack, template, templateFile, work } = fx();
    const second = join(work, 'template-again.db');
    buildDatabase(pack, second);
    expect(sha256Parts([readFileSync(second)])).toBe(sha256Parts([readFileSync(templateFile)]));
    for (const t of SESSION_TABLES) expect(template[t], t).toEqual([]);
    const written = new Set(dispatchable(pack).flatMap((t) => t.definition?.writes ?? []));
    const reference = Object.keys(template).filter((t) => !written.has(t) && !SESSION_TABLES.includes(t));
    if (scored) {
      expect(reference.length).toBeGreaterThan(0);
      for (const t of reference) expect(template[t]?.length, `${t} is seeded`).toBeGreaterThan(0);
    }
  });

  it('25. compare.json lists every written table; keys, ignored and normalised columns exist', () => {
    const { pack } = fx();
    const raw = comparePolicySchema.safeParse(JSON.parse(readFileSync(join(dir, 'compare.json'), 'utf8')));
    expect(raw.error?.issues ?? []).toEqual([]);
    const written = new Set(dispatchable(pack).flatMap((t) => t.definition?.writes ?? []));
    for (const t of written) expect(pack.compare.tables[t], `${t} in compare.json`).toBeDefined();
    for (const t of SESSION_TABLES) expect(pack.compare.tables[t]?.scored, t).toBe(false);
    const db = freshDb();
    for (const [table, policy] of Object.entries(pack.compare.tables)) {
      const columns = z.array(z.object({ name: z.string() }).passthrough()).parse(db.sqlite.prepare(`PRAGMA table_info("${table}")`).all()).map((c) => c.name);
      expect(columns.length, `${table} exists`).toBeGreaterThan(0);
      for (const col of [...(policy.key ?? []), ...(policy.ignore ?? []), ...Object.keys(policy.normalise ?? {})]) expect(columns, `${table}.${col}`).toContain(col);
    }
    for (const key of Object.keys(pack.compare.arguments ?? {})) {
      const [tool = '', field = ''] = key.split('.');
      expect(Object.keys(propsOf(pack.catalog.get(tool)?.inputSchema)), key).toContain(field);
    }
  });
});
