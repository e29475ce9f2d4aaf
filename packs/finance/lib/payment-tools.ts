import { eq } from 'drizzle-orm';
import { z } from 'zod';
import { checkHold, defineTool, foldName, markHoldUsed, normalizeFields, ok, openHold, param, preparedQuery, refuse, rowById, rowInsert, timeInWords, type ToolContext, type ToolRefusal } from '../../../src/packs/index.ts';
import { payees, payments } from '../schema.ts';
import { adjustBalance } from './account-tools.ts';
import { accountKindField, dateField, last4Field, moneyField, payeeIdField, paymentIdField, personNameField, readCode, readDate, readDigits, readAccountKind, readMoney, readName, tokenField } from './fields.ts';
import { policy } from './policy.ts';
import { accountOfKind, accountsOf, amountOut, day, dayOut, daysBetween, isRefusal, money, ownAccount, steppedUp, verifiedMember, type MemberRow } from './records.ts';

/** Payments desk: payees, one-off payments and transfers with their cut-offs, and scheduled payments. */

type PayeeRow = typeof payees.$inferSelect;
type PaymentRow = typeof payments.$inferSelect;
type PaymentKind = 'internal' | 'bill' | 'external';

const payeesOfMember = preparedQuery((db) => db.select().from(payees).where(eq(payees.member_id, param('member'))).prepare());
export const paymentsOfMember = preparedQuery((db) => db.select().from(payments).where(eq(payments.member_id, param('member'))).prepare());
const paymentById = rowById(payments);
const insertPayee = rowInsert(payees);
const insertPayment = rowInsert(payments);
const updatePayment = preparedQuery((db) =>
  db.update(payments).set({ amount_cents: param('amount'), send_on: param('send_on'), status: param('status') }).where(eq(payments.id, param('id'))).prepare(),
);


function isNewPayee(ctx: ToolContext, payee: PayeeRow): boolean {
  return daysBetween(payee.added_on, ctx.clock.today()) < policy.new_payee_days;
}

export const listPayees = defineTool({
  name: 'list_payees',
  description:
    'Use when: a verified member wants to pay a bill or a person and you need the payee_id, or asks who is saved. Returns: saved payees with payee_id, name, kind, the last four digits of their account and whether they are new (added in the last three days). Do not use for: adding a payee. Errors: NOT_VERIFIED.',
  input: z.object({}),
  output: z.object({ payees: z.array(z.object({ payee_id: z.string(), name: z.string(), kind: z.string(), account_last4: z.string(), is_new: z.boolean() })) }),
  effect: 'read',
  writes: [],
  gate: 'verified',
  run(_args, ctx) {
    const member = verifiedMember(ctx);
    return ok({ payees: payeesOfMember(ctx.db).all({ member: member.id }).map((p) => ({ payee_id: p.id, name: p.name, kind: p.kind, account_last4: p.account_last4, is_new: isNewPayee(ctx, p) })) });
  },
});

export const addPayee = defineTool({
  name: 'add_payee',
  description:
    'Use when: a verified member who passed the one-time code wants to save a new biller or person to pay. Returns: the payee_id, the most a new payee can receive per payment (limit) and a script on that limit. Do not use for: anyone the member met only on this call or was pressed to pay. Errors: NOT_VERIFIED, STEP_UP_REQUIRED, PAYEE_EXISTS.',
  input: z.object({ name: personNameField.describe('Payee name as the member says it.'), kind: z.enum(['biller', 'person']), account_last4: last4Field.describe("Last four digits of the payee's account.") }),
  output: z.object({ payee_id: z.string(), is_new: z.literal(true), limit: amountOut, script: z.string() }),
  effect: 'write',
  writes: ['payees', 'call_session'],
  gate: 'verified',
  normalize: (raw) => normalizeFields(raw, { name: readName, kind: readCode, account_last4: readDigits }),
  run(args, ctx) {
    const member = verifiedMember(ctx);
    if (!steppedUp(ctx)) return refuse('STEP_UP_REQUIRED', { recoverable: true });
    const id = `pay_${member.id.slice(4)}_${foldName(args.name).replace(/ /g, '_')}`.slice(0, 44);
    if (payeesOfMember(ctx.db).all({ member: member.id }).some((p) => p.id === id || foldName(p.name) === foldName(args.name))) return refuse('PAYEE_EXISTS', { recoverable: false });
    insertPayee(ctx.db).run({ id, member_id: member.id, name: args.name, kind: args.kind, account_last4: args.account_last4, added_on: ctx.clock.today() });
    const limit = money(policy.new_payee_limit_cents);
    return ok({ payee_id: id, is_new: true as const, limit, script: `For the first three days, each payment to a new payee can be at most ${limit.spoken}.` });
  },
});

/** When money asked for on a date really goes out: cut-offs move same-day requests to the next business day. */
function sendDate(ctx: ToolContext, kind: string, requested: string): { date: string; moved: boolean; past_cutoff: boolean; cutoff_hour: number | null } {
  const cutoff = kind === 'bill' ? policy.bill_pay_cutoff_hour : kind === 'external' ? policy.external_transfer_cutoff_hour : null;
  const today = ctx.clock.today();
  let date = requested;
  const pastCutoff = cutoff !== null && requested === today && Number(ctx.clock.now().slice(11, 13)) >= cutoff;
  if (pastCutoff) date = ctx.clock.addBusinessDays(today, 1);
  if (cutoff !== null && !ctx.clock.isBusinessDay(date)) date = ctx.clock.addBusinessDays(date, 1);
  return { date, moved: date !== requested, past_cutoff: pastCutoff, cutoff_hour: cutoff };
}

/** Why a payment goes out later than asked, naming the cut-off time and what it applies to; empty when it does not move. */
function movedReason(kind: string, when: ReturnType<typeof sendDate>): string {
  if (!when.moved) return '';
  if (!when.past_cutoff || when.cutoff_hour === null) return 'Because that day is not a business day, ';
  const what = kind === 'bill' ? 'bill payments' : 'payments to a person';
  return `Because it is past today's ${timeInWords(`${when.cutoff_hour}:00`)} cut-off for ${what}, `;
}

/** Rules every payment amount and date must meet; returns a refusal or null. */
function paymentRules(ctx: ToolContext, p: { kind: string; payee: PayeeRow | undefined; amount: number; date: string; available: number }): ToolRefusal | null {
  if (p.date < ctx.clock.today()) return refuse('DATE_IN_PAST', { recoverable: true });
  if (daysBetween(ctx.clock.today(), p.date) > policy.payment_horizon_days) return refuse('BEYOND_HORIZON', { recoverable: true, last_day: day(ctx.clock.addDays(ctx.clock.today(), policy.payment_horizon_days), ctx.clock.today()) });
  if (p.payee && isNewPayee(ctx, p.payee) && p.amount > policy.new_payee_limit_cents) return refuse('NEW_PAYEE_LIMIT', { recoverable: true, limit: money(policy.new_payee_limit_cents) });
  if (p.amount > policy.step_up_above_cents && p.kind !== 'internal' && !steppedUp(ctx)) return refuse('STEP_UP_REQUIRED', { recoverable: true, threshold: money(policy.step_up_above_cents) });
  if (p.date === ctx.clock.today() && p.amount > p.available) return refuse('INSUFFICIENT_FUNDS', { recoverable: true, available: money(p.available) });
  return null;
}

const paymentPayload = z.object({ member_id: z.string(), from_account_id: z.string(), kind: z.string(), payee_id: z.string().nullable(), to_account_id: z.string().nullable(), amount_cents: z.number().int(), send_on: z.string() });
type PaymentPayload = z.infer<typeof paymentPayload>;

function destinationName(ctx: ToolContext, member: MemberRow, p: PaymentPayload): string {
  if (p.payee_id) return payeesOfMember(ctx.db).all({ member: member.id }).find((x) => x.id === p.payee_id)?.name ?? 'the payee';
  return `your ${accountsOf(ctx, member.id).find((a) => a.id === p.to_account_id)?.nickname ?? 'account'}`;
}

export const quotePayment = defineTool({
  name: 'quote_payment',
  description:
    'Use when: a verified member wants to pay a saved payee or move money between their own accounts; give a payee_id or a to_account. Returns: a token, the date it really goes out after cut-offs, and a script to read back. Writes nothing. Do not use for: a payee not saved. Errors: NOT_VERIFIED, ACCOUNT_NOT_FOUND, PAYEE_NOT_FOUND, DESTINATION_REQUIRED, SAME_ACCOUNT, DATE_IN_PAST, BEYOND_HORIZON, NEW_PAYEE_LIMIT, STEP_UP_REQUIRED, INSUFFICIENT_FUNDS.',
  input: z.object({
    from_account: accountKindField.describe('The account the money comes from: "checking", "savings" or "money market".'),
    payee_id: payeeIdField.optional(),
    to_account: accountKindField.optional().describe("For a transfer between the member's own accounts: the account it goes to."),
    amount_cents: moneyField,
    send_on: dateField.describe('The day the member asks for, YYYY-MM-DD; today when they say now.'),
  }),
  output: z.object({ token: z.string(), kind: z.enum(['internal', 'bill', 'external']), amount: amountOut, send_on: dayOut, moved_by_cutoff: z.boolean(), script: z.string() }),
  effect: 'read',
  writes: ['holds', 'call_session'],
  gate: 'verified',
  normalize: (raw) => normalizeFields(raw, { from_account: readAccountKind, payee_id: readCode, to_account: readAccountKind, amount_cents: readMoney, send_on: readDate }),
  run(args, ctx) {
    const member = verifiedMember(ctx);
    const from = accountOfKind(ctx, member.id, args.from_account);
    if (isRefusal(from)) return from;
    if (!args.payee_id && !args.to_account) return refuse('DESTINATION_REQUIRED', { recoverable: true });
    let payee: PayeeRow | undefined;
    let toAccountId: string | null = null;
    if (args.payee_id) {
      payee = payeesOfMember(ctx.db).all({ member: member.id }).find((p) => p.id === args.payee_id);
      if (!payee) return refuse('PAYEE_NOT_FOUND', { recoverable: true });
    } else if (args.to_account) {
      const to = accountOfKind(ctx, member.id, args.to_account);
      if (isRefusal(to)) return to;
      if (to.id === from.id) return refuse('SAME_ACCOUNT', { recoverable: true });
      toAccountId = to.id;
    }
    const kind: PaymentKind = payee ? (payee.kind === 'biller' ? 'bill' : 'external') : 'internal';
    if (args.send_on < ctx.clock.today()) return refuse('DATE_IN_PAST', { recoverable: true });
    const when = sendDate(ctx, kind, args.send_on);
    const broken = paymentRules(ctx, { kind, payee, amount: args.amount_cents, date: when.date, available: from.available_cents });
    if (broken) return broken;
    const payload: PaymentPayload = { member_id: member.id, from_account_id: from.id, kind, payee_id: payee?.id ?? null, to_account_id: payee ? null : toAccountId, amount_cents: args.amount_cents, send_on: when.date };
    const token = openHold(ctx, { kind: 'payment', target: `${from.id}:${payee?.id ?? toAccountId ?? ''}`, payload });
    const amount = money(args.amount_cents);
    const sendOn = day(when.date, ctx.clock.today());
    return ok({
      token,
      kind,
      amount,
      send_on: sendOn,
      moved_by_cutoff: when.moved,
      script: `${movedReason(kind, when)}${amount.spoken} will go from your ${from.nickname} to ${destinationName(ctx, member, payload)} on ${sendOn.spoken}. Shall I go ahead?`,
    });
  },
});

/** The natural payment id (destination and day), with a counter when a second payment shares it. */
function freePaymentId(ctx: ToolContext, base: string): string {
  let id = base;
  for (let n = 2; paymentById(ctx.db).get({ id }); n += 1) id = `${base}_${n}`;
  return id;
}

export const confirmPayment = defineTool({
  name: 'confirm_payment',
  description:
    'Use when: the member said yes to the payment or transfer you quoted. Returns: the payment_id, its status (sent now for a transfer between own accounts today, otherwise scheduled) and the date in words. Do not use for: a payment you have not quoted. Errors: NOT_VERIFIED, TOKEN_UNKNOWN, TOKEN_WRONG_KIND, TOKEN_WRONG_OWNER, TOKEN_USED, TOKEN_SUPERSEDED, INSUFFICIENT_FUNDS.',
  input: z.object({ token: tokenField }),
  output: z.object({ payment_id: z.string(), status: z.enum(['sent', 'scheduled']), amount: amountOut, send_on: dayOut }),
  effect: 'write',
  writes: ['payments', 'accounts', 'holds'],
  gate: 'verified',
  confirms: 'quote_payment',
  run(args, ctx) {
    const held = checkHold(ctx, args.token, 'payment', paymentPayload);
    if (isRefusal(held)) return held;
    const p = held.payload;
    const member = verifiedMember(ctx);
    const now = p.kind === 'internal' && p.send_on === ctx.clock.today();
    const from = ownAccount(ctx, member.id, p.from_account_id);
    if (isRefusal(from)) return from;
    if (p.send_on === ctx.clock.today() && p.amount_cents > from.available_cents) return refuse('INSUFFICIENT_FUNDS', { recoverable: true, available: money(from.available_cents) });
    const id = freePaymentId(ctx, `pmt_${(p.payee_id ?? p.to_account_id ?? '').slice(4)}_${p.send_on.slice(5).replace('-', '')}`);
    insertPayment(ctx.db).run({ id, member_id: member.id, from_account_id: p.from_account_id, kind: p.kind, payee_id: p.payee_id, to_account_id: p.to_account_id, amount_cents: p.amount_cents, send_on: p.send_on, status: now ? 'sent' : 'scheduled', created_at: ctx.clock.now() });
    if (now && p.to_account_id) {
      adjustBalance(ctx, p.from_account_id, member.id, -p.amount_cents);
      adjustBalance(ctx, p.to_account_id, member.id, p.amount_cents);
    }
    markHoldUsed(ctx.db, held.token);
    return ok({ payment_id: id, status: now ? ('sent' as const) : ('scheduled' as const), amount: money(p.amount_cents), send_on: day(p.send_on, ctx.clock.today()) });
  },
});

export const scheduledOut = z.object({ payment_id: z.string(), to: z.string(), amount: amountOut, send_on: dayOut, status: z.string(), can_change: z.boolean() });

export function describeScheduled(ctx: ToolContext, member: MemberRow, row: PaymentRow): z.infer<typeof scheduledOut> {
  return { payment_id: row.id, to: destinationName(ctx, member, row), amount: money(row.amount_cents), send_on: day(row.send_on, ctx.clock.today()), status: row.status, can_change: row.status === 'scheduled' };
}

export const listScheduledPayments = defineTool({
  name: 'list_scheduled_payments',
  description:
    'Use when: a verified member asks what payments are coming up, or wants to change or cancel one and you need its payment_id. Returns: scheduled and processing payments with payee, amount and date in words, and whether each can still change. Do not use for: past transactions. Errors: NOT_VERIFIED.',
  input: z.object({}),
  output: z.object({ payments: z.array(scheduledOut) }),
  effect: 'read',
  writes: [],
  gate: 'verified',
  run(_args, ctx) {
    const member = verifiedMember(ctx);
    const rows = paymentsOfMember(ctx.db)
      .all({ member: member.id })
      .filter((p) => p.status === 'scheduled' || p.status === 'processing')
      .sort((a, b) => (a.send_on === b.send_on ? a.id.localeCompare(b.id) : a.send_on < b.send_on ? -1 : 1));
    return ok({ payments: rows.map((r) => describeScheduled(ctx, member, r)) });
  },
});

/** A member's payment that can still change, or the refusal saying why not. */
function changeablePayment(ctx: ToolContext, member: MemberRow, id: string): PaymentRow | ToolRefusal {
  const row = paymentById(ctx.db).get({ id });
  if (!row || row.member_id !== member.id) return refuse('PAYMENT_NOT_FOUND', { recoverable: true });
  if (row.status === 'processing') return refuse('PAYMENT_PROCESSING', { recoverable: false });
  if (row.status !== 'scheduled') return refuse('PAYMENT_NOT_ACTIVE', { recoverable: false });
  return row;
}

export const updateScheduledPayment = defineTool({
  name: 'update_scheduled_payment',
  description:
    'Use when: a verified member wants a new amount or a new date for a scheduled payment; read the change back first. It has no quote: a date the cut-off or a closed day moves is known only from its answer. Returns: the payment as it now stands, the date after cut-offs in words, and a script saying the date it really goes out and, when it moved, which cut-off moved it. Do not use for: cancelling. Errors: NOT_VERIFIED, PAYMENT_NOT_FOUND, PAYMENT_PROCESSING, PAYMENT_NOT_ACTIVE, NOTHING_TO_CHANGE, DATE_IN_PAST, BEYOND_HORIZON, NEW_PAYEE_LIMIT, STEP_UP_REQUIRED, INSUFFICIENT_FUNDS.',
  input: z.object({ payment_id: paymentIdField, amount_cents: moneyField.optional(), send_on: dateField.optional() }),
  output: z.object({ payment: scheduledOut, moved_by_cutoff: z.boolean(), idempotent: z.boolean(), script: z.string() }),
  effect: 'write',
  writes: ['payments', 'call_session'],
  gate: 'verified',
  normalize: (raw) => normalizeFields(raw, { payment_id: readCode, amount_cents: readMoney, send_on: readDate }),
  run(args, ctx) {
    const member = verifiedMember(ctx);
    const row = changeablePayment(ctx, member, args.payment_id);
    if (isRefusal(row)) return row;
    if (args.amount_cents === undefined && args.send_on === undefined) return refuse('NOTHING_TO_CHANGE', { recoverable: true });
    const requested = args.send_on ?? row.send_on;
    if (requested < ctx.clock.today()) return refuse('DATE_IN_PAST', { recoverable: true });
    const when = sendDate(ctx, row.kind, requested);
    const amount = args.amount_cents ?? row.amount_cents;
    const payee = row.payee_id ? payeesOfMember(ctx.db).all({ member: member.id }).find((p) => p.id === row.payee_id) : undefined;
    const from = accountsOf(ctx, member.id).find((a) => a.id === row.from_account_id);
    const broken = paymentRules(ctx, { kind: row.kind, payee, amount, date: when.date, available: from?.available_cents ?? 0 });
    if (broken) return broken;
    const same = amount === row.amount_cents && when.date === row.send_on;
    if (!same) updatePayment(ctx.db).run({ id: row.id, amount, send_on: when.date, status: 'scheduled' });
    const payment = describeScheduled(ctx, member, { ...row, amount_cents: amount, send_on: when.date });
    const ask = when.moved ? ' Is that day all right?' : '';
    const said = `${movedReason(row.kind, when)}${payment.amount.spoken} to ${payment.to} goes out on ${payment.send_on.spoken}.${ask}`;
    const script = said.charAt(0).toUpperCase() + said.slice(1);
    return ok({ payment, moved_by_cutoff: when.moved, idempotent: same, script });
  },
});

export const cancelScheduledPayment = defineTool({
  name: 'cancel_scheduled_payment',
  description:
    'Use when: a verified member wants a scheduled payment stopped; read it back first. Returns: the cancelled payment; cancelling twice changes nothing. Do not use for: a payment already processing or sent, which the tool refuses. Errors: NOT_VERIFIED, PAYMENT_NOT_FOUND, PAYMENT_PROCESSING, PAYMENT_NOT_ACTIVE.',
  input: z.object({ payment_id: paymentIdField }),
  output: z.object({ payment: scheduledOut, idempotent: z.boolean() }),
  effect: 'write',
  writes: ['payments'],
  gate: 'verified',
  normalize: (raw) => normalizeFields(raw, { payment_id: readCode }),
  run(args, ctx) {
    const member = verifiedMember(ctx);
    const existing = paymentById(ctx.db).get({ id: args.payment_id });
    if (existing?.member_id === member.id && existing.status === 'cancelled') return ok({ payment: describeScheduled(ctx, member, existing), idempotent: true });
    const row = changeablePayment(ctx, member, args.payment_id);
    if (isRefusal(row)) return row;
    updatePayment(ctx.db).run({ id: row.id, amount: row.amount_cents, send_on: row.send_on, status: 'cancelled' });
    return ok({ payment: describeScheduled(ctx, member, { ...row, status: 'cancelled' }), idempotent: false });
  },
});
