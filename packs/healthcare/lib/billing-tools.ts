import { and, eq } from 'drizzle-orm';
import { z } from 'zod';
import { dateInWords, defineTool, moneyInWords, normalizeFields, numberInWords, ok, type PackDb, param, preparedQuery, refuse, rowById, rowInsert, type ToolContext } from '../../../src/packs/index.ts';
import { callbacks, charges, feeReviews, paymentLinks, paymentPlans } from '../schema.ts';
import { chargeIdField, moneyDisplay, phoneField, proseField, readBool, readCode, readInt, readMoney, readPhone } from './fields.ts';
import { CALLBACK_TOPICS, CLINICAL_CALLBACK_TOPICS, FEE_REVIEW_REASONS, policy } from './policy.ts';
import { addMinutes, maskPhone, verifiedPatient, type PatientRow } from './records.ts';

/** Billing desk: balance, charge wording, links, plans, fee reviews, and the shared callback tool. */

type ChargeRow = typeof charges.$inferSelect;

const chargeById = rowById(charges);
export const openChargesOf = preparedQuery((db) =>
  db.select().from(charges).where(and(eq(charges.patient_id, param('patient')), eq(charges.status, 'open'))).prepare(),
);
export const insertCharge = rowInsert(charges);
export const paymentLinkById = rowById(paymentLinks);
export const insertPaymentLink = rowInsert(paymentLinks);
const planById = rowById(paymentPlans);
const insertPlan = rowInsert(paymentPlans);
const feeReviewById = rowById(feeReviews);
const insertFeeReview = rowInsert(feeReviews);
const callbackById = rowById(callbacks);
const insertCallback = rowInsert(callbacks);

const KIND_NAMES: Readonly<Record<string, string>> = {
  visit_balance: 'visit balance',
  copay: 'copay',
  late_change: 'late change fee',
  pathology: 'lab fee',
  cosmetic_deposit: 'cosmetic consult deposit',
};

function openCharges(ctx: ToolContext, patientId: string): ChargeRow[] {
  return openChargesOf(ctx.db)
    .all({ patient: patientId })
    .sort((a, b) => (a.service_date === b.service_date ? (a.id < b.id ? -1 : 1) : a.service_date < b.service_date ? -1 : 1));
}

function monthly(balance: number, months: number): number {
  return Math.ceil(balance / months);
}

function planTerms(balance: number): string {
  return `The plan covers your balance of ${moneyInWords(balance)}, split into monthly payments rounded up to the cent, the last one smaller by what the rounding added, charged to the card you set up through the link we text you. Missing two payments ends the plan and the rest is due. Do you agree to these terms?`;
}

const lineOut = z.object({ charge_id: z.string(), kind: z.string(), kind_name: z.string(), service_date: z.string(), service_spoken: z.string(), amount_cents: z.number().int(), amount_display: z.string() });

export const getBalance = defineTool({
  name: 'get_balance',
  description:
    'Use when: a verified patient asks what they owe or about payment options. Returns: the total and each open charge with ids, and payment plan eligibility with the threshold, the monthly amount for three to six months and the terms script. Do not use for: explaining one charge in detail. Errors: NOT_VERIFIED.',
  input: z.object({}),
  output: z.object({
    total_cents: z.number().int(),
    total_display: z.string(),
    line_items: z.array(lineOut),
    payment_plan: z.object({
      eligible: z.boolean(),
      reason: z.string(),
      threshold_cents: z.number().int(),
      threshold_display: z.string(),
      options: z.array(z.object({ months: z.number().int(), monthly_cents: z.number().int(), monthly_display: z.string() })),
      terms_script: z.string().nullable(),
    }),
  }),
  effect: 'read',
  writes: ['call_session'],
  gate: 'verified',
  run(_args, ctx) {
    const patient = verifiedPatient(ctx);
    const items = openCharges(ctx, patient.id);
    const total = items.reduce((s, c) => s + c.amount_cents, 0);
    const eligible = total >= policy.payment_plan_min_balance_cents;
    const options = [];
    for (let m = policy.payment_plan_min_months; eligible && m <= policy.payment_plan_max_months; m++) {
      const each = monthly(total, m);
      if (each >= policy.payment_plan_min_monthly_cents) options.push({ months: m, monthly_cents: each, monthly_display: moneyDisplay(each) });
    }
    return ok({
      total_cents: total,
      total_display: moneyDisplay(total),
      line_items: items.map((c) => ({ charge_id: c.id, kind: c.kind, kind_name: KIND_NAMES[c.kind] ?? c.kind, service_date: c.service_date, service_spoken: ctx.clock.spokenDate(c.service_date), amount_cents: c.amount_cents, amount_display: moneyDisplay(c.amount_cents) })),
      payment_plan: {
        eligible,
        reason: eligible ? `balance is at least ${moneyInWords(policy.payment_plan_min_balance_cents)}` : `balance is below ${moneyInWords(policy.payment_plan_min_balance_cents)}`,
        threshold_cents: policy.payment_plan_min_balance_cents,
        threshold_display: moneyDisplay(policy.payment_plan_min_balance_cents),
        options,
        terms_script: eligible ? planTerms(total) : null,
      },
    });
  },
});

function explainScript(c: ChargeRow, spoken: string): string {
  const amount = moneyInWords(c.amount_cents);
  switch (c.kind) {
    case 'late_change':
      return `This ${amount} is the late change fee for a visit cancelled or moved with less than ${numberInWords(policy.late_change_notice_hours)} hours notice on ${spoken}. Only a billing review can remove it.`;
    case 'copay':
      return `This ${amount} is the copay your plan sets for your visit on ${spoken}.`;
    case 'pathology':
      return `This ${amount} is the lab fee for examining a tissue sample taken on ${spoken}. Your plan applied it to your deductible.`;
    case 'cosmetic_deposit':
      return `This ${amount} is the deposit for your cosmetic consult on ${spoken}. It is credited to treatment on the same day.`;
    default:
      return `This ${amount} is the part of your visit on ${spoken} that your plan applied to your deductible or coinsurance, so it is billed to you.`;
  }
}

export const explainLineItem = defineTool({
  name: 'explain_line_item',
  description:
    'Use when: a verified patient asks what one charge from get_balance is. Returns: the approved wording for that charge in script, its amount and whether it can go to a fee review. Do not use for: promising a refund or removing a charge. Errors: NOT_VERIFIED, CHARGE_NOT_FOUND.',
  input: z.object({ charge_id: chargeIdField }),
  output: z.object({ charge_id: z.string(), kind_name: z.string(), amount_cents: z.number().int(), amount_display: z.string(), reviewable: z.boolean(), review_reason: z.string(), script: z.string() }),
  effect: 'read',
  writes: ['call_session'],
  gate: 'verified',
  normalize: (raw) => normalizeFields(raw, { charge_id: readCode }),
  run(args, ctx) {
    const patient = verifiedPatient(ctx);
    const c = chargeById(ctx.db).get({ id: args.charge_id });
    if (!c || c.patient_id !== patient.id) return refuse('CHARGE_NOT_FOUND', { recoverable: true });
    const reviewable = c.kind === 'late_change' && c.review_state === 'none' && c.status === 'open';
    const reviewReason = c.kind !== 'late_change' ? 'only late change fees can be reviewed' : c.review_state !== 'none' ? 'this fee was already reviewed' : 'late change fees can be sent for one review';
    return ok({ charge_id: c.id, kind_name: KIND_NAMES[c.kind] ?? c.kind, amount_cents: c.amount_cents, amount_display: moneyDisplay(c.amount_cents), reviewable, review_reason: reviewReason, script: explainScript(c, dateInWords(c.service_date)) });
  },
});

export const sendPaymentLink = defineTool({
  name: 'send_payment_link',
  description:
    'Use when: a verified patient wants to pay part or all of the balance by a texted link. Amount in cents, from ten dollars up to the balance. Returns: the amount, the masked mobile and the expiry, twenty four hours out; idempotent on repeats. Do not use for: consult deposits. Errors: NOT_VERIFIED, NO_BALANCE, AMOUNT_OUT_OF_RANGE, NO_MOBILE_ON_FILE.',
  input: z.object({ amount_cents: z.number().int().describe('Amount in cents: $120 is 12000.') }),
  output: z.object({ amount_cents: z.number().int(), amount_display: z.string(), balance_cents: z.number().int(), sent_to: z.string(), expires_spoken: z.string(), idempotent: z.boolean() }),
  effect: 'write',
  writes: ['payment_links', 'call_session'],
  gate: 'verified',
  normalize: (raw) => normalizeFields(raw, { amount_cents: readMoney }),
  run(args, ctx) {
    const patient = verifiedPatient(ctx);
    const balance = openCharges(ctx, patient.id).reduce((s, c) => s + c.amount_cents, 0);
    if (balance <= 0) return refuse('NO_BALANCE', { recoverable: false });
    if (args.amount_cents < policy.payment_link_min_cents || args.amount_cents > balance) {
      return refuse('AMOUNT_OUT_OF_RANGE', { recoverable: true, min_cents: policy.payment_link_min_cents, max_cents: balance });
    }
    if (!patient.mobile_phone) return refuse('NO_MOBILE_ON_FILE', { recoverable: false });
    const id = `plink_${patient.id.slice(4)}_${args.amount_cents}`;
    const expires = addMinutes(ctx.clock, ctx.clock.now(), policy.payment_link_valid_hours * 60);
    const existing = paymentLinkById(ctx.db).get({ id });
    if (!existing) insertPaymentLink(ctx.db).run({ id, patient_id: patient.id, purpose: 'balance', amount_cents: args.amount_cents, sent_to: patient.mobile_phone, expires_at: expires, created_at: ctx.clock.now() });
    return ok({ amount_cents: args.amount_cents, amount_display: moneyDisplay(args.amount_cents), balance_cents: balance, sent_to: maskPhone(patient.mobile_phone) ?? '', expires_spoken: ctx.clock.spokenDateTime(expires), idempotent: existing !== undefined });
  },
});

export const setUpPaymentPlan = defineTool({
  name: 'set_up_payment_plan',
  description:
    'Use when: a verified patient with an eligible balance chose a number of months and agreed to the terms script from get_balance; pass terms_acknowledged true. Returns: the plan, monthly amount with its reason and first payment date. Do not use for: balances below the threshold. Errors: NOT_VERIFIED, PLAN_NOT_ELIGIBLE, PLAN_MONTHS_OUT_OF_RANGE, PLAN_MONTHLY_TOO_LOW, PLAN_EXISTS, ACK_REQUIRED.',
  input: z.object({ months: z.number().int().describe('Three to six.'), terms_acknowledged: z.boolean() }),
  output: z.object({ plan_id: z.string(), balance_cents: z.number().int(), months: z.number().int(), monthly_cents: z.number().int(), monthly_display: z.string(), monthly_reason: z.string(), first_payment_spoken: z.string(), idempotent: z.boolean() }),
  effect: 'write',
  writes: ['payment_plans', 'call_session'],
  gate: 'verified',
  normalize: (raw) => normalizeFields(raw, { months: readInt, terms_acknowledged: readBool }),
  run(args, ctx) {
    const patient = verifiedPatient(ctx);
    const balance = openCharges(ctx, patient.id).reduce((s, c) => s + c.amount_cents, 0);
    if (balance < policy.payment_plan_min_balance_cents) return refuse('PLAN_NOT_ELIGIBLE', { recoverable: false, actual_cents: balance, threshold_cents: policy.payment_plan_min_balance_cents });
    if (args.months < policy.payment_plan_min_months || args.months > policy.payment_plan_max_months) return refuse('PLAN_MONTHS_OUT_OF_RANGE', { recoverable: true, min_months: policy.payment_plan_min_months, max_months: policy.payment_plan_max_months });
    const each = monthly(balance, args.months);
    if (each < policy.payment_plan_min_monthly_cents) return refuse('PLAN_MONTHLY_TOO_LOW', { recoverable: true, monthly_cents: each, min_monthly_cents: policy.payment_plan_min_monthly_cents });
    const id = `plan_${patient.id.slice(4)}`;
    const existing = planById(ctx.db).get({ id });
    if (existing && existing.months !== args.months) return refuse('PLAN_EXISTS', { recoverable: false });
    if (!existing && args.terms_acknowledged !== true) return refuse('ACK_REQUIRED', { recoverable: true, script: planTerms(balance) });
    const first = ctx.clock.addDays(ctx.clock.today(), policy.payment_plan_first_payment_days);
    if (!existing) insertPlan(ctx.db).run({ id, patient_id: patient.id, balance_cents: balance, months: args.months, monthly_cents: each, first_payment_on: first, status: 'active', created_at: ctx.clock.now() });
    return ok({ plan_id: id, balance_cents: balance, months: args.months, monthly_cents: each, monthly_display: moneyDisplay(each), monthly_reason: `${moneyInWords(balance)} over ${numberInWords(args.months)} months, rounded up to the cent`, first_payment_spoken: ctx.clock.spokenDate(existing?.first_payment_on ?? first), idempotent: existing !== undefined });
  },
});

export const requestFeeReview = defineTool({
  name: 'request_fee_review',
  description:
    'Use when: a verified patient disputes a late change fee from get_balance. Queues one review per fee; you cannot remove fees yourself. Returns: the date billing decides by and a script. Do not use for: copays, visit balances or lab fees. Errors: NOT_VERIFIED, CHARGE_NOT_FOUND, FEE_REVIEW_NOT_ALLOWED, FEE_REVIEW_EXISTS.',
  input: z.object({ charge_id: chargeIdField, reason: z.enum(FEE_REVIEW_REASONS), details: proseField(400).optional().describe("The caller's explanation in a sentence or two.") }),
  output: z.object({ review_id: z.string(), amount_display: z.string(), decide_by: z.string(), decide_by_spoken: z.string(), idempotent: z.boolean(), script: z.string() }),
  effect: 'write',
  writes: ['fee_reviews', 'call_session'],
  gate: 'verified',
  normalize: (raw) => normalizeFields(raw, { charge_id: readCode, reason: readCode }),
  run(args, ctx) {
    const patient = verifiedPatient(ctx);
    const c = chargeById(ctx.db).get({ id: args.charge_id });
    if (!c || c.patient_id !== patient.id) return refuse('CHARGE_NOT_FOUND', { recoverable: true });
    if (c.kind !== 'late_change') return refuse('FEE_REVIEW_NOT_ALLOWED', { recoverable: false });
    if (c.review_state !== 'none') return refuse('FEE_REVIEW_EXISTS', { recoverable: false });
    const id = `frv_${c.id.slice(4)}`;
    const existing = feeReviewById(ctx.db).get({ id });
    const decideBy = existing?.decide_by ?? ctx.clock.addBusinessDays(ctx.clock.today(), policy.fee_review_decision_business_days);
    if (!existing) insertFeeReview(ctx.db).run({ id, patient_id: patient.id, charge_id: c.id, reason: args.reason, status: 'pending', decide_by: decideBy, created_at: ctx.clock.now() });
    const spoken = ctx.clock.spokenDate(decideBy);
    return ok({ review_id: id, amount_display: moneyDisplay(c.amount_cents), decide_by: decideBy, decide_by_spoken: spoken, idempotent: existing !== undefined, script: `I have sent this fee to our billing team for review. They will decide by ${dateInWords(decideBy)}, and the fee stays on your account unless they remove it.` });
  },
});

function callbackPhone(patient: PatientRow, phone: string | undefined): string | null {
  return phone ?? patient.mobile_phone;
}

export const requestCallback = defineTool({
  name: 'request_callback',
  description:
    'Use when: a verified patient needs the billing or clinical team to call back about a topic this line cannot settle. Uses the mobile on file unless a phone is given. Returns: the team, the date it calls by and the masked number; idempotent on repeats. Do not use for: urgent symptoms. Errors: NOT_VERIFIED, NO_MOBILE_ON_FILE.',
  input: z.object({ topic: z.enum(CALLBACK_TOPICS), best_time: z.enum(['morning', 'afternoon']), phone: phoneField.optional().describe('Only when the caller gives a different number, E.164.') }),
  output: z.object({ callback_id: z.string(), team: z.enum(['billing', 'clinical']), due_by: z.string(), due_spoken: z.string(), phone: z.string(), idempotent: z.boolean() }),
  effect: 'write',
  writes: ['callbacks', 'call_session'],
  gate: 'verified',
  normalize: (raw) => normalizeFields(raw, { topic: readCode, best_time: readCode, phone: readPhone }),
  run(args, ctx) {
    const patient = verifiedPatient(ctx);
    const phone = callbackPhone(patient, args.phone);
    if (!phone) return refuse('NO_MOBILE_ON_FILE', { recoverable: true });
    const team = CLINICAL_CALLBACK_TOPICS.includes(args.topic) ? ('clinical' as const) : ('billing' as const);
    const id = `cb_${patient.id.slice(4)}_${args.topic}`;
    const existing = callbackById(ctx.db).get({ id });
    const due = existing?.due_by ?? ctx.clock.addBusinessDays(ctx.clock.today(), policy.callback_business_days);
    if (!existing) insertCallback(ctx.db).run({ id, patient_id: patient.id, team, topic: args.topic, best_time: args.best_time, phone, due_by: due, created_at: ctx.clock.now() });
    return ok({ callback_id: id, team, due_by: due, due_spoken: `${dateInWords(due)}, in the ${args.best_time}`, phone: maskPhone(phone) ?? '', idempotent: existing !== undefined });
  },
});
