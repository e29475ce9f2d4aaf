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

  it('an office question accepts an all-offices read: get_firm_info office_id is a literal all or an $any_of that includes all', () => {
    const calls = callsOf('get_firm_info');
    expect(calls.length).toBeGreaterThan(0);
    for (const [task, call] of calls) {
      const office = call.parameters?.office_id;
      const accepts = office === 'all' || (typeof office === 'object' && '$any_of' in office && office.$any_of.includes('all'));
      expect(accepts, `${task.task_id}: office_id ${JSON.stringify(office)}`).toBe(true);
      if (office !== 'all') expect(Object.keys((call.output?.data as Record<string, unknown> | undefined) ?? {}), `${task.task_id}: office-specific output under $any_of`).not.toContain('offices');
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
