import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import { z } from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadPack, type CatalogTool, type Pack, type ToolDefinition, type ToolResult } from '../../../src/packs/index.ts';
import { CallDatabases, dumpDatabase, ensureTemplate, type CallDatabase } from '../../../src/store/index.ts';
import { executeTool } from '../../../src/tools/index.ts';

/**
 * The executor on its own: a real call database, and tool definitions built around the control
 * pack's booking table so each outcome (refusal, throw, broken output, uncatalogued code, gate)
 * can be forced.
 */
describe('executeTool', () => {
  let dir: string;
  let pack: Pack;
  let dbs: CallDatabases;
  let n = 0;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'mivas-executor-'));
    pack = await loadPack(join(import.meta.dirname, '../../../packs'), 'control-industry');
    dbs = new CallDatabases(join(dir, 'calls'), ensureTemplate(join(dir, 'templates'), pack));
  });
  afterAll(() => {
    dbs.closeAll();
    rmSync(dir, { recursive: true, force: true });
  });

  const fresh = (): CallDatabase => dbs.create(`exec_${++n}`);
  const insertThen = (after: () => ToolResult<unknown>, output: z.ZodType = z.object({ booked: z.boolean() })): CatalogTool => {
    const definition: ToolDefinition = {
      name: 'probe_tool',
      description: 'test tool',
      input: z.object({ date: z.string() }),
      output,
      effect: 'write',
      writes: ['appointments'],
      run: (args, ctx) => {
        ctx.db.run(sql`INSERT INTO appointments (id, date, created_at) VALUES (${`apt_${args.date}`}, ${args.date}, 'now')`);
        return after();
      },
    };
    return { name: definition.name, description: definition.description, kind: 'industry', input: definition.input, inputSchema: {}, outputSchema: {}, definition };
  };
  const rows = (db: CallDatabase): unknown[] => dumpDatabase(db.sqlite).appointments ?? [];
  const run = (db: CallDatabase, tool: CatalogTool, args: unknown) => executeTool({ pack, callId: 'exec', database: db, nowMs: () => 0 }, 'scheduler', tool, args);

  it('commits a success and a catalogued refusal (a refusal may write, e.g. a failed attempt)', () => {
    const db = fresh();
    expect(run(db, insertThen(() => ({ ok: true, data: { booked: true } })), { date: '2026-10-07' }).output).toEqual({ ok: true, data: { booked: true } });
    const refused = run(db, insertThen(() => ({ ok: false, error_code: 'INVALID_ARGUMENTS' })), { date: '2026-10-08' });
    expect([refused.output.ok, refused.output.error_code, refused.executed, refused.internalFault]).toEqual([false, 'INVALID_ARGUMENTS', true, null]);
    expect(rows(db)).toHaveLength(2);
  });

  it('rolls back a tool that throws, with a fixed sentence and the fault kept out of the envelope', () => {
    const db = fresh();
    const out = run(db, insertThen(() => { throw new Error('secret detail'); }), { date: '2026-10-07' });
    expect(out.output.error_code).toBe('INTERNAL_ERROR');
    expect(JSON.stringify(out.output)).not.toContain('secret');
    expect(out.internalFault).toMatch(/secret detail/);
    expect(rows(db)).toEqual([]);
  });

  it('rolls back a success whose data breaks the output schema', () => {
    const db = fresh();
    const out = run(db, insertThen(() => ({ ok: true, data: { booked: 'yes' } })), { date: '2026-10-07' });
    expect([out.output.error_code, out.executed]).toEqual(['INTERNAL_ERROR', true]);
    expect(out.internalFault).toMatch(/broke its schema/);
    expect(rows(db)).toEqual([]);
  });

  it('turns an uncatalogued refusal code into INTERNAL_ERROR and names it as a fault', () => {
    const out = run(fresh(), insertThen(() => ({ ok: false, error_code: 'MADE_UP' })), { date: '2026-10-07' });
    expect([out.output.error_code, out.internalFault]).toEqual(['INTERNAL_ERROR', 'probe_tool returned uncatalogued code MADE_UP']);
  });

  it('refuses arguments that are not an object or fail the parse, before the tool runs', () => {
    const db = fresh();
    const tool = insertThen(() => ({ ok: true, data: { booked: true } }));
    for (const args of ['text', null, [1], { date: 7 }]) {
      const out = run(db, tool, args);
      expect([out.refusal, out.executed, out.canonicalArguments], JSON.stringify(args)).toEqual(['INVALID_ARGUMENTS', false, null]);
    }
    expect(rows(db)).toEqual([]);
  });

  it('refuses a field the declared schema does not name, by name, instead of dropping it', () => {
    const db = fresh();
    const out = run(db, insertThen(() => ({ ok: true, data: { booked: true } })), { date: '2026-10-07', patient_id: 'pat_x' });
    expect([out.refusal, out.executed, out.output.data]).toEqual(['INVALID_ARGUMENTS', false, { invalid_fields: ['patient_id'] }]);
    expect(rows(db)).toEqual([]);
  });

  it('answers NOT_VERIFIED for a gated tool whose gate is closed, without running it', () => {
    const db = fresh();
    const base = insertThen(() => ({ ok: true, data: { booked: true } }));
    const gated: CatalogTool = { ...base, definition: { ...(base.definition as ToolDefinition), gate: 'verified' } };
    const out = run(db, gated, { date: '2026-10-07' });
    expect([out.output.error_code, out.executed]).toEqual(['NOT_VERIFIED', true]);
    expect(rows(db)).toEqual([]);
  });
});
