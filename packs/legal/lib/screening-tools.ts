import { and, eq, ne } from 'drizzle-orm';
import { z } from 'zod';
import { defineTool, moneyInWords, normalizeFields, ok, type PackDb, param, preparedQuery, refuse, setSessionFlags } from '../../../src/packs/index.ts';
import { adverseParties, clients, filingRules, matters, practiceRules } from '../schema.ts';
import { areaField, dateField, moneyDisplay, partyNameField, readArea, readDate, readParty, readState, stateField } from './fields.ts';
import { filingWindow, windowWords } from './filing-window.ts';
import { foldParty, matchClient, matchParty } from './party-match.ts';
import { AREA_NAMES, LICENSED_STATES, policy, STATE_NAMES, type Area, type FeePlan, type WindowRule } from './policy.ts';
import { spokenDateWithYear } from './records.ts';

/** Screening: the conflict check, case fit and the filing window. The conflict gate's facts live in call_session flags. */

const allParties = preparedQuery((db) => db.select().from(adverseParties).orderBy(adverseParties.id).prepare());
const allClients = preparedQuery((db) => db.select({ id: clients.id, name: clients.full_name }).from(clients).orderBy(clients.id).prepare());
const clientsWithOpenMatters = preparedQuery((db) => db.selectDistinct({ id: matters.client_id }).from(matters).where(ne(matters.stage, 'closed')).prepare());
const ruleFor = preparedQuery((db) => db.select().from(practiceRules).where(and(eq(practiceRules.area, param('area')), eq(practiceRules.state, param('state')))).prepare());
const filingRuleFor = preparedQuery((db) => db.select().from(filingRules).where(eq(filingRules.area, param('area'))).prepare());

/** Session flag set when this call's conflict check on a party came back clear. */
export function conflictClearFlag(party: string): string {
  return `conflict_clear:${foldParty(party)}`;
}

/** Session flag set when this call's case-fit check accepted an area in a state. */
export function caseFitFlag(area: string, state: string): string {
  return `case_fit:${area}:${state}`;
}

const CONFLICT_SCRIPT =
  'I am sorry, but the firm is not able to help with this matter, and I am not able to say why. This is not a judgment about your claim. Please contact another attorney soon, because deadlines may apply.';
const REVIEW_SCRIPT = 'Before we can go further, one of our attorneys has to review a possible conflict. I can connect you with a member of our staff now.';

/** One name on file: a certain conflict when matched exactly, otherwise a review when matched at all. A client is a person, matched by surname too. */
type NameOnFile = { readonly name: string; readonly current: boolean; readonly person: boolean };

/**
 * Every name the firm must not act against without a look: adverse parties (current clients'
 * names and aliases, former clients) and the firm's own clients, current while a matter is open.
 * A client with only closed matters is a former client: an exact match goes to review.
 */
function namesOnFile(db: PackDb): NameOnFile[] {
  const open = new Set(clientsWithOpenMatters(db).all().map((r) => r.id));
  return [
    ...allParties(db).all().map((r) => ({ name: r.name, current: r.status === 'current_client', person: false })),
    ...allClients(db).all().map((r) => ({ name: r.name, current: open.has(r.id), person: true })),
  ];
}

/** The cautious answer across every name on file: a certain conflict, a review, or clear. */
function conflictStatus(db: PackDb, party: string): 'clear' | 'conflict' | 'needs_review' {
  // A name with nothing left after folding ("The Company", "LLC") identifies no one: never clear.
  if (!foldParty(party)) return 'needs_review';
  let status: 'clear' | 'conflict' | 'needs_review' = 'clear';
  for (const row of namesOnFile(db)) {
    const match = row.person ? matchClient(party, row.name) : matchParty(party, row.name);
    if (match === 'exact' && row.current) return 'conflict';
    if (match !== 'none') status = 'needs_review';
  }
  return status;
}

export const checkConflict = defineTool({
  name: 'check_conflict',
  description:
    'Use when: a prospective client has named the person, company or insurer they want to bring a claim against, before any intake. Returns: clear; conflict, with a script that gives no reason; or needs_review for a possible match, which goes to staff. Only a clear result lets an intake open for that party. Do not use for: existing clients. Errors: none.',
  input: z.object({ opposing_party: partyNameField.describe('The other side exactly as the caller names it, such as "Brightwater Freight".') }),
  output: z.object({ opposing_party: z.string(), status: z.enum(['clear', 'conflict', 'needs_review']), script: z.string().nullable(), agent_note: z.string() }),
  effect: 'read',
  writes: ['call_session'],
  normalize: (raw) => normalizeFields(raw, { opposing_party: readParty }),
  run(args, ctx) {
    const status = conflictStatus(ctx.db, args.opposing_party);
    if (status === 'clear') setSessionFlags(ctx.db, { [conflictClearFlag(args.opposing_party)]: true });
    const note = {
      clear: 'No conflict on file for this party. Continue screening.',
      conflict: 'Read the script. Do not take case facts or open an intake against this party.',
      needs_review: 'Read the script and offer transfer_to_human with reason conflict_review. Do not open an intake.',
    }[status];
    return ok({ opposing_party: args.opposing_party, status, script: status === 'conflict' ? CONFLICT_SCRIPT : status === 'needs_review' ? REVIEW_SCRIPT : null, agent_note: note });
  },
});

const TENS = ['', '', 'twenty', 'thirty', 'forty', 'fifty', 'sixty', 'seventy', 'eighty', 'ninety'];
const ONES = ['', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine'];

/** 36 → "thirty six" (percentages in spoken scripts). */
function percentWords(n: number): string {
  return `${[TENS[Math.floor(n / 10)], ONES[n % 10]].filter(Boolean).join(' ')} percent`;
}

const NO_FEE_LINE = 'If there is no recovery, there is no fee, and the firm advances the case costs.';

/** Fee terms of a plan: percentages, consultation fee and the sentence that says them. */
function feeTerms(plan: FeePlan, area: Area): { before: number; after: number; consult: number; reason: string; script: string } {
  const name = AREA_NAMES[area];
  if (plan === 'injury') {
    const [b, a] = [policy.injury_fee_before_suit_percent, policy.injury_fee_after_suit_percent];
    return { before: b, after: a, consult: policy.injury_consult_fee_cents, reason: 'free_injury_consult', script: `For a ${name} case, the fee is ${percentWords(b)} of the recovery if it is resolved before a lawsuit is filed, and ${percentWords(a)} after. ${NO_FEE_LINE} The consultation is free.` };
  }
  if (plan === 'workplace_injury') {
    const p = policy.workplace_injury_fee_percent;
    return { before: p, after: p, consult: policy.workplace_injury_consult_fee_cents, reason: 'free_workplace_consult', script: `For a workplace injury case, the fee is ${percentWords(p)} of the award. ${NO_FEE_LINE} The consultation is free.` };
  }
  const p = policy.employment_fee_percent;
  const fee = policy.employment_consult_fee_cents;
  return { before: p, after: p, consult: fee, reason: 'employment_consult', script: `For an ${name} case, the fee is ${percentWords(p)} of the recovery. ${NO_FEE_LINE} The consultation costs ${moneyInWords(fee)}, which is credited to your case if the firm takes it.` };
}

const REFERRAL_AREA = 'The firm handles injury, workplace injury and employment claims only. Your state bar association runs a lawyer referral service that can suggest an attorney for this.';
const REFERRAL_STATE = 'The firm\'s attorneys practice only in Pennsylvania, Ohio and West Virginia. Your state bar association runs a lawyer referral service that can suggest an attorney where the case is.';

export const checkCaseFit = defineTool({
  name: 'check_case_fit',
  description:
    'Use when: a prospective client has said what kind of matter it is and which state it happened in. Returns: accepted, with the fee terms and consultation fee to read; or declined, with the reason and a referral script. Only an accepted result lets an intake open. Do not use for: filing deadlines. Errors: none.',
  input: z.object({ area: areaField, state: stateField }),
  output: z.object({
    area: z.string(),
    area_name: z.string(),
    state: z.string(),
    status: z.enum(['accepted', 'declined']),
    decline_reason: z.enum(['area_not_handled', 'state_not_licensed', 'area_not_in_state']).nullable(),
    fee_plan: z.string().nullable(),
    fee_percent_before_suit: z.number().int().nullable(),
    fee_percent_after_suit: z.number().int().nullable(),
    consult_fee_cents: z.number().int().nullable(),
    consult_fee_display: z.string().nullable(),
    consult_fee_reason: z.string().nullable(),
    script: z.string(),
  }),
  effect: 'read',
  writes: ['call_session'],
  normalize: (raw) => normalizeFields(raw, { area: readArea, state: readState }),
  run(args, ctx) {
    const base = { area: args.area, area_name: AREA_NAMES[args.area], state: args.state };
    const declined = (reason: 'area_not_handled' | 'state_not_licensed' | 'area_not_in_state', script: string) =>
      ok({ ...base, status: 'declined' as const, decline_reason: reason, fee_plan: null, fee_percent_before_suit: null, fee_percent_after_suit: null, consult_fee_cents: null, consult_fee_display: null, consult_fee_reason: null, script });
    const anyRule = ruleFor(ctx.db).get({ area: args.area, state: 'PA' }) ?? ruleFor(ctx.db).get({ area: args.area, state: 'OH' });
    if (!anyRule) return declined('area_not_handled', REFERRAL_AREA);
    if (!(LICENSED_STATES as readonly string[]).includes(args.state)) return declined('state_not_licensed', REFERRAL_STATE);
    const rule = ruleFor(ctx.db).get({ area: args.area, state: args.state });
    if (!rule || rule.accepted !== 1) {
      return declined('area_not_in_state', `The firm does not take ${AREA_NAMES[args.area]} cases in ${STATE_NAMES[args.state] ?? 'that state'}. Your state bar association runs a lawyer referral service that can suggest an attorney for this.`);
    }
    const terms = feeTerms(rule.fee_plan as FeePlan, args.area);
    setSessionFlags(ctx.db, { [caseFitFlag(args.area, args.state)]: true });
    return ok({
      ...base,
      status: 'accepted' as const,
      decline_reason: null,
      fee_plan: rule.fee_plan,
      fee_percent_before_suit: terms.before,
      fee_percent_after_suit: terms.after,
      consult_fee_cents: terms.consult,
      consult_fee_display: moneyDisplay(terms.consult),
      consult_fee_reason: terms.reason,
      script: terms.script,
    });
  },
});

const WINDOW_SCRIPTS = {
  open: 'This is a screening estimate, not legal advice. An attorney will confirm the actual deadline.',
  urgent: 'This is a screening estimate, not legal advice. The deadline is close, so the firm will treat this as urgent. An attorney will confirm the actual deadline.',
  expired: 'This is a screening estimate, not legal advice. The usual deadline for this kind of claim appears to have passed. Only an attorney can say whether anything still applies, so this goes to a member of our staff.',
} as const;

/** The window rule of an area, or undefined for an area the firm never handles. */
export function windowRuleOf(db: PackDb, area: string): { rule: WindowRule; startsFrom: string } | undefined {
  const row = filingRuleFor(db).get({ area });
  return row ? { rule: row.window_rule as WindowRule, startsFrom: row.starts_from } : undefined;
}

export const checkFilingWindow = defineTool({
  name: 'check_filing_window',
  description:
    'Use when: a prospective client has given the kind of matter and the date it happened (for discrimination the last act, for wages the last short paycheck). Returns: the screening deadline, days left, status expired, urgent or open, and a not-advice script to read. Do not use for: telling anyone whether they have a case. Errors: AREA_NOT_HANDLED, INCIDENT_DATE_INVALID.',
  input: z.object({ area: areaField, incident_date: dateField.describe('The date it happened, YYYY-MM-DD.') }),
  output: z.object({
    area: z.string(),
    incident_date: z.string(),
    starts_from: z.string(),
    window: z.string(),
    deadline: z.string(),
    deadline_spoken: z.string(),
    days_left: z.number().int(),
    urgent_within_days: z.number().int(),
    status: z.enum(['expired', 'urgent', 'open']),
    script: z.string(),
  }),
  effect: 'read',
  writes: [],
  normalize: (raw) => normalizeFields(raw, { area: readArea, incident_date: readDate }),
  run(args, ctx) {
    const rule = windowRuleOf(ctx.db, args.area);
    if (!rule) return refuse('AREA_NOT_HANDLED', { recoverable: false });
    if (args.incident_date > ctx.clock.today()) return refuse('INCIDENT_DATE_INVALID', { recoverable: true });
    const facts = filingWindow(ctx.clock, rule.rule, args.incident_date);
    return ok({
      area: args.area,
      incident_date: args.incident_date,
      starts_from: rule.startsFrom,
      window: windowWords(rule.rule),
      deadline: facts.deadline,
      deadline_spoken: spokenDateWithYear(facts.deadline),
      days_left: facts.days_left,
      urgent_within_days: policy.urgent_within_days,
      status: facts.status,
      script: WINDOW_SCRIPTS[facts.status],
    });
  },
});
