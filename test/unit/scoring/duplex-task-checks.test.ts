import { resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runCli, validatePack } from '../../../src/cli/index.ts';
import { loadPack, taskSchema, type Pack, type Task } from '../../../src/packs/index.ts';
import { SCORED_PACKS } from '../../support/scored-packs.ts';

const ID = 'C1-M1-COR';
let healthcare: Pack;
let task: Task;

beforeAll(async () => {
  healthcare = await loadPack(resolve('packs'), 'healthcare', resolve('migrations'));
  const found = healthcare.tasks.get(ID);
  if (!found) throw new Error(`healthcare ${ID} missing`);
  task = found;
});

/** `mivas tasks validate` on a pack holding only the given tasks: the problems of each. */
function validate(...tasks: Task[]): (readonly string[])[] {
  return validatePack({ ...healthcare, tasks: new Map(tasks.map((t) => [t.task_id, t])) }).map((r) => r.problems);
}

/** The task with Daniel Hughes's birth date replaced in its expected state (the registered patient row). */
function withStateBirthDate(date: string): Task {
  const patients = (task.exp_db_state.patients ?? []).map((row) => (row.full_name === 'Daniel Hughes' ? { ...row, date_of_birth: date } : row));
  return { ...task, exp_db_state: { ...task.exp_db_state, patients } };
}

describe('mivas tasks validate on duplex tasks (issue 33)', () => {
  it('accepts the correction variant as locked: the corrected birth date is graded, the stale one is nowhere', () => {
    const correction = task.scripted_responses.find((r) => r.duplex?.act === 'correction')?.duplex;
    expect(correction).toMatchObject({ stale_value: '1995-07-09', corrected_value: '1995-07-19' });
    expect(validate(task)).toEqual([[]]);
  });

  it('refuses the task when its expected state carries the stale value', () => {
    const [problems] = validate(withStateBirthDate('1995-07-09'));
    expect(problems).toContainEqual(expect.stringMatching(/^duplex: pin 3 \(correction "1995-07-09" → "1995-07-19"\): the stale value is in exp_db_state/));
  });

  it('refuses the task when an expected call carries the stale value, and when nothing graded carries the corrected one', () => {
    const calls = task.exp_tool_calls.map((c) => (c.name === 'register_new_patient' ? { ...c, parameters: { ...c.parameters, date_of_birth: '1995-07-09' } } : c));
    const [problems] = validate({ ...withStateBirthDate('1995-07-09'), exp_tool_calls: calls });
    expect(problems).toContainEqual(expect.stringContaining('the stale value is in exp_tool_calls'));
    expect(problems).toContainEqual(expect.stringContaining('the corrected value is in no expected call parameter and no row the task writes'));
  });

  it('the task schema refuses a correction without its values and a duplex pin without a NOT clause', () => {
    const pin = task.scripted_responses.find((r) => r.duplex) ?? task.scripted_responses[0];
    const withPin = (changed: unknown): boolean => taskSchema.safeParse({ ...task, scripted_responses: [changed] }).success;
    expect(withPin(pin)).toBe(true);
    expect(withPin({ ...pin, duplex: { ...pin?.duplex, stale_value: undefined } })).toBe(false);
    expect(withPin({ ...pin, match_phrase: 'While the agent reads back your date of birth as July ninth.' })).toBe(false);
    expect(withPin({ ...pin, duplex: { ...pin?.duplex, act: 'back_channel' } })).toBe(false);
  });
});

describe('mivas tasks list names the duplex tasks of every scored pack (issue 33 acceptance 3)', () => {
  it.each(SCORED_PACKS)('%s: six correction variants, by id', async (pack) => {
    let out = '';
    const code = await runCli(['tasks', 'list', '--pack', pack], { stdout: { write: (s: string) => ((out += s), true) }, stderr: { write: () => true }, env: {}, cwd: process.cwd() });
    expect(code).toBe(0);
    expect(out).toMatch(/^duplex tasks \(6\): (?:[CR]\d?-[MH]\d-COR(?:, |$)){6}/m);
  });
});
