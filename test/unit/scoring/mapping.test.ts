import { describe, expect, it } from 'vitest';
import { bluejayTaskId, parseMapping, resolveTaskId } from '../../../src/scoring/index.ts';

describe('mapping (scoring.md §2.3)', () => {
  it('reads CSV and JSON mapping files', () => {
    expect(parseMapping('conversation_id,task_id\nloc_1,S-E1\n"loc_2",S-E2\n', 'm.csv').get('loc_2')?.task_id).toBe('S-E2');
    expect(parseMapping('{"loc_1":"S-E1"}', 'm.json').get('loc_1')?.task_id).toBe('S-E1');
    expect(parseMapping('[{"conversation_id":"loc_1","task_id":"S-E3"}]', 'm.json').get('loc_1')?.task_id).toBe('S-E3');
  });

  it('Bluejay case_key trait used, with the test_name prefix as fallback', () => {
    expect(bluejayTaskId({ case_key: 'C1-E1', test_name: 'C2-E2: other' })).toBe('C1-E1');
    expect(bluejayTaskId({ traits: [{ trait_name: 'case_key', value: 'C3-M1' }], test_name: 'x: y' })).toBe('C3-M1');
    expect(bluejayTaskId({ test_name: 'C1-E1: Aetna at Park Avenue' })).toBe('C1-E1');
    expect(bluejayTaskId({ test_name: 'no prefix here' })).toBeNull();
    const m = parseMapping(JSON.stringify({ source: 'bluejay', run_id: 'r1', results: [{ result_id: 'res_1', status: 'NO_ANSWER', test_name: 'S-E1: Book' }, { result_id: 'res_2', status: 'COMPLETED', case_key: 'S-E2' }] }), 'b.json');
    expect(m.get('res_1')).toEqual({ conversation_id: 'res_1', task_id: 'S-E1', pack: null, platform_status: 'NO_ANSWER' });
    expect(m.get('res_2')?.task_id).toBe('S-E2');
  });

  it('summary and mapping disagree → mapping_conflict; none → no_task', () => {
    const e = { conversation_id: 'c', task_id: 'S-E2', pack: null, platform_status: null };
    expect(resolveTaskId(['S-E1', 'S-E1'], e)).toEqual({ taskId: null, unmapped: 'mapping_conflict' });
    expect(resolveTaskId(['S-E2', null], e)).toEqual({ taskId: 'S-E2', unmapped: null });
    expect(resolveTaskId([null, null], undefined)).toEqual({ taskId: null, unmapped: 'no_task' });
  });

  it('rejects malformed mapping files', () => {
    expect(() => parseMapping('id,task\nx,y\n', 'bad.csv')).toThrow(/conversation_id and task_id/);
    expect(() => parseMapping('{"x": 1}', 'bad.json')).toThrow(/not a mapping/);
  });
});
