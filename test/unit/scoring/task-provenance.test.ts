import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadPack, type Pack, type Task } from '../../../src/packs/index.ts';
import { argumentProvenance, necessityProblems, provenanceProblems } from '../../../src/scoring/index.ts';

describe('provenance and necessity checks (issue 18)', () => {
  let pack: Pack;
  let task: Task;
  beforeAll(async () => {
    pack = await loadPack(join(import.meta.dirname, '../../../packs'), 'control-industry');
    task = pack.tasks.get('S-E1') as Task;
  });

  const withCall = (call: Partial<Task['exp_tool_calls'][number]>, rest: Partial<Task> = {}): Task => ({ ...task, ...rest, exp_tool_calls: [{ ...task.exp_tool_calls[0], ...call } as Task['exp_tool_calls'][number]] });

  it('passes the locked task: the date is said by the caller ("October seventh")', () => {
    expect(provenanceProblems(pack, task, [])).toEqual([]);
    expect(necessityProblems(pack, task)).toEqual([]);
  });

  it('fails a graded value nothing the agent sees could give', () => {
    const bad = withCall({ parameters: { date: '2026-10-21' } }, { traits: task.traits.filter((t) => t.trait_name !== 'preferred_date') });
    expect(provenanceProblems(pack, bad, [])).toEqual([expect.stringMatching(/book_appointment\.date="2026-10-21" is not said by the caller/)]);
  });

  it('finds a value returned earlier on the route, and a weekday the date line resolves', () => {
    const twoCalls: Task = { ...task, intent: 'Ask for the next open day after Sunday.', traits: [], exp_tool_calls: [{ name: 'check_date', parameters: { date: '2026-10-11' } }, { name: 'book_appointment', parameters: { date: '2026-10-12' } }] };
    const sources = argumentProvenance(pack, { ...twoCalls, intent: 'Open with exactly: "Is Sunday open?" Then take the next open day.' }, [{ ok: true, data: { next_open_date: '2026-10-12' } }]);
    expect(sources.map((s) => [s.field, s.value, s.source])).toEqual([
      ['date', '2026-10-11', 'clock'],
      ['date', '2026-10-12', 'route'],
    ]);
  });

  it('resolves "tomorrow" from the date line whatever the clock\'s time of day', () => {
    const tomorrow = withCall({ parameters: { date: '2026-10-06' } }, { intent: 'Open with exactly: "Can you come tomorrow?"', traits: [] });
    expect(argumentProvenance(pack, tomorrow, []).map((p) => p.source)).toEqual(['clock']);
  });

  it('fails a call without a why, and a prompt rule its agent never states', () => {
    expect(necessityProblems(pack, withCall({ why: undefined }))).toEqual([expect.stringMatching(/book_appointment: no why/)]);
    expect(necessityProblems(pack, withCall({ why: { because: 'prompt_rule', quote: 'Always book two visits to be safe.' } }))).toEqual([expect.stringMatching(/quoted rule is not in the prompt of scheduler/)]);
    expect(necessityProblems(pack, withCall({ why: { because: 'prompt_rule', quote: 'Read the date back before you book it.' } }))).toEqual([]);
  });
});
