import { eq } from 'drizzle-orm';
import { z } from 'zod';
import { defineTool, ok, param, preparedQuery } from '../../../src/packs/index.ts';
import { disputes } from '../schema.ts';
import { describeScheduled, paymentsOfMember, scheduledOut } from './payment-tools.ts';
import { policy } from './policy.ts';
import { accountsOf, amountOut, cardsOf, day, daysBetween, dayOut, money, spokenEnding, transactionsOfAccount, verifiedMember } from './records.ts';

/** Identity's one read: the member's standing at a glance, for questions answered without another desk. */

const disputesOfMember = preparedQuery((db) => db.select().from(disputes).where(eq(disputes.member_id, param('member'))).prepare());

const FEE_KINDS = new Set(['overdraft_fee', 'returned_item_fee']);

export const getMemberOverview = defineTool({
  name: 'get_member_overview',
  description:
    'Use when: a verified member asks only a balance, which cards they hold, whether a mobile is on file, when an upcoming payment goes out, whether a fee was charged this month, or where an open dispute stands. Returns: those facts, amounts and dates in words. Do not use for: changing anything. Errors: NOT_VERIFIED.',
  input: z.object({}),
  output: z.object({
    first_name: z.string(),
    accounts: z.array(z.object({ nickname: z.string(), kind: z.string(), last4: z.string(), balance: amountOut, available: amountOut })),
    cards: z.array(z.object({ kind: z.string(), last4: z.string(), status: z.string() })),
    has_mobile: z.boolean(),
    mobile_on_file: z.string().nullable(),
    upcoming_payments: z.array(scheduledOut),
    recent_fees: z.array(z.object({ description: z.string(), posted: dayOut, amount: amountOut })),
    open_disputes: z.array(z.object({ dispute_id: z.string(), merchant: z.string(), amount: amountOut, provisional_credit_on: dayOut, decide_by: dayOut })),
  }),
  effect: 'read',
  writes: [],
  gate: 'verified',
  run(_args, ctx) {
    const member = verifiedMember(ctx);
    const accounts = accountsOf(ctx, member.id);
    const history = accounts.flatMap((a) => transactionsOfAccount(ctx, a.id));
    const merchant = new Map(history.map((t) => [t.id, t.description]));
    return ok({
      first_name: member.full_name.split(' ')[0] ?? member.full_name,
      accounts: accounts.map((a) => ({ nickname: a.nickname, kind: a.kind, last4: a.last4, balance: money(a.balance_cents), available: money(a.available_cents) })),
      cards: cardsOf(ctx, member.id).map((c) => ({ kind: c.kind, last4: c.last4, status: c.status })),
      has_mobile: member.mobile_phone !== null,
      mobile_on_file: member.mobile_phone ? spokenEnding(member.mobile_phone) : null,
      upcoming_payments: paymentsOfMember(ctx.db)
        .all({ member: member.id })
        .filter((p) => p.status === 'scheduled' || p.status === 'processing')
        .sort((a, b) => (a.send_on === b.send_on ? a.id.localeCompare(b.id) : a.send_on < b.send_on ? -1 : 1))
        .map((p) => describeScheduled(ctx, member, p)),
      recent_fees: history
        .filter((t) => FEE_KINDS.has(t.kind) && daysBetween(t.posted_on, ctx.clock.today()) <= policy.fee_refund_max_age_days)
        .map((t) => ({ description: t.description, posted: day(t.posted_on, ctx.clock.today()), amount: money(-t.amount_cents) })),
      open_disputes: disputesOfMember(ctx.db)
        .all({ member: member.id })
        .filter((d) => d.status === 'open')
        .map((d) => ({ dispute_id: d.id, merchant: merchant.get(d.transaction_id) ?? 'the merchant', amount: money(d.amount_cents), provisional_credit_on: day(d.provisional_credit_on, ctx.clock.today()), decide_by: day(d.decide_by, ctx.clock.today()) })),
    });
  },
});
