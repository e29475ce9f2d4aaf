import { eq } from 'drizzle-orm';
import { z } from 'zod';
import { checkHold, defineTool, markHoldUsed, normalizeFields, numberInWords, ok, openHold, param, preparedQuery, refuse, rowInsert } from '../../../src/packs/index.ts';
import { disputes, transactions } from '../schema.ts';
import { adjustBalance } from './account-tools.ts';
import { dateField, readCode, readDate, tokenField, transactionIdField } from './fields.ts';
import { DISPUTE_REASONS, policy } from './policy.ts';
import { accountsOf, amountOut, cardsOf, day, daysBetween, dayOut, isRefusal, money, ownTransaction, setCardStatus, transactionsOfAccount, verifiedMember } from './records.ts';

/** Disputes desk: card disputes and fraud claims, with the stated window and provisional-credit rule. */

const disputesOfMember = preparedQuery((db) => db.select().from(disputes).where(eq(disputes.member_id, param('member'))).prepare());
const insertDispute = rowInsert(disputes);
const insertTransaction = rowInsert(transactions);


const disputePayload = z.object({ transaction_id: z.string(), account_id: z.string(), card_id: z.string(), reason: z.enum(DISPUTE_REASONS), amount_cents: z.number().int(), provisional_credit_on: z.string(), decide_by: z.string() });

/** What the claim covers, said as the quote reads it: the whole charge, or the later copy of a duplicate. */
function whatIsDisputed(reason: (typeof DISPUTE_REASONS)[number], spokenAmount: string): string {
  if (reason === 'duplicate') return `the second of the two charges, ${spokenAmount}`;
  if (reason === 'wrong_amount') return `the whole charge of ${spokenAmount}; the review settles what you should have paid`;
  return spokenAmount;
}

export const quoteDispute = defineTool({
  name: 'quote_dispute',
  description:
    'Use when: a verified member disputes a card purchase found with find_card_purchases: unauthorized, duplicate, not received or wrong amount. Every claim is for the whole charge, wrong amount included (the review settles the difference); a duplicate claim disputes the later of the two copies, whichever of them you pass. Returns: a token, the amount, the provisional credit date and the decision date in words, and the script to read. Writes nothing. Do not use for: fees. Errors: NOT_VERIFIED, TRANSACTION_NOT_FOUND, NOT_A_CARD_PURCHASE, DISPUTE_WINDOW_CLOSED, DISPUTE_EXISTS, NOT_A_DUPLICATE.',
  input: z.object({ transaction_id: transactionIdField, reason: z.enum(DISPUTE_REASONS).describe('"I never made it" or "my card was used" is unauthorized; "charged twice" is duplicate; "it never came" is not_received; "charged more than I agreed" is wrong_amount.') }),
  output: z.object({ token: z.string(), amount: amountOut, posted: dayOut, last_day_to_dispute: dayOut, provisional_credit_on: dayOut, provisional_credit_today: z.boolean(), decide_by: dayOut, script: z.string() }),
  effect: 'read',
  writes: ['holds', 'call_session'],
  gate: 'verified',
  normalize: (raw) => normalizeFields(raw, { transaction_id: readCode, reason: readCode }),
  run(args, ctx) {
    const member = verifiedMember(ctx);
    const found = ownTransaction(ctx, member.id, args.transaction_id);
    if (isRefusal(found)) return found;
    let txn = found;
    if (txn.kind !== 'purchase' || !txn.card_id) return refuse('NOT_A_CARD_PURCHASE', { recoverable: false });
    const lastDay = ctx.clock.addDays(txn.posted_on, policy.dispute_window_days);
    if (ctx.clock.today() > lastDay) return refuse('DISPUTE_WINDOW_CLOSED', { recoverable: false, days_since_posted: daysBetween(txn.posted_on, ctx.clock.today()), last_day_spoken: day(lastDay, ctx.clock.today()).spoken });
    if (args.reason === 'duplicate') {
      const twins = transactionsOfAccount(ctx, txn.account_id).filter((t) => t.posted_on === txn.posted_on && t.description === txn.description && t.amount_cents === txn.amount_cents);
      if (twins.length < 2) return refuse('NOT_A_DUPLICATE', { recoverable: false });
      // The later copy is the duplicate, whichever of the two the member pointed at.
      txn = twins.sort((a, b) => a.id.localeCompare(b.id))[twins.length - 1] ?? txn;
    }
    if (disputesOfMember(ctx.db).all({ member: member.id }).some((d) => d.transaction_id === txn.id)) return refuse('DISPUTE_EXISTS', { recoverable: false });
    const cents = -txn.amount_cents;
    const sameDay = cents <= policy.provisional_credit_same_day_max_cents;
    const creditOn = sameDay ? ctx.clock.today() : ctx.clock.addBusinessDays(ctx.clock.today(), policy.provisional_credit_business_days);
    const decideBy = ctx.clock.addDays(ctx.clock.today(), policy.dispute_decision_days);
    const payload = { transaction_id: txn.id, account_id: txn.account_id, card_id: txn.card_id, reason: args.reason, amount_cents: cents, provisional_credit_on: creditOn, decide_by: decideBy };
    const token = openHold(ctx, { kind: 'dispute', target: txn.id, payload });
    const amount = money(cents);
    // confirm_dispute locks only a card still active; a card already closed or locked is not promised a lock.
    const cardActive = cardsOf(ctx, member.id).find((c) => c.id === txn.card_id)?.status === 'active';
    const lockNote = args.reason === 'unauthorized' && cardActive ? ' Because you did not make this charge, the card it was made on will be locked when the claim opens.' : '';
    const credit = sameDay
      ? `you will get a provisional credit of ${amount.spoken} today`
      : `if we have not finished by ${day(creditOn, ctx.clock.today()).spoken}, you will get a provisional credit of ${amount.spoken} that day`;
    return ok({
      token,
      amount,
      posted: day(txn.posted_on, ctx.clock.today()),
      last_day_to_dispute: day(lastDay, ctx.clock.today()),
      provisional_credit_on: day(creditOn, ctx.clock.today()),
      provisional_credit_today: sameDay,
      decide_by: day(decideBy, ctx.clock.today()),
      script: `I can open a dispute for ${whatIsDisputed(args.reason, amount.spoken)}.${lockNote} Once it is open, ${credit}, and we will tell you our decision by ${day(decideBy, ctx.clock.today()).spoken}, within ${numberInWords(policy.dispute_decision_days)} days. If we find the charge was correct, the credit is taken back. Shall I open it?`,
    });
  },
});

export const confirmDispute = defineTool({
  name: 'confirm_dispute',
  description:
    'Use when: the member said yes to the dispute you quoted. Returns: the dispute_id, the provisional credit date and the decision date in words; a same-day credit posts now, and a claim for a charge the member did not make locks the card. Do not use for: a dispute you have not quoted. Errors: NOT_VERIFIED, TOKEN_UNKNOWN, TOKEN_WRONG_KIND, TOKEN_WRONG_OWNER, TOKEN_USED, TOKEN_SUPERSEDED, DISPUTE_EXISTS.',
  input: z.object({ token: tokenField }),
  output: z.object({ dispute_id: z.string(), status: z.literal('open'), provisional_credit_on: dayOut, credited_today: z.boolean(), decide_by: dayOut }),
  effect: 'write',
  writes: ['disputes', 'transactions', 'accounts', 'cards', 'holds'],
  gate: 'verified',
  confirms: 'quote_dispute',
  run(args, ctx) {
    const held = checkHold(ctx, args.token, 'dispute', disputePayload);
    if (isRefusal(held)) return held;
    const p = held.payload;
    const member = verifiedMember(ctx);
    if (disputesOfMember(ctx.db).all({ member: member.id }).some((d) => d.transaction_id === p.transaction_id)) return refuse('DISPUTE_EXISTS', { recoverable: false });
    const id = `dsp_${p.transaction_id.slice(4)}`;
    insertDispute(ctx.db).run({ id, member_id: member.id, transaction_id: p.transaction_id, reason: p.reason, amount_cents: p.amount_cents, provisional_credit_on: p.provisional_credit_on, decide_by: p.decide_by, status: 'open', created_at: ctx.clock.now() });
    const today = p.provisional_credit_on === ctx.clock.today();
    if (today && accountsOf(ctx, member.id).some((a) => a.id === p.account_id)) {
      insertTransaction(ctx.db).run({ id: `txn_credit_${p.transaction_id.slice(4)}`, account_id: p.account_id, posted_on: ctx.clock.today(), description: 'Provisional dispute credit', kind: 'provisional_credit', amount_cents: p.amount_cents, card_id: null, status: 'posted' });
      adjustBalance(ctx, p.account_id, member.id, p.amount_cents);
    }
    const card = cardsOf(ctx, member.id).find((c) => c.id === p.card_id);
    if (p.reason === 'unauthorized' && card?.status === 'active') setCardStatus(ctx, card.id, 'locked');
    markHoldUsed(ctx.db, held.token);
    return ok({ dispute_id: id, status: 'open' as const, provisional_credit_on: day(p.provisional_credit_on, ctx.clock.today()), credited_today: today, decide_by: day(p.decide_by, ctx.clock.today()) });
  },
});

export const listDisputes = defineTool({
  name: 'list_disputes',
  description:
    'Use when: a verified member asks about a dispute already open. Returns: each dispute with the merchant, amount, provisional credit date and decision date in words. Do not use for: opening one. Errors: NOT_VERIFIED.',
  input: z.object({}),
  output: z.object({ disputes: z.array(z.object({ dispute_id: z.string(), transaction_id: z.string(), reason: z.string(), amount: amountOut, provisional_credit_on: dayOut, decide_by: dayOut, status: z.string() })) }),
  effect: 'read',
  writes: [],
  gate: 'verified',
  run(_args, ctx) {
    const member = verifiedMember(ctx);
    return ok({
      disputes: disputesOfMember(ctx.db)
        .all({ member: member.id })
        .map((d) => ({ dispute_id: d.id, transaction_id: d.transaction_id, reason: d.reason, amount: money(d.amount_cents), provisional_credit_on: day(d.provisional_credit_on, ctx.clock.today()), decide_by: day(d.decide_by, ctx.clock.today()), status: d.status })),
    });
  },
});

export const findCardPurchases = defineTool({
  name: 'find_card_purchases',
  description:
    'Use when: a verified member wants to dispute a card purchase and you need its transaction_id. Returns: card purchases newest first, from from_date (default thirty days back), with merchant, date and amount in words and the card last four digits. Do not use for: fees, deposits or transfers. Errors: NOT_VERIFIED.',
  input: z.object({ from_date: dateField.optional().describe('Earliest posting date, YYYY-MM-DD.') }),
  output: z.object({
    purchases: z.array(z.object({ transaction_id: z.string(), merchant: z.string(), posted: dayOut, amount: amountOut, card_last4: z.string() })),
    from: dayOut,
  }),
  effect: 'read',
  writes: [],
  gate: 'verified',
  normalize: (raw) => normalizeFields(raw, { from_date: readDate }),
  run(args, ctx) {
    const member = verifiedMember(ctx);
    const from = args.from_date ?? ctx.clock.addDays(ctx.clock.today(), -30);
    const cardLast4 = new Map(cardsOf(ctx, member.id).map((c) => [c.id, c.last4]));
    const rows = accountsOf(ctx, member.id)
      .flatMap((a) => transactionsOfAccount(ctx, a.id))
      .filter((t) => t.kind === 'purchase' && t.card_id !== null && t.posted_on >= from)
      .sort((a, b) => (a.posted_on === b.posted_on ? a.id.localeCompare(b.id) : a.posted_on < b.posted_on ? 1 : -1));
    return ok({
      purchases: rows.map((t) => ({ transaction_id: t.id, merchant: t.description, posted: day(t.posted_on, ctx.clock.today()), amount: money(-t.amount_cents), card_last4: cardLast4.get(t.card_id ?? '') ?? '' })),
      from: day(from, ctx.clock.today()),
    });
  },
});
