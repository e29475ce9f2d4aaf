import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadPack, projectState, type Pack, type Task } from '../../../src/packs/index.ts';
import { schemaColumnsOf, validateTask } from '../../../src/scoring/index.ts';
import { CallDatabases, dumpDatabase, ensureTemplate } from '../../../src/store/index.ts';

const PACKS_DIR = join(import.meta.dirname, '../../../packs');
const SERVICE_TOOLS = ['list_item_plans', 'check_coverage', 'find_bench_slots', 'book_service_appointment', 'cancel_service_appointment'];

describe('customer-support tasks', () => {
  let pack: Pack;
  let tasks: Task[];
  let dir: string;
  let dbs: CallDatabases;

  beforeAll(async () => {
    pack = await loadPack(PACKS_DIR, 'customer-support');
    tasks = [...pack.tasks.values()];
    dir = mkdtempSync(join(tmpdir(), 'mivas-support-tasks-'));
    dbs = new CallDatabases(join(dir, 'calls'), ensureTemplate(join(dir, 'templates'), pack));
  });
  afterAll(() => {
    dbs.closeAll();
    rmSync(dir, { recursive: true, force: true });
  });

  it('keeps the launch example as the brief gives it: plans, coverage, first slot, book, cancel', () => {
    const t = pack.tasks.get('C3-H1');
    expect(t?.exp_handoff_path).toEqual(['transfer_to_verification', 'transfer_to_service']);
    expect(t?.exp_tool_calls.map((c) => c.name)).toEqual([
      'find_customer',
      'verify_customer',
      'list_item_plans',
      'check_coverage',
      'find_bench_slots',
      'book_service_appointment',
      'cancel_service_appointment',
    ]);
    const seed = projectState(dumpDatabase(dbs.create('launch_seed').sqlite), pack.compare);
    expect(seed.service_appointments).toEqual([]);
    expect(t?.exp_db_state.service_appointments).toMatchObject([{ status: 'cancelled', order_item_id: 'itm_458730_1', diagnostic_fee_cents: 0 }]);
    const changed = Object.keys(seed).filter((table) => JSON.stringify(seed[table]) !== JSON.stringify(t?.exp_db_state[table]));
    expect(changed).toEqual(['service_appointments']);
  });

  it('covers every service tool in C3, and every C3 task reaches the service ladder or the Tech Bench', () => {
    const c3 = tasks.filter((t) => t.metadata.category === 'C3');
    const used = new Set(c3.flatMap((t) => t.exp_tool_calls.map((c) => c.name)));
    expect(SERVICE_TOOLS.filter((n) => !used.has(n))).toEqual([]);
    for (const t of c3.filter((x) => x.metadata.difficulty !== 'easy')) expect(t.exp_tool_calls.some((c) => SERVICE_TOOLS.includes(c.name)), t.task_id).toBe(true);
  });

  // About 17 s of CPU; on a shared two-core machine the wall time runs well past the 30 s default.
  it('validates every task: unique shortest route, oracle replay, every mutant killed, every equivalent passing', { timeout: 300_000 }, () => {
    const seedDb = dbs.create('validate_seed');
    const env = { pack, dbs, seed: dumpDatabase(seedDb.sqlite), columns: schemaColumnsOf(seedDb.sqlite) };
    for (const task of tasks) {
      const r = validateTask(env, task);
      expect(r.problems, task.task_id).toEqual([]);
      expect(r.results.filter((x) => !x.ok).map((x) => `${x.kind} ${x.class}: ${x.description}`), task.task_id).toEqual([]);
      expect(r.results.some((x) => x.kind === 'mutant'), task.task_id).toBe(true);
    }
  });

  it('meets the pack minimums once every category has landed: writes, refusals, escalations, long paths, every tool used', () => {
    const base = tasks.filter((t) => !t.variant_of);
    expect(base).toHaveLength(60);
    const seedState = projectState(dumpDatabase(dbs.create('minimums_seed').sqlite), pack.compare);
    expect(base.filter((t) => JSON.stringify(t.exp_db_state) !== JSON.stringify(seedState)).length).toBeGreaterThanOrEqual(12);
    const human = base.filter((t) => t.exp_tool_calls.some((c) => c.name === 'transfer_to_human'));
    expect(human.length).toBeGreaterThanOrEqual(6);
    expect(new Set(human.map((t) => t.metadata.category)).size).toBeGreaterThanOrEqual(4);
    expect(base.filter((t) => t.exp_handoff_path.length >= 2).length).toBeGreaterThanOrEqual(6);
    const used = new Set(tasks.flatMap((t) => t.exp_tool_calls.map((c) => c.name)));
    expect(pack.module.tools.map((t) => t.name).filter((n) => !used.has(n))).toEqual([]);
  });
});
