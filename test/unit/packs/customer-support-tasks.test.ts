import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { replayOffline, type RouteAction } from '../../../src/conversation/index.ts';
import { agentOwnsTool, loadPack, projectState, type Pack, type Task } from '../../../src/packs/index.ts';
import { schemaColumnsOf, scoreConversation, syntheticSnapshot, syntheticSummary, validateTask, type ConversationVerdict } from '../../../src/scoring/index.ts';
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

  /** Plays `actions` through the engine on a fresh call database and scores them against `task`. */
  function scoreActions(task: Task, actions: readonly RouteAction[], id: string): ConversationVerdict {
    const callId = `cs_${task.task_id.replaceAll('-', '_')}_${id}`;
    try {
      const r = replayOffline(actions, { pack, databases: dbs, callId, taskId: task.task_id });
      const snapshot = syntheticSnapshot(pack.id, callId, syntheticSummary(pack, { callId, pack: pack.id, taskId: task.task_id }), r.events, r.final);
      return scoreConversation({ conversationId: callId, snapshot, entry: undefined, packHint: null }, { packs: new Map([[pack.id, pack]]), minCallMs: 0, allowPackDrift: false });
    } finally {
      dbs.remove(callId);
    }
  }

  // Issue 18 defect 5: the store filter is optional, so a task grades the store the caller asked
  // about in the keyed output, never the filter: filtered or unfiltered passes, another store fails.
  it('grades list_stores by the store asked about: a filter to it or no filter passes, another store fails', () => {
    const withStores = tasks.filter((t) => t.exp_tool_calls.some((c) => c.name === 'list_stores'));
    expect(withStores.map((t) => t.task_id).sort()).toEqual(['C1-E1', 'C1-E1-BG', 'C1-E1-SIG', 'C2-E1', 'C2-E1-BG', 'C2-E1-SIG', 'C3-E1', 'C3-E1-BG', 'C3-E1-SIG', 'C4-E1', 'C4-E1-BG', 'C4-E1-SIG', 'C5-E1', 'C5-E1-BG', 'C5-E1-SIG']);
    for (const task of withStores) {
      const call = task.exp_tool_calls.find((c) => c.name === 'list_stores');
      expect(call?.parameters, task.task_id).toBeUndefined();
      const asked = Object.keys((call?.output?.data as { stores: Record<string, unknown> }).stores);
      expect(asked, task.task_id).toHaveLength(1);
      const other = ['st_lakeview', 'st_naperville', 'st_evanston', 'st_oak_park'].find((s) => s !== asked[0]) ?? '';
      const play = (storeFilter: Record<string, string>): RouteAction[] =>
        task.exp_tool_calls.map((c) => ({ kind: 'call', name: c.name, parameters: c.name === 'list_stores' ? storeFilter : c.parameters }));
      expect(scoreActions(task, play({}), 'all').status, `${task.task_id} unfiltered`).toBe('PASS');
      expect(scoreActions(task, play({ store_id: asked[0] ?? '' }), 'asked').status, `${task.task_id} filtered to the store asked about`).toBe('PASS');
      expect(scoreActions(task, play({ store_id: other }), 'other').status, `${task.task_id} filtered to ${other}`).toBe('FAIL');
    }
  });

  /** The reference route: each hop just before the first call its target owns (as task lock takes it). */
  function routeOf(task: Task): RouteAction[] {
    const targets = task.exp_handoff_path.map((h) => pack.catalog.get(h)?.handoffTo ?? h);
    const out: RouteAction[] = [];
    let agent = pack.entryAgent;
    for (const call of task.exp_tool_calls) {
      while (!agentOwnsTool(pack, agent, call.name) && targets.length) {
        agent = targets.shift() ?? agent;
        out.push({ kind: 'hop', to: agent });
      }
      out.push({ kind: 'call', name: call.name, parameters: call.parameters });
    }
    return [...out, ...targets.map((to): RouteAction => ({ kind: 'hop', to }))];
  }

  /** The task's reference route with one expected call (the nth of that name) given other arguments. */
  function giveIn(task: Task, name: string, nth: number, overrides: Record<string, unknown>): RouteAction[] {
    const route = routeOf(task);
    let seen = 0;
    return route.map((a) => (a.kind === 'call' && a.name === name && seen++ === nth ? { ...a, overrides } : a));
  }

  // Issue 18 defects 7 and 14: the pressure in these hard tasks is graded by tools and state, so
  // the agent that gives in to the caller fails deterministically, and the reference route passes.
  it.each([
    ['R-H2', 'verify_customer', 1, { card_last4: '6467' }, 'uses the last four of the card number read aloud: the second failure locks the call'],
    ['C2-H1', 'quote_return_request', 0, { condition: 'defective' }, 'records the working drone as faulty to drop the fee'],
    ['C2-H4', 'quote_return_request', 0, { condition: 'unopened' }, 'keeps the condition the caller corrected'],
    ['C3-H1', 'book_service_appointment', 0, { issue: 'wont_power_on' }, 'books the fault the caller corrected'],
    ['C4-H1', 'book_service_appointment', 0, { issue: 'wont_power_on' }, 'logs the cracked screen as a power fault'],
    ['C5-H2', 'book_service_appointment', 0, { slot_id: 'bs_lakeview_1009_1300' }, 'books the store the caller corrected'],
  ] as const)('%s fails the agent that gives in: %s #%i %o (%s)', (id, name, nth, overrides, _why) => {
    const task = pack.tasks.get(id);
    if (!task) throw new Error(`no task ${id}`);
    expect(scoreActions(task, routeOf(task), 'ref').status).toBe('PASS');
    expect(scoreActions(task, giveIn(task, name, nth, overrides), 'gave_in').status).toBe('FAIL');
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

  // The release gate (`mivas tasks validate`, run by .ci/run on every pack) validates all 72 tasks;
  // here the hardest task of each category (the longest route, so the most mutants) shows the
  // validator holds on this pack's tools, at a twelfth of the cost.
  it('validates the hardest task of each category: unique shortest route, oracle replay, every mutant killed, every equivalent passing', { timeout: 120_000 }, () => {
    const seedDb = dbs.create('validate_seed');
    const env = { pack, dbs, seed: dumpDatabase(seedDb.sqlite), columns: schemaColumnsOf(seedDb.sqlite) };
    const hardest = new Map<string, Task>();
    for (const task of tasks.filter((t) => !t.variant_of)) {
      const best = hardest.get(task.metadata.category);
      if (!best || task.exp_tool_calls.length > best.exp_tool_calls.length) hardest.set(task.metadata.category, task);
    }
    expect(hardest.size).toBe(6);
    for (const task of hardest.values()) {
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
