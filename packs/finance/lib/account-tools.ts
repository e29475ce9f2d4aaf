import { eq } from 'drizzle-orm';
import { z } from 'zod';
import { defineTool, normalizeFields, ok, param, preparedQuery, refuse, rowInsert, type ToolContext, type ToolRefusal } from '../../../src/packs/index.ts';
import { accounts, feeRefunds, transactions } from '../schema.ts';
import { accountIdField, dateField, readCode, readDate, transactionIdField } from './fields.ts';
import { policy } from './policy.ts';
import { accountsOf, amountOut, cardsOf, day, dayOut, daysBetween, isRefusal, money, ownAccount, ownTransaction, transactionsOfAccount, verifiedMember, type MemberRow, type TransactionRow } from './records.ts';

/** Accounts desk: balances, transactions and courtesy fee refunds. */

const refundsOfMember = preparedQuery((db) => db.select().from(feeRefunds).where(eq(feeRefunds.member_id, param('member'))).prepare());
const insertRefund = rowInsert(feeRefunds);
const insertTransaction = rowInsert(transactions);
const addToBalance = preparedQuery((db) =>
  db
    .update(accounts)
    .set({ balance_cents: param('balance'), available_cents: param('available') })
    .where(eq(accounts.id, param('id')))
    .prepare(),
);


export const getAccounts = defineTool({
  name: 'get_accounts',
  description:
    'Use when: a verified member asks a balance, or a desk needs the account_id of an account to move money from or look into. Returns: each account with its account_id, nickname, last four digits, current and available balance in cents and in words. Do not use for: transactions. Errors: NOT_VERIFIED.',
  input: z.object({}),
  output: z.object({
    accounts: z.array(z.object({ account_id: z.string(), nickname: z.string(), kind: z.string(), last4: z.string(), balance: amountOut, available: amountOut })),
    note: z.string(),
  }),
  effect: 'read',
  writes: [],
  gate: 'verified',
  run(_args, ctx) {
    const member = verifiedMember(ctx);
    return ok({
      accounts: accountsOf(ctx, member.id).map((a) => ({ account_id: a.id, nickname: a.nickname, kind: a.kind, last4: a.last4, balance: money(a.balance_cents), available: money(a.available_cents) })),
      note: 'The available balance leaves out pending card purchases; say the available balance when the member asks what they can spend.',
    });
  },
});

const transactionOut = z.object({
  transaction_id: z.string(),
  account_id: z.string(),
  posted: dayOut,
  description: z.string(),
  kind: z.string(),
  amount: amountOut,
  direction: z.enum(['debit', 'credit']),
  status: z.string(),
  card_last4: z.string().nullable(),
});

export const listTransactions = defineTool({
  name: 'list_transactions',
  description:
    'Use when: a verified member asks about recent activity, a deposit, a fee or a charge, or a desk needs the transaction_id of a charge or fee. Returns: transactions newest first, from from_date (default thirty days back), each with its transaction_id, date and amount in words, kind and card. Do not use for: balances. Errors: NOT_VERIFIED, ACCOUNT_NOT_FOUND.',
  input: z.object({
    account_id: accountIdField.optional().describe('One account; every account when left out.'),
    from_date: dateField.optional().describe('Earliest posting date, YYYY-MM-DD.'),
  }),
  output: z.object({ transactions: z.array(transactionOut), from: dayOut }),
  effect: 'read',
  writes: [],
  gate: 'verified',
  normalize: (raw) => normalizeFields(raw, { account_id: readCode, from_date: readDate }),
  run(args, ctx) {
    const member = verifiedMember(ctx);
    let list = accountsOf(ctx, member.id);
    if (args.account_id) {
      const one = ownAccount(ctx, member.id, args.account_id);
      if (isRefusal(one)) return one;
      list = [one];
    }
    const from = args.from_date ?? ctx.clock.addDays(ctx.clock.today(), -30);
    const cardLast4 = new Map(cardsOf(ctx, member.id).map((c) => [c.id, c.last4]));
    const rows = list
      .flatMap((a) => transactionsOfAccount(ctx, a.id))
      .filter((t) => t.posted_on >= from)
      .sort((a, b) => (a.posted_on === b.posted_on ? a.id.localeCompare(b.id) : a.posted_on < b.posted_on ? 1 : -1));
    return ok({
      transactions: rows.map((t) => ({
        transaction_id: t.id,
        account_id: t.account_id,
        posted: day(t.posted_on, ctx.clock.today()),
        description: t.description,
        kind: t.kind,
        amount: money(Math.abs(t.amount_cents)),
        direction: t.amount_cents < 0 ? ('debit' as const) : ('credit' as const),
        status: t.status,
        card_last4: t.card_id ? (cardLast4.get(t.card_id) ?? null) : null,
      })),
      from: day(from, ctx.clock.today()),
    });
  },
});

const REFUNDABLE_FEES = new Set(['overdraft_fee', 'returned_item_fee']);

/** The policy decision on one fee: the fee row, or the refusal that names the rule it fails. */
function refundableFee(ctx: ToolContext, member: MemberRow, transactionId: string): TransactionRow | ToolRefusal {
  const fee = ownTransaction(ctx, member.id, transactionId);
  if (isRefusal(fee)) return fee;
  if (!REFUNDABLE_FEES.has(fee.kind)) return refuse('NOT_A_FEE', { recoverable: false });
  const refunds = refundsOfMember(ctx.db).all({ member: member.id });
  if (refunds.some((r) => r.fee_transaction_id === fee.id)) return refuse('FEE_ALREADY_REFUNDED', { recoverable: false });
  const age = daysBetween(fee.posted_on, ctx.clock.today());
  if (age > policy.fee_refund_max_age_days) return refuse('FEE_TOO_OLD', { recoverable: false, days_since_posted: age, max_days: policy.fee_refund_max_age_days });
  const recent = refunds.find((r) => daysBetween(r.created_at.slice(0, 10), ctx.clock.today()) < policy.fee_refund_once_per_days);
  if (recent) return refuse('FEE_REFUND_USED', { recoverable: false, last_refund: day(recent.created_at.slice(0, 10), ctx.clock.today()), next_eligible: day(ctx.clock.addDays(recent.created_at.slice(0, 10), policy.fee_refund_once_per_days), ctx.clock.today()) });
  return fee;
}

export const checkFeeRefund = defineTool({
  name: 'check_fee_refund',
  description:
    'Use when: a verified member asks whether an overdraft or returned item fee can be refunded; pass the fee transaction_id from list_transactions. Returns: eligible with the amount and a script, or the refusal naming the rule. Writes nothing. Do not use for: refunding it. Errors: NOT_VERIFIED, TRANSACTION_NOT_FOUND, NOT_A_FEE, FEE_ALREADY_REFUNDED, FEE_TOO_OLD, FEE_REFUND_USED.',
  input: z.object({ transaction_id: transactionIdField }),
  output: z.object({ eligible: z.literal(true), amount: amountOut, posted: dayOut, script: z.string() }),
  effect: 'read',
  writes: [],
  gate: 'verified',
  normalize: (raw) => normalizeFields(raw, { transaction_id: readCode }),
  run(args, ctx) {
    const fee = refundableFee(ctx, verifiedMember(ctx), args.transaction_id);
    if (isRefusal(fee)) return fee;
    const amount = money(-fee.amount_cents);
    return ok({ eligible: true as const, amount, posted: day(fee.posted_on, ctx.clock.today()), script: `This fee of ${amount.spoken} qualifies for our one courtesy refund in twelve months. Would you like me to refund it now?` });
  },
});

export const requestFeeRefund = defineTool({
  name: 'request_fee_refund',
  description:
    'Use when: check_fee_refund said eligible and the member said yes. Credits the fee back to the same account today; the rule, not the agent, decides. Returns: the refund and the new current and available balances in words (say the available one, as for a balance); idempotent on repeats. Do not use for: a fee check_fee_refund refused. Errors: NOT_VERIFIED, TRANSACTION_NOT_FOUND, NOT_A_FEE, FEE_ALREADY_REFUNDED, FEE_TOO_OLD, FEE_REFUND_USED.',
  input: z.object({ transaction_id: transactionIdField }),
  output: z.object({ refund_id: z.string(), amount: amountOut, new_balance: amountOut, new_available: amountOut, idempotent: z.boolean() }),
  effect: 'write',
  writes: ['fee_refunds', 'transactions', 'accounts'],
  gate: 'verified',
  normalize: (raw) => normalizeFields(raw, { transaction_id: readCode }),
  run(args, ctx) {
    const member = verifiedMember(ctx);
    const id = `rfd_${args.transaction_id.slice(4)}`;
    const done = refundsOfMember(ctx.db).all({ member: member.id }).find((r) => r.id === id);
    if (done) {
      const fee = ownTransaction(ctx, member.id, args.transaction_id);
      const account = isRefusal(fee) ? undefined : accountsOf(ctx, member.id).find((a) => a.id === fee.account_id);
      return ok({ refund_id: id, amount: money(done.amount_cents), new_balance: money(account?.balance_cents ?? 0), new_available: money(account?.available_cents ?? 0), idempotent: true });
    }
    const fee = refundableFee(ctx, member, args.transaction_id);
    if (isRefusal(fee)) return fee;
    const account = ownAccount(ctx, member.id, fee.account_id);
    if (isRefusal(account)) return account;
    const cents = -fee.amount_cents;
    insertRefund(ctx.db).run({ id, member_id: member.id, fee_transaction_id: fee.id, amount_cents: cents, created_at: ctx.clock.now() });
    insertTransaction(ctx.db).run({ id: `txn_refund_${fee.id.slice(4)}`, account_id: account.id, posted_on: ctx.clock.today(), description: 'Courtesy fee refund', kind: 'fee_refund', amount_cents: cents, card_id: null, status: 'posted' });
    addToBalance(ctx.db).run({ id: account.id, balance: account.balance_cents + cents, available: account.available_cents + cents });
    return ok({ refund_id: id, amount: money(cents), new_balance: money(account.balance_cents + cents), new_available: money(account.available_cents + cents), idempotent: false });
  },
});

/** Moves an account's balance and available balance by an amount (negative for a debit). */
export function adjustBalance(ctx: ToolContext, accountId: string, memberId: string, cents: number): void {
  const account = ownAccount(ctx, memberId, accountId);
  if (isRefusal(account)) return;
  addToBalance(ctx.db).run({ id: account.id, balance: account.balance_cents + cents, available: account.available_cents + cents });
}
