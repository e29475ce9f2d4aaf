import { resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadPack, type Pack, type Task } from '../../../src/packs/index.ts';
import { missingRouteLines, overlappingPins, unnamedWriters, unrefusableOffers, unspeakableScripts } from '../../../src/scoring/task-luck-checks.ts';

let legal: Pack;
let c4m2: Task;
beforeAll(async () => {
  legal = await loadPack(resolve('packs'), 'legal', resolve('migrations'));
  const found = legal.tasks.get('C4-M2');
  if (!found) throw new Error('legal C4-M2 missing');
  c4m2 = found;
});

type Pin = Task['scripted_responses'][number];
const pin = (match_phrase: string, response_value: string): Pin => ({ match_type: 'context', match_phrase, response_type: 'phrase', response_value }) as Pin;
const withPins = (task: Task, pins: readonly Pin[]): Task => ({ ...task, scripted_responses: [...pins] });
const without = (task: Task, dropped: RegExp): Task => withPins(task, task.scripted_responses.filter((p) => !dropped.test(p.match_phrase)));

describe('offers: an act the prompt invites, graded as wrong, must be declinable or allowed', () => {
  it('passes C4-M2 as fixed: a pin declines the note intake offers', () => {
    expect(unrefusableOffers(legal, c4m2)).toEqual([]);
  });

  it("refuses C4-M2's original shape: intake invites add_case_note, case_notes is graded empty, and no pin answers a note", () => {
    const original = without(c4m2, /add a note/);
    expect(unrefusableOffers(legal, original)).toEqual([expect.stringContaining('intake is invited to offer add_case_note, whose write the task grades as wrong (case_notes), and no pin answers it')]);
  });

  it('counts a pin that answers the offer beginning with a consent word as no way to decline', () => {
    const consenting = withPins(without(c4m2, /add a note/), [...without(c4m2, /add a note/).scripted_responses, pin('The agent offers to add a note about the officer, NOT when it asks for details.', 'Okay. Then could you get my records?')]);
    expect(unrefusableOffers(legal, consenting)).toEqual([expect.stringMatching(/pin \d+ answers it beginning with a consent word/)]);
  });

  it('accepts the note when the task grades it as allowed instead', () => {
    const tolerant: Task = { ...without(c4m2, /add a note/), compare: { tables: { case_notes: { scored: true, mode: 'subset', extra_when_empty: true } } } };
    expect(unrefusableOffers(legal, tolerant)).toEqual([]);
  });
});

describe('pins: two pins must not fire on one agent turn with different answers', () => {
  const forms = 'The agent asks whether you want the forms by email or by text, NOT when it asks for your phone number.';
  const noEmail = 'The agent says it has no email for you, asks for an email address, or offers to text the forms instead, NOT when it asks for a phone number.';

  it('refuses the forms question and the no-email line that both fire on "email or text?"', () => {
    const task = withPins(c4m2, [pin(forms, 'By email, if you can.'), pin(noEmail, 'Please text them to my phone.')]);
    expect(overlappingPins(task)).toEqual(['pins 1 and 2 both fire when the agent\'s turn is about forms, text, email, answer differently, and no NOT clause tells them apart']);
  });

  it('accepts them once a NOT clause names what only the other reacts to, and never flags two plain yeses', () => {
    const apart = withPins(c4m2, [pin(forms.replace('.', ', and NOT when it says it has no email for you or offers to text the forms instead.'), 'By email, if you can.'), pin(noEmail, 'Please text them to my phone.')]);
    expect(overlappingPins(apart)).toEqual([]);
    const yeses = withPins(c4m2, [pin('The agent reads back details and asks whether they are right.', "Yes, that's right."), pin('The agent reads back a consultation time and asks you to confirm.', 'Yes, please book it.')]);
    expect(overlappingPins(yeses)).toEqual([]);
  });
});

describe('route-lines: the route\'s confirmations and offers have a caller line', () => {
  it('passes C4-M2 and refuses it without its read-back pin', () => {
    expect(missingRouteLines(legal, c4m2)).toEqual([]);
    expect(missingRouteLines(legal, without(c4m2, /reads back|reading them back/))).toEqual([expect.stringContaining('before create_intake')]);
  });

  it('refuses a held consultation no pin accepts, and a quote that is never confirmed with no pin to decline it', () => {
    const r = legal.tasks.get('R-H2');
    if (!r) throw new Error('legal R-H2 missing');
    expect(missingRouteLines(legal, r)).toEqual([]);
    const noYes = withPins(r, r.scripted_responses.filter((p) => !/^(yes|okay|sure)/i.test(p.response_value)));
    expect(missingRouteLines(legal, noYes)).toEqual([expect.stringContaining('no pin says yes')]);
    const heldOnly: Task = { ...r, exp_tool_calls: r.exp_tool_calls.filter((c) => c.name !== 'confirm_consult'), scripted_responses: r.scripted_responses.filter((p) => !/^(no|not)\b/i.test(p.response_value)) };
    expect(missingRouteLines(legal, heldOnly)).toEqual([expect.stringContaining('hold_consult runs but is never confirmed')]);
  });
});

describe('state-writers: every table the task expects written has a writer its desk\'s prompt names', () => {
  it('passes C4-M2, and refuses it when the intake prompt no longer names send_intake_forms', () => {
    const seed = { form_sends: [], records_requests: [], intakes: [], case_notes: [] };
    expect(unnamedWriters(legal, c4m2, seed)).toEqual([]);
    const silent: Pack = { ...legal, prompts: new Map([...legal.prompts].map(([agent, text]) => [agent, text.replaceAll('send_intake_forms', 'the forms tool')])) };
    expect(unnamedWriters(silent, c4m2, seed)).toEqual(['form_sends is graded as written by send_intake_forms, which no desk on the route names in its prompt']);
  });
});

describe('scripts: what the agent reads word for word is written as it is spoken', () => {
  it('refuses a script, next-step line or refusal message with digits or symbols, and passes one in words', () => {
    const outputs = [{ ok: true, data: { script: 'The consultation fee is $150.00.', next_step: 'We will call on October 2.' } }, { ok: false, error_code: 'X', safe_message: 'We book up to fourteen days ahead.' }];
    expect(unspeakableScripts(c4m2, outputs)).toEqual([
      '#1 check_conflict returns script "The consultation fee is $150.00.": write it as it is spoken',
      '#1 check_conflict returns next_step "We will call on October 2.": write it as it is spoken',
    ]);
    expect(unspeakableScripts(c4m2, [{ ok: true, data: { script: 'The consultation fee is one hundred fifty dollars.', amount_display: '$150.00' } }])).toEqual([]);
  });
});
