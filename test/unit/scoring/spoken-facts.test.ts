import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { callerScriptOf, type Task } from '../../../src/packs/index.ts';
import { scriptTexts } from '../../../src/scoring/caller-deviation.ts';
import { factsIn, isKnownFact, knownFactsOf, spelledToDigits } from '../../../src/scoring/spoken-facts.ts';
import { picker, spokenForm } from '../../support/spoken-forms.ts';

const PACKS = resolve('packs');

/** Every task of every pack, read from its file. */
function allTasks(): Task[] {
  return readdirSync(PACKS).flatMap((pack) => {
    const dir = join(PACKS, pack, 'tasks');
    return readdirSync(dir)
      .filter((f) => f.endsWith('.json'))
      .map((f) => JSON.parse(readFileSync(join(dir, f), 'utf8')) as Task)
      .map((t) => ({ ...t, task_id: `${pack}/${t.task_id}` }));
  });
}

/** A task's facts that take a spoken form, with the facts its caller knows before the call. */
const cases = allTasks().flatMap((task) => {
  const known = knownFactsOf(scriptTexts(callerScriptOf(task)));
  return task.traits.map((t) => String(t.value)).filter((v) => spokenForm(v, (o) => o[0] as never) !== null).map((value) => ({ task: task.task_id, value, known }));
});

function invented(line: string, known: ReadonlySet<string>): string[] {
  return [...factsIn(line)].filter((f) => !isKnownFact(f, known));
}

describe('the fact reader reads every spoken form of the suites\' facts as known', () => {
  it('covers the suites: dates, phones, ids, ZIP codes, card digits, money', () => {
    expect(cases.length).toBeGreaterThan(400);
    expect(new Set(cases.map((c) => c.task)).size).toBeGreaterThan(150);
  });

  it('finds no invented fact in any spoken form of a task\'s own facts, alone or two in a line', () => {
    fc.assert(
      fc.property(fc.constantFrom(...cases), fc.constantFrom(...cases), picker, fc.constantFrom(', then ', ', ', '. '), (a, b, pick, join) => {
        const first = spokenForm(a.value, pick) ?? '';
        expect(invented(`It's ${first}.`, a.known), `${a.task}: "${first}"`).toEqual([]);
        const sameTask = cases.filter((c) => c.task === a.task);
        const other = sameTask[cases.indexOf(b) % sameTask.length] ?? a;
        const line = `${first}${join}${spokenForm(other.value, pick) ?? ''}`;
        expect(invented(line, a.known), `${a.task}: "${line}"`).toEqual([]);
      }),
      { numRuns: 3000, seed: 1729 },
    );
  });

  it('still finds a fact the task never gave, however it is said', () => {
    const known = knownFactsOf(['1979-11-19', '+14125550187']);
    fc.assert(
      fc.property(picker, (pick) => {
        expect(invented(`It's ${spokenForm('1983-03-04', pick) ?? ''}.`, known).length).toBeGreaterThan(0);
        expect(invented(`It's ${spokenForm('+16175550123', pick) ?? ''}.`, known).length).toBeGreaterThan(0);
      }),
      { numRuns: 300, seed: 7 },
    );
  });
});

describe('spoken numbers', () => {
  it('reads years in pairs, zero as "oh", doubles, thousands separators and times', () => {
    expect(spelledToDigits('twenty oh five')).toBe('2005');
    expect(spelledToDigits('one hundred twenty-three forty-five')).toBe('12345');
    expect(spelledToDigits('four thousand two hundred forty-two')).toBe('4242');
    expect(spelledToDigits('double five, triple oh')).toBe('55, 000');
    expect([...factsIn('$1,250 due')]).toEqual(['num:1250']);
    expect([...factsIn('at 2:30 PM')]).toEqual(expect.arrayContaining(['num:230', 'num:1430']));
  });

  it('reads "November nineteenth nineteen seventy-nine" without a comma as a day and a year, both known', () => {
    const known = knownFactsOf(['1979-11-19']);
    expect(invented('November nineteenth nineteen seventy-nine', known)).toEqual([]);
    expect(invented('November nineteen nineteen seventy-nine', known)).toEqual([]);
    expect(invented('November nineteenth nineteen eighty', known)).toEqual(['num:1980']);
  });
});
