import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadPack, type ExpectedCall, type Task } from '../../../src/packs/index.ts';

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
