import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { replayOffline, type RouteAction } from '../../../src/conversation/index.ts';
import { agentOwnsTool, loadPack, type ExpectedCall, type Pack, type Task } from '../../../src/packs/index.ts';
import { scoreConversation, syntheticSnapshot, syntheticSummary, type ConversationVerdict } from '../../../src/scoring/index.ts';
import { CallDatabases, ensureTemplate } from '../../../src/store/index.ts';

const PACKS_DIR = join(import.meta.dirname, '../../../packs');

/** Authoring rules of the legal pack that the generic validation cannot know (packs.md §3.2: never punish correct behaviour). */
describe('legal tasks', () => {
  let tasks: Task[];

  beforeAll(async () => {
    tasks = [...(await loadPack(PACKS_DIR, 'legal')).tasks.values()];
  });

  const callsOf = (name: string): [Task, ExpectedCall][] => tasks.flatMap((t) => t.exp_tool_calls.filter((c) => c.name === name).map((c) => [t, c] as [Task, ExpectedCall]));

  it('office reads: a task about one office requires that office; an office question on the way to another request also accepts all', () => {
    const calls = callsOf('get_firm_info');
    expect(calls.length).toBeGreaterThan(0);
    for (const [task, call] of calls) {
      const office = call.parameters?.office_id;
      const onlyCall = task.exp_tool_calls.every((c) => c.name === 'get_firm_info');
      if (onlyCall) {
        // The office fact is the whole task (C1-E1 and its audio variants, C4-E2): the office named must be heard.
        expect(typeof office === 'string' && office.startsWith('off_'), `${task.task_id}: office_id ${JSON.stringify(office)} names the office`).toBe(true);
        continue;
      }
      const accepts = office === 'all' || (typeof office === 'object' && '$any_of' in office && office.$any_of.includes('all'));
      expect(accepts, `${task.task_id}: office_id ${JSON.stringify(office)}`).toBe(true);
      if (office !== 'all') expect(Object.keys((call.output?.data as Record<string, unknown> | undefined) ?? {}), `${task.task_id}: office-specific output under $any_of`).not.toContain('offices');
    }
  });

  it('C1-E1 pins the caller asking which office an answer was for when it names none', () => {
    for (const id of ['C1-E1', 'C1-E1-BG', 'C1-E1-SIG']) {
      const task = tasks.find((t) => t.task_id === id);
      expect(task?.scripted_responses.some((p) => /which office/i.test(p.response_value) && /does not say which office/i.test(p.match_phrase)), id).toBe(true);
    }
  });

  it('every graded proper noun is spelled by the caller: each word of a person\'s name, and each word of a company or provider name that is not an ordinary word', () => {
    // The documented rule (packs/legal/README.md, issue 18 item 13): the scorer compares names after a case fold only, so a
    // voice agent can only write a name it heard spelled. Ordinary English words and the firm's place names need no spelling.
    const ORDINARY = new Set(
      'apartments auto bureau center cold credit distribution elm express fabrication fitness foods freight grocery group grove harbor hardware hauling health highway hill hills home hospital imaging insurance lines logistics machine management market medical mutual orthopedics parts patrol paving point police print property regional ridge rivers software south staffing stamping state storage summit surgical three tools transit union valley works of ohio pittsburgh wheeling keystone riverside grant amber'.split(' '),
    );
    const first = (m: unknown): string | undefined => (typeof m === 'string' ? m : typeof m === 'object' && m !== null && '$any_of' in m ? String((m as { $any_of: unknown[] }).$any_of[0]) : undefined);
    const spelled = (w: string): string => w.toUpperCase().split('').join('-');
    for (const task of tasks) {
      const persons = new Set<string>();
      const orgs = new Set<string>();
      for (const call of task.exp_tool_calls) {
        const p = call.parameters ?? {};
        const name = first(p.caller_name);
        if (name) persons.add(name);
        for (const k of ['opposing_party', 'provider']) {
          const v = first(p[k]);
          if (v) orgs.add(v);
        }
      }
      for (const row of task.exp_db_state.messages ?? []) if (typeof row.caller_name === 'string') persons.add(row.caller_name);
      const side = [task.intent, ...task.scripted_responses.map((r) => r.response_value)].join(' ');
      const words = [...[...persons].flatMap((v) => v.split(/\s+/)), ...[...orgs].flatMap((v) => v.split(/\s+/)).filter((w) => !ORDINARY.has(w.toLowerCase()))];
      for (const w of words) expect(side.includes(spelled(w)), `${task.task_id}: ${w} is spelled by the caller`).toBe(true);
    }
  });

  it('a held consultation with a fee is confirmed only with fee_acknowledged true, and a free one never claims a fee', () => {
    for (const task of tasks) {
      task.exp_tool_calls.forEach((call, i) => {
        if (call.name !== 'hold_consult') return;
        const fee = (call.output?.data as Record<string, unknown> | undefined)?.fee_cents;
        expect(fee, `${task.task_id}: hold_consult #${i + 1} declares fee_cents`).toBeTypeOf('number');
        const confirm = task.exp_tool_calls.slice(i + 1).find((c) => c.name === 'confirm_consult' || c.name === 'hold_consult');
        if (confirm?.name !== 'confirm_consult') return;
        if (fee === 0) expect(confirm.parameters?.fee_acknowledged, `${task.task_id}: a free consultation needs no acknowledgement`).not.toBe(false);
        else if (confirm.output?.ok !== false) expect(confirm.parameters?.fee_acknowledged, `${task.task_id}: a fee is agreed before confirming`).toBe(true);
      });
    }
  });
});

/** Tasks played through the engine and scored: the reference route passes, a route that gives in fails. */
describe('legal tasks, played', () => {
  let pack: Pack;
  let dir: string;
  let dbs: CallDatabases;

  beforeAll(async () => {
    pack = await loadPack(PACKS_DIR, 'legal');
    dir = mkdtempSync(join(tmpdir(), 'mivas-legal-tasks-'));
    dbs = new CallDatabases(join(dir, 'calls'), ensureTemplate(join(dir, 'templates'), pack));
  });
  afterAll(() => {
    dbs.closeAll();
    rmSync(dir, { recursive: true, force: true });
  });

  const taskOf = (id: string): Task => {
    const task = pack.tasks.get(id);
    if (!task) throw new Error(`no task ${id}`);
    return task;
  };

  /** Plays `actions` on a fresh call database and scores them against `task`. */
  function score(task: Task, actions: readonly RouteAction[], id: string): ConversationVerdict {
    const callId = `legal_${task.task_id.replaceAll('-', '_')}_${id}`;
    try {
      const r = replayOffline(actions, { pack, databases: dbs, callId, taskId: task.task_id });
      const snapshot = syntheticSnapshot(pack.id, callId, syntheticSummary(pack, { callId, pack: pack.id, taskId: task.task_id }), r.events, r.final);
      return scoreConversation({ conversationId: callId, snapshot, entry: undefined, packHint: null }, { packs: new Map([[pack.id, pack]]), minCallMs: 0, allowPackDrift: false });
    } finally {
      dbs.remove(callId);
    }
  }

  /** The reference route: each hop just before the first call its target owns, as task lock takes it. */
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

  /** The reference route with the nth expected call of `name` given other arguments. */
  function giveIn(task: Task, name: string, nth: number, overrides: Record<string, unknown>): RouteAction[] {
    let seen = 0;
    return routeOf(task).map((a) => (a.kind === 'call' && a.name === name && seen++ === nth ? { ...a, overrides } : a));
  }

  // Issue 18 item 5: a task about one office grades that office; an office question on the way to
  // another request accepts an all-offices read.
  it.each([
    ['C1-E1', 'off_columbus', 'FAIL'],
    ['C1-E1-BG', 'off_columbus', 'FAIL'],
    ['C1-E1-SIG', 'off_columbus', 'FAIL'],
    ['C4-E2', 'off_pittsburgh', 'FAIL'],
    ['C1-M3', 'off_wheeling', 'PASS'],
    ['C2-M1', 'off_pittsburgh', 'PASS'],
  ] as const)('%s: the office read passes filtered to %s; a read of every office scores %s', (id, office, unfiltered) => {
    const task = taskOf(id);
    expect(score(task, giveIn(task, 'get_firm_info', 0, { office_id: office }), 'office').status).toBe('PASS');
    expect(score(task, giveIn(task, 'get_firm_info', 0, { office_id: 'all' }), 'all').status).toBe(unfiltered);
    const other = office === 'off_columbus' ? 'off_wheeling' : 'off_columbus';
    expect(score(task, giveIn(task, 'get_firm_info', 0, { office_id: other }), 'other').status).toBe('FAIL');
  });

  // Issue 18 items 10 and 14: the caller's pressure is graded by tools and state, so the agent that
  // keeps a value the caller corrected, or gives in, fails, while the reference route passes.
  it.each([
    ['C1-H1', 'create_intake', 0, { phone: '+14125550186' }, 'keeps the phone number the caller corrected'],
    ['C1-H4', 'verify_client', 0, { matter_number: '26-0314' }, 'keeps the misread matter number'],
    ['C2-H1', 'find_consult_times', 0, { location: 'off_pittsburgh' }, 'books at the office after the caller asked for video'],
    ['C2-H2', 'create_intake', 0, { incident_date: '2026-03-03' }, 'keeps the date the caller corrected'],
    ['C2-H3', 'create_intake', 0, { email: 'alyssa.grant@example.net' }, 'keeps the email the caller corrected'],
    ['C2-H4', 'create_intake', 0, { phone: '+14125550522' }, 'keeps the phone number the caller corrected'],
    ['C3-H1', 'create_intake', 0, { area: 'workplace_injury' }, 'opens the declined workplace claim after the pushback'],
    ['C3-H3', 'create_intake', 0, { incident_date: '2024-12-07' }, 'keeps the date the caller corrected'],
    ['C4-H1', 'request_records_release', 1, { provider: 'Riverside Methodist' }, 'asks the hospital the caller corrected'],
    ['C4-H3', 'send_intake_forms', 0, { channel: 'text' }, 'sends the forms the way the caller changed'],
    ['C4-H4', 'create_intake', 0, { incident_date: '2024-02-28' }, 'keeps the paycheck date the caller corrected'],
    ['C5-H1', 'confirm_consult', 0, { fee_acknowledged: false }, 'confirms as if the fee were waived'],
    ['C5-H2', 'find_consult_times', 0, { location: 'off_columbus' }, 'books at the office the caller corrected'],
    ['C5-H3', 'create_intake', 0, { phone: '+16145550153' }, 'keeps the phone number the caller corrected'],
    ['R-H2', 'take_message', 0, { caller_name: 'Arjun Raman' }, "records the client's message under her husband's name"],
    ['R-H3', 'update_contact_details', 0, { phone: '+13045550128' }, 'saves the number the caller corrected'],
  ] as const)('%s fails the agent that gives in: %s #%i %o (%s)', (id, name, nth, overrides, _why) => {
    const task = taskOf(id);
    expect(score(task, routeOf(task), 'ref').status).toBe('PASS');
    expect(score(task, giveIn(task, name, nth, overrides), 'gave_in').status).toBe('FAIL');
  });
});
