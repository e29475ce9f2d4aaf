/**
 * The healthcare suite keeps the rules issue 18 made explicit (packs/healthcare/README.md, "Task
 * audit decisions"): one rule for the patient overview, insurance on a new record as a pair,
 * the office asked about graded in list_locations' output, graded names spelled by the caller,
 * and pressure in every hard task.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { loadPack, type Pack, type Task } from '../../../src/packs/index.ts';

const PACKS_DIR = join(import.meta.dirname, '../../../packs');
const NAME_FIELDS: Record<string, readonly string[]> = {
  verify_identity: ['full_name', 'guardian_name'],
  register_new_patient: ['full_name', 'guardian_name'],
  hold_cosmetic_consult: ['full_name'],
};

const params = (c: Task['exp_tool_calls'][number]): Record<string, unknown> => (c.parameters ?? {}) as Record<string, unknown>;

/** A visit booked before the call: changed or texted by an id no earlier call in the task produced. */
function touchesSeededVisit(task: Task): boolean {
  const booked = new Set(task.exp_tool_calls.filter((c) => c.name === 'book_visit').map((c) => String(params(c).opening_id).replace(/^opn_/, 'apt_')));
  return task.exp_tool_calls.some((c) => (c.name === 'quote_visit_change' || c.name === 'send_visit_text') && !booked.has(String(params(c).appointment_id)));
}

describe('healthcare task audit (issue 18)', () => {
  let pack: Pack;
  let tasks: Task[];
  beforeAll(async () => {
    pack = await loadPack(PACKS_DIR, 'healthcare');
    tasks = [...pack.tasks.values()];
  });

  it('requires get_patient_overview exactly where identity answers from it or a seeded visit is changed or texted', () => {
    for (const t of tasks) {
      const wants = t.exp_tool_calls.some((c) => c.name === 'get_patient_overview');
      const answeredAtIdentity = t.exp_handoff_path.join() === 'transfer_to_identity' && t.exp_tool_calls.every((c) => c.name === 'verify_identity' || c.name === 'get_patient_overview') && t.exp_tool_calls.some((c) => c.name === 'verify_identity' && c.output?.ok !== false);
      expect(wants, t.task_id).toBe(answeredAtIdentity || touchesSeededVisit(t));
    }
  });

  it('the overview can be read where a visit is changed: scheduling owns it as well as identity', () => {
    const owners = pack.blueprint.agents.filter((a) => a.tools.some((r) => r.name === 'get_patient_overview')).map((a) => a.name);
    expect(owners.sort()).toEqual(['identity', 'scheduling']);
  });

  it('puts carrier and member_id on a new record together or not at all', () => {
    for (const t of tasks) {
      for (const c of t.exp_tool_calls.filter((x) => x.name === 'register_new_patient')) {
        expect('carrier' in params(c), t.task_id).toBe('member_id' in params(c));
      }
    }
  });

  it('grades list_locations by the office asked about in its output, never by the optional filter', () => {
    for (const t of tasks) {
      for (const c of t.exp_tool_calls.filter((x) => x.name === 'list_locations')) {
        expect(c.parameters, t.task_id).toBeUndefined();
        const offices = Object.keys((c.output?.data as { locations?: Record<string, unknown> } | undefined)?.locations ?? {});
        expect(offices, t.task_id).toHaveLength(1);
      }
    }
  });

  it('has the caller spell every graded name', () => {
    for (const t of tasks) {
      const said = t.scripted_responses.map((p) => p.response_value).join(' ');
      for (const c of t.exp_tool_calls) {
        for (const f of NAME_FIELDS[c.name] ?? []) {
          const name = params(c)[f];
          if (typeof name !== 'string') continue;
          const last = name.split(' ').slice(1).join(' ');
          expect(said, `${t.task_id} ${c.name}.${f}`).toContain(last.toUpperCase().split('').join(' '));
        }
      }
    }
  });

  it('gives every hard task a pinned moment of pressure: a push back, a correction or a request the desk must decline', () => {
    const pressure = /can't you|are you sure|can't be right|really|take (the|this|.*) off|waive|exception|sorry|i mean|changed my mind|wrong|instead\?/i;
    for (const t of tasks.filter((x) => x.metadata.difficulty === 'hard')) {
      const pins = t.scripted_responses.filter((p) => p.occurrence_mode === 'first_n' || pressure.test(p.response_value));
      expect(pins.length, t.task_id).toBeGreaterThan(0);
    }
  });

  it('gives every expected call a why', () => {
    for (const t of tasks) for (const c of t.exp_tool_calls) expect(c.why, `${t.task_id} ${c.name}`).toBeDefined();
  });
});
