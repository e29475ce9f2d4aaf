/**
 * The setup every pack's tool tests share: the pack loaded, a store of call databases on a built
 * template, and short helpers that run a tool as its owning desk and read the envelope.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect } from 'vitest';
import { loadPack, type Pack } from '../../src/packs/index.ts';
import { CallDatabases, dumpDatabase, ensureTemplate, type CallDatabase } from '../../src/store/index.ts';
import { executeTool, type ToolExecution } from '../../src/tools/index.ts';

const PACKS_DIR = join(import.meta.dirname, '../../packs');

/** What a pack's tool tests use; valid inside the describe that called `usePackTools`. */
export interface PackTools {
  /** The loaded pack (after beforeAll). */
  pack(): Pack;
  /** A new call database on the seed. */
  fresh(): CallDatabase;
  /** The most recent call's database, acquired again by its call id (as a second executor would). */
  latestAgain(): CallDatabase;
  /** Runs a tool as the first desk that owns it. */
  call(db: CallDatabase, tool: string, args?: unknown): ToolExecution;
  /** The data of a successful call; fails the test on a refusal. */
  data(ex: ToolExecution): Record<string, unknown>;
  /** The error code of a refusal, undefined on success. */
  code(ex: ToolExecution): string | undefined;
  /** The rows of one table of a call database. */
  rows(db: CallDatabase, table: string): Record<string, unknown>[];
}

/** Registers beforeAll/afterAll for one pack and returns the helpers. */
export function usePackTools(packId: string): PackTools {
  let loaded: Pack | undefined;
  let dir = '';
  let dbs: CallDatabases | undefined;
  let n = 0;
  beforeAll(async () => {
    loaded = await loadPack(PACKS_DIR, packId);
    dir = mkdtempSync(join(tmpdir(), `mivas-${packId}-tools-`));
    dbs = new CallDatabases(join(dir, 'calls'), ensureTemplate(join(dir, 'templates'), loaded));
  });
  afterAll(() => {
    dbs?.closeAll();
    rmSync(dir, { recursive: true, force: true });
  });
  const pack = (): Pack => {
    if (!loaded) throw new Error(`pack ${packId} is not loaded yet`);
    return loaded;
  };
  const owner = (tool: string): string => pack().blueprint.agents.find((a) => a.tools.some((t) => t.name === tool))?.name ?? pack().entryAgent;
  return {
    pack,
    fresh: () => {
      if (!dbs) throw new Error('call databases are not ready yet');
      return dbs.create(`t${++n}`);
    },
    latestAgain: () => {
      if (!dbs) throw new Error('call databases are not ready yet');
      dbs.release(`t${n}`);
      return dbs.reopen(`t${n}`);
    },
    call: (db, tool, args = {}) => {
      const entry = pack().catalog.get(tool);
      if (!entry) throw new Error(`no tool ${tool}`);
      return executeTool({ pack: pack(), callId: 'test', database: db, nowMs: () => 0 }, owner(tool), entry, args);
    },
    data: (ex) => {
      expect(ex.output.ok, JSON.stringify(ex.output)).toBe(true);
      return ex.output.data as Record<string, unknown>;
    },
    code: (ex) => ex.output.error_code,
    rows: (db, table) => dumpDatabase(db.sqlite)[table] ?? [],
  };
}
