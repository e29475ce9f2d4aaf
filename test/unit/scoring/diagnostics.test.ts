/**
 * Diagnostics beside the verdict (scoring.md §10.1): said-aloud, barge-in stop time, transcript
 * quality and the judge's rubric reading. The healthcare pack's own task C1-E1 supplies the
 * expected `answers_caller` call (check_plan_accepted, status).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { loadPack, type Pack } from '../../../src/packs/index.ts';
import { bargeInStops, carriesValue, judgeCacheKey, judgeMessages, parseJudgeReply, saidAloud, transcriptWer, type ConversationVerdict } from '../../../src/scoring/index.ts';
import type { CallerFile, TimelineEvent } from '../../../src/snapshot/index.ts';
import { PACKS_DIR, toolEvent } from '../../support/scoring-fixtures.ts';

let pack: Pack;
beforeAll(async () => {
  pack = await loadPack(PACKS_DIR, 'healthcare');
});

const say = (seq: number, side: 'agent' | 'caller', text: string, utterance = `u_${seq}`): TimelineEvent => ({ seq, at_ms: seq * 100, type: 'transcript', side, text, utterance_id: utterance });
const planCall = (seq: number, status: string): TimelineEvent => toolEvent({ seq, name: 'check_plan_accepted', agent: 'coverage', output: { ok: true, data: { status, office: 'Park Avenue' } } });

describe('said-aloud', () => {
  it('checks the key value the task names, against the agent\'s next speech only', () => {
    const task = pack.tasks.get('C1-E1');
    const heard = saidAloud(task, pack, [say(1, 'caller', 'Do you take Aetna?'), planCall(2, 'accepted'), say(3, 'agent', 'Yes — Aetna is ACCEPTED at our Park Avenue office.')]);
    expect(heard).toEqual([{ tool: 'check_plan_accepted', key: 'status', value: 'accepted', said: true }]);
    // The answer comes after the caller spoke again: not the agent's next speech.
    const late = saidAloud(task, pack, [planCall(2, 'accepted'), say(3, 'agent', 'Let me check.'), say(4, 'caller', 'Hello?'), say(5, 'agent', 'It is accepted.')]);
    expect(late.map((c) => c.said)).toEqual([false]);
    // The actual output's value is the one looked for: the tool said not_accepted.
    const refused = saidAloud(task, pack, [planCall(2, 'not_accepted'), say(3, 'agent', 'Sorry, that plan is not accepted there.')]);
    expect(refused).toEqual([{ tool: 'check_plan_accepted', key: 'status', value: 'not_accepted', said: true }]);
    // The call never ran: nothing was said.
    expect(saidAloud(task, pack, [say(3, 'agent', 'It is accepted.')]).map((c) => c.said)).toEqual([false]);
  });

  it('matches the n-th expected call of a tool to its n-th successful call', () => {
    const task = pack.tasks.get('C3-M1');
    const benefits = (seq: number, copay: number): TimelineEvent => toolEvent({ seq, name: 'check_benefits', agent: 'coverage', output: { ok: true, data: { network_status: 'in_network', copay_cents: copay } } });
    const checks = saidAloud(task, pack, [benefits(2, 0), say(3, 'agent', 'White Plains is in network with no copay, $0.'), benefits(4, 2500), say(5, 'agent', 'Stamford is in network too.')]);
    expect(checks.map((c) => [c.key, c.value, c.said])).toEqual([
      ['network_status', 'in_network', true],
      ['copay_cents', 0, true],
      ['network_status', 'in_network', true],
      ['copay_cents', 2500, false],
    ]);
  });

  it('reads numbers with the scorer\'s normalisers: cents as dollars, whole words for text', () => {
    expect(carriesValue('Your copay is $40.', 'copay_cents', 4000)).toBe(true);
    expect(carriesValue('Your copay is 40 dollars', 'copay_cents', 4000)).toBe(true);
    expect(carriesValue('Your copay is $4.', 'copay_cents', 4000)).toBe(false);
    expect(carriesValue('You owe 1,250 in total', 'balance', 1250)).toBe(true);
    expect(carriesValue('It is in-network.', 'network_status', 'in_network')).toBe(true);
    expect(carriesValue('It is unaccepted', 'status', 'accepted')).toBe(false);
  });
});

describe('barge-in stop time', () => {
  it('measures from the caller starting to speak to the cut utterance ending', () => {
    const events: TimelineEvent[] = [
      { seq: 1, at_ms: 1000, type: 'speech.started', side: 'agent', utterance_id: 'u_a' },
      { seq: 2, at_ms: 2300, type: 'speech.started', side: 'caller', utterance_id: 'c_1' },
      { seq: 3, at_ms: 2450, type: 'speech.completed', side: 'agent', utterance_id: 'u_a', interrupted: true },
      { seq: 4, at_ms: 2450, type: 'barge_in', utterance_id: 'u_a', played_ms: 1450 },
    ];
    expect(bargeInStops(events)).toEqual([150]);
    expect(bargeInStops(events.filter((e) => e.type !== 'barge_in'))).toEqual([]);
  });
});

describe('transcript quality', () => {
  const caller = (heard: string, ears: boolean): CallerFile =>
    ({ ears: ears ? { model: 'whisper-stand-in' } : null, turns: [{ seq: 0, side: 'agent', utterance_id: 'u_1', text: heard, source: null, pin: null, interrupted: false, audio_ms: 900 }] }) as unknown as CallerFile;
  const events = [say(1, 'agent', 'Your visit is on Monday at ten.', 'u_1')];

  it('is the word error rate of the caller\'s ears against the provider transcript', () => {
    expect(transcriptWer(events, caller('your visit is on monday at ten', true))).toBe(0);
    expect(transcriptWer(events, caller('your visit is on sunday at ten', true))).toBe(0.1429);
    expect(transcriptWer(events, caller('your visit is on monday', true))).toBe(0.2857);
  });

  it('is empty without a second transcript', () => {
    expect(transcriptWer(events, caller('your visit is on monday at ten', false))).toBeNull();
    expect(transcriptWer(events, null)).toBeNull();
  });
});

describe('judge rubric', () => {
  const verdict = { evidence: { trace: 'coverage:check_plan_accepted ok', transcript: 'caller: Do you take Aetna?\nagent: Let me check.' }, diagnostics: { said_aloud: [{ tool: 'check_plan_accepted', key: 'status', value: 'accepted', said: false }] } } as unknown as ConversationVerdict;

  it('asks with the transcript and the answers, and keys the cache on prompt version, model and messages', () => {
    const messages = judgeMessages(verdict);
    expect(messages[1]?.content).toContain('check_plan_accepted: status = accepted');
    expect(messages[1]?.content).toContain('agent: Let me check.');
    expect(judgeCacheKey('m1', messages)).toBe(judgeCacheKey('m1', judgeMessages(verdict)));
    expect(judgeCacheKey('m2', messages)).not.toBe(judgeCacheKey('m1', messages));
  });

  it('takes exactly the rubric\'s keys with integers 1 to 5, and nothing else', () => {
    expect(parseJudgeReply('{"answer_spoken":1,"policy_spoken":4,"conduct":5}', 'm')?.scores).toEqual({ answer_spoken: 1, policy_spoken: 4, conduct: 5 });
    expect(parseJudgeReply('```json\n{"answer_spoken":2,"policy_spoken":2,"conduct":3}\n```', 'm')?.scores.conduct).toBe(3);
    expect(parseJudgeReply('{"answer_spoken":0,"policy_spoken":4,"conduct":5}', 'm')).toBeNull();
    expect(parseJudgeReply('{"answer_spoken":3,"policy_spoken":4}', 'm')).toBeNull();
    expect(parseJudgeReply('{"answer_spoken":3,"policy_spoken":4,"conduct":5,"extra":1}', 'm')).toBeNull();
    expect(parseJudgeReply('four out of five', 'm')).toBeNull();
  });
});
