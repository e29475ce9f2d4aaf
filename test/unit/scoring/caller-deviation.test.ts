import { resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadPack, type Task } from '../../../src/packs/index.ts';
import { detectCallerDeviations } from '../../../src/scoring/caller-deviation.ts';
import { factsIn, spelledToDigits } from '../../../src/scoring/spoken-facts.ts';
import { detectVoids } from '../../../src/scoring/voids.ts';
import { emptyCallerUsage, type CallerFile, type TimelineEvent } from '../../../src/snapshot/index.ts';

let task: Task;
/** Healthcare C2-E1: its caller was born on 1979-11-19. */
let bornInNovember: Task;
beforeAll(async () => {
  const pack = await loadPack(resolve('packs'), 'healthcare', resolve('migrations'));
  const found = pack.tasks.get('C1-E1');
  const other = pack.tasks.get('C2-E1');
  if (!found || !other) throw new Error('C1-E1 or C2-E1 missing');
  task = found;
  bornInNovember = other;
});

/** A timeline as Bluejay calls leave it: provider transcripts for both sides, the tools the agent ran, the end. */
function timeline(lines: readonly (readonly ['agent' | 'caller', string])[], options: { tools?: readonly string[]; end?: 'caller_hangup' | 'agent_end_call' } = {}): TimelineEvent[] {
  const events: TimelineEvent[] = [{ seq: 0, at_ms: 0, type: 'call.started', call_id: 'c', pack: 'healthcare', harness: 'x', task_id: 'C1-E1', run_id: null }];
  const at = (): number => events.length * 1000;
  for (const [side, text] of lines) events.push({ seq: events.length, at_ms: at(), type: 'transcript', side, text, utterance_id: null });
  for (const name of options.tools ?? []) {
    events.push({ seq: events.length, at_ms: at(), type: 'tool', kind: 'industry', name, agent: 'coverage', tool_call_id: null, arguments: {}, canonical_arguments: {}, output: { ok: true }, duration_ms: 1, executed: true, refusal: null, internal_fault: null });
  }
  events.push({ seq: events.length, at_ms: at(), type: 'call.ended', end_reason: options.end ?? 'caller_hangup', close_code: 1000 });
  return events;
}

function callerFile(turns: readonly (readonly ['agent' | 'caller', string, CallerFile['turns'][number]['source']])[], endReason: CallerFile['end_reason'], hungUp = true): CallerFile {
  return {
    version: 1, call_id: 'c', run_id: null, task_id: 'C1-E1', trial: 1, kind: 'llm', model: 'm', seed: 1, prompt_hash: null, instructions: null,
    end_reason: endReason, hung_up: hungUp, close_code: 1000, mouth: { engine: 'tones', voice: null }, ears: null, audio_condition: null, replay_of: null,
    turns: turns.map(([side, text, source], seq) => ({ seq, side, utterance_id: null, text, source, pin: null, interrupted: false, audio_ms: 1000 })),
    exchanges: [], usage: emptyCallerUsage(), cost_usd_est: null,
  };
}

const OPENING = "Hi, I'm a new patient. Do you take Aetna at your Park Avenue office?";

describe('facts a caller can invent', () => {
  it('reads dates and numbers however they are said', () => {
    expect(spelledToDigits('March fourth, nineteen eighty-two')).toBe('March 4, 1982');
    expect(spelledToDigits('two hundred and forty dollars')).toBe('240 dollars');
    expect(spelledToDigits('zip oh two one three four')).toBe('zip 02134');
    expect([...factsIn('Born 1982-03-04')]).toEqual(['date:03-04', 'num:1982']);
    expect([...factsIn('the 4th of March, 1982')]).toEqual(['date:03-04', 'num:1982']);
    expect([...factsIn('3/4/1982')]).toEqual(expect.arrayContaining(['date:03-04', 'num:1982']));
    expect([...factsIn('order 1-0-4-4-7')]).toEqual(['num:10447']);
    expect([...factsIn('one moment, I have two questions')]).toEqual([]);
  });
});

describe('detectCallerDeviations on a Bluejay transcript (no caller.json)', () => {
  it('flags a date of birth the task never gave', () => {
    const events = timeline([['agent', 'What is your date of birth?'], ['caller', 'It is March third, nineteen seventy-five.']], { tools: ['check_plan_accepted'], end: 'agent_end_call' });
    expect(detectCallerDeviations({ task, events, caller: null })).toEqual([{ kind: 'invented_fact', evidence: 'date:03-03,num:1975 in "It is March third, nineteen seventy-five."' }]);
  });

  it('lets the caller repeat what the agent said (a time offered, a number read back)', () => {
    const events = timeline([['agent', 'Your reference is 48213, and the office opens at 8:30.'], ['caller', 'Got it, 48213, and 8:30.']], { tools: ['check_plan_accepted'], end: 'agent_end_call' });
    expect(detectCallerDeviations({ task, events, caller: null })).toEqual([]);
  });

  it('flags a hang-up before the graded call without the closing line, but not after it or once the work is done', () => {
    const early = timeline([['caller', OPENING], ['caller', 'Never mind.']]);
    expect(detectCallerDeviations({ task, events: early, caller: null })).toEqual([{ kind: 'hung_up_early', evidence: 'caller_hangup before check_plan_accepted' }]);
    expect(detectCallerDeviations({ task, events: timeline([['caller', OPENING], ['caller', "Thanks, that's everything."]]), caller: null })).toEqual([]);
    expect(detectCallerDeviations({ task, events: timeline([['caller', OPENING], ['caller', 'Never mind.']], { tools: ['check_plan_accepted'] }), caller: null })).toEqual([]);
  });

  it('flags a line repeated past the exit rule and talk after the closing line', () => {
    const repeated = timeline([['caller', OPENING], ...Array.from({ length: 4 }, () => ['caller', 'No thank you.'] as const)], { tools: ['check_plan_accepted'], end: 'agent_end_call' });
    expect(detectCallerDeviations({ task, events: repeated, caller: null }).map((d) => d.kind)).toEqual(['repeated_past_exit']);
    const chatty = timeline([['caller', OPENING], ['caller', "Thanks, that's everything."], ['caller', 'Actually, can I also ask about parking?']], { tools: ['check_plan_accepted'], end: 'agent_end_call' });
    expect(detectCallerDeviations({ task, events: chatty, caller: null }).map((d) => d.kind)).toEqual(['repeated_past_exit']);
  });
});

describe('detectCallerDeviations with the caller record', () => {
  it('treats its caps as the environment rules, not deviations', () => {
    const events = timeline([['caller', OPENING]]);
    for (const reason of ['turn_cap', 'duration_cap', 'agent_silent'] as const) {
      expect(detectCallerDeviations({ task, events, caller: callerFile([['agent', 'Hello', null], ['caller', OPENING, 'opening']], reason) })).toEqual([]);
    }
    expect(detectCallerDeviations({ task, events, caller: callerFile([['agent', 'Hello', null], ['caller', OPENING, 'opening']], 'mind_error') })).toEqual([{ kind: 'hung_up_early', evidence: 'mind_error before check_plan_accepted' }]);
  });

  it('never counts a scripted line as invented, and lands in the void taxonomy after the other voids', () => {
    const caller = callerFile([['agent', 'Hello', null], ['caller', OPENING, 'opening'], ['agent', 'When were you born?', null], ['caller', 'In nineteen ninety.', 'free']], 'closing_line');
    const events = timeline([], { tools: ['check_plan_accepted'], end: 'agent_end_call' });
    events.splice(1, 0, { seq: 1, at_ms: 10, type: 'speech.started', side: 'agent', utterance_id: 'u_1' }, { seq: 2, at_ms: 20, type: 'speech.started', side: 'caller', utterance_id: 'c_1' });
    events.forEach((e, i) => (e.seq = i));
    const found = detectVoids({ snapshotProblems: [], summary: null, events, platformStatus: null, minCallMs: 0, task, caller });
    expect(found).toEqual({ reason: 'caller_deviation', detail: ['invented_fact:num:1990 in "In nineteen ninety."'] });
    expect(detectVoids({ snapshotProblems: [], summary: null, events, platformStatus: null, minCallMs: 0 }).reason).toBeNull();
  });

  it('scores the call where the caller says its date of birth without a comma (issue 30), and still voids a wrong year', () => {
    const said = (line: string): CallerFile =>
      callerFile([['agent', 'Hello', null], ['caller', OPENING, 'opening'], ['agent', 'What is your date of birth?', null], ['caller', line, 'free']], 'closing_line');
    const events = timeline([], { tools: ['check_plan_accepted'], end: 'agent_end_call' });
    events.splice(1, 0, { seq: 1, at_ms: 10, type: 'speech.started', side: 'agent', utterance_id: 'u_1' }, { seq: 2, at_ms: 20, type: 'speech.started', side: 'caller', utterance_id: 'c_1' });
    events.forEach((e, i) => (e.seq = i));
    const voidOf = (line: string): ReturnType<typeof detectVoids> => detectVoids({ snapshotProblems: [], summary: null, events, platformStatus: null, minCallMs: 0, task: bornInNovember, caller: said(line) });
    expect(bornInNovember.traits.map((t) => t.value)).toContain('1979-11-19');
    expect(voidOf('November nineteenth nineteen seventy-nine').reason).toBeNull();
    expect(voidOf('November nineteenth, nineteen seventy-nine').reason).toBeNull();
    expect(voidOf('November nineteenth nineteen eighty')).toEqual({ reason: 'caller_deviation', detail: ['invented_fact:num:1980 in "November nineteenth nineteen eighty"'] });
  });
});
