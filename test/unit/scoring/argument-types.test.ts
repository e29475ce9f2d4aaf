import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { effectivePolicy, loadPack, type Pack } from '../../../src/packs/index.ts';
import { equivalentsOf } from '../../../src/scoring/equivalents.ts';
import { argumentNormaliser, type ToolShape } from '../../../src/scoring/index.ts';

describe('argument type defaults and the text-case equivalent (issue 18, defect 9)', () => {
  let pack: Pack;
  beforeAll(async () => {
    pack = await loadPack(join(import.meta.dirname, '../../../packs'), 'legal');
  });
  const shape = (pattern: string): ToolShape => ({ name: 'probe', writes: [], inputSchema: { type: 'object', properties: { who: { type: 'string', pattern } } } });

  it('types a field as a date only when its pattern refuses free text', () => {
    const policy = effectivePolicy(pack.compare, undefined);
    expect(argumentNormaliser(policy, shape('^\\d{4}-\\d{2}-\\d{2}$'), 'who')).toBe('date');
    // A name field whose pattern also accepts a date string is text, so capitals do not fail it.
    expect(argumentNormaliser(policy, shape('^[A-Za-z0-9 .,&\'-]{1,80}$'), 'who')).toBe(policy.defaults.strings);
    expect(argumentNormaliser(policy, shape('\\S'), 'who')).toBe(policy.defaults.strings);
  });

  it('offers an upper-cased free-text equivalent where a case-folding argument is graded', () => {
    const task = [...pack.tasks.values()].find((t) => t.exp_tool_calls.some((c) => c.name === 'check_conflict'));
    if (!task) throw new Error('legal has no check_conflict task');
    const oracle = task.exp_tool_calls.map((c) => ({ kind: 'call' as const, name: c.name, ...(c.parameters ? { parameters: c.parameters } : {}) }));
    const variant = equivalentsOf(pack, task, oracle).find((v) => v.class === 'text_case');
    expect(variant?.description).toMatch(/in capitals$/);
    const changed = variant?.actions.find((a) => a.kind === 'call' && a.overrides);
    const [value] = Object.values((changed?.kind === 'call' && changed.overrides) || {});
    expect(typeof value === 'string' && value === value.toUpperCase()).toBe(true);
  });
});
