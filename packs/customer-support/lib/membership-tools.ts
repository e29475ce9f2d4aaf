import { eq } from 'drizzle-orm';
import { z } from 'zod';
import { checkHold, dateInWords, defineTool, markHoldUsed, moneyInWords, normalizeFields, numberInWords, ok, openHold, param, preparedQuery, readCallSession, refuse, rowById, rowInsert, setSessionFlags } from '../../../src/packs/index.ts';
import { membershipChanges, memberships, refunds } from '../schema.ts';
import { moneyDisplay, readBool, readCode, tokenField } from './fields.ts';
import { MEMBERSHIP_ACTIONS, MEMBERSHIP_DECISIONS, policy, TIER_NAMES, type Tier } from './policy.ts';
import { activeMembership, isRefusal, verifiedCustomer, type MembershipRow } from './records.ts';
import { addMonths, membershipMoney } from './rules.ts';

/** The membership desk: Kestrel Circle and Circle Elite, upgrades, cancellations and the save offer. */

const setTier = preparedQuery((db) => db.update(memberships).set({ tier: 'elite', paid_cents: param('paid') }).where(eq(memberships.id, param('id'))).prepare());
const setCancelled = preparedQuery((db) => db.update(memberships).set({ status: 'cancelled' }).where(eq(memberships.id, param('id'))).prepare());
const setRenewal = preparedQuery((db) => db.update(memberships).set({ renews_on: param('renews') }).where(eq(memberships.id, param('id'))).prepare());
const changeById = rowById(membershipChanges);
const insertChange = rowInsert(membershipChanges);
const insertRefund = rowInsert(refunds);

function tierOfRow(m: MembershipRow): Exclude<Tier, 'standard'> {
  return m.tier === 'elite' ? 'elite' : 'circle';
}

function moneyOf(m: MembershipRow, today: string) {
  return membershipMoney({ tier: tierOfRow(m), paidCents: m.paid_cents, joinedOn: m.joined_on, renewsOn: m.renews_on, today });
}

export const checkMembership = defineTool({
  name: 'check_membership',
  description:
    'Use when: a verified caller asks about their Kestrel Circle or Circle Elite membership: tier, join date, price paid, renewal, what an upgrade or a cancellation would come to. Returns: those facts with the whole months left and the full refund deadline. Do not use for: making a change. Errors: NOT_VERIFIED, NO_MEMBERSHIP.',
  input: z.object({}),
  output: z.object({
    tier: z.enum(['circle', 'elite']),
    tier_name: z.string(),
    joined_on: z.string(),
    joined_spoken: z.string(),
    paid_cents: z.number().int(),
    paid_display: z.string(),
    renews_on: z.string(),
    renews_spoken: z.string(),
    months_left: z.number().int(),
    days_since_joining: z.number().int(),
    full_refund_until: z.string(),
    upgrade_cents: z.number().int().nullable(),
    cancel_refund_cents: z.number().int(),
    cancel_refund_display: z.string(),
  }),
  effect: 'read',
  writes: ['call_session'],
  gate: 'verified',
  run(_args, ctx) {
    const c = verifiedCustomer(ctx);
    const m = activeMembership(ctx.db, c.id);
    if (!m) return refuse('NO_MEMBERSHIP', { recoverable: false });
    const money = moneyOf(m, ctx.clock.today());
    const tier = tierOfRow(m);
    return ok({
      tier,
      tier_name: TIER_NAMES[tier],
      joined_on: m.joined_on,
      joined_spoken: ctx.clock.spokenDate(m.joined_on),
      paid_cents: m.paid_cents,
      paid_display: moneyDisplay(m.paid_cents),
      renews_on: m.renews_on,
      renews_spoken: ctx.clock.spokenDate(m.renews_on),
      months_left: money.months_left,
      days_since_joining: money.days_since_joining,
      full_refund_until: ctx.clock.addDays(m.joined_on, policy.membership_full_refund_days),
      upgrade_cents: tier === 'circle' ? money.upgrade_cents : null,
      cancel_refund_cents: money.refund_cents,
      cancel_refund_display: moneyDisplay(money.refund_cents),
    });
  },
});

const changePayload = z.object({
  customer_id: z.string(),
  membership_id: z.string(),
  action: z.enum(MEMBERSHIP_ACTIONS),
  amount_cents: z.number().int(),
  save_offer: z.boolean(),
  new_renews_on: z.string().nullable(),
});
type ChangePayload = z.infer<typeof changePayload>;

function termsScript(p: ChangePayload, renewsSpoken: string, monthsLeft: number): string {
  if (p.action === 'upgrade') {
    return `Upgrading to Circle Elite today costs ${moneyInWords(p.amount_cents)}, for the ${numberInWords(monthsLeft)} whole months left before your renewal on ${renewsSpoken}, charged to the card on file. After that, Circle Elite renews at ${moneyInWords(policy.elite_price_cents)} a year. Do you agree?`;
  }
  return `Cancelling today ends your membership benefits right away and refunds ${moneyInWords(p.amount_cents)} to the card on file. Do you want to cancel?`;
}

function saveOfferScript(newRenewal: string): string {
  return `Before you go, I can add ${numberInWords(policy.save_offer_months_free)} months free to your membership at no charge, so it would renew on ${newRenewal} instead. Would you like that, or would you still like to cancel?`;
}

export const quoteMembershipChange = defineTool({
  name: 'quote_membership_change',
  description:
    'Use when: a verified member wants to upgrade from Circle to Circle Elite or to cancel. Returns: a token, the prorated charge or refund with its reason, the terms script and, on the first cancel quote of the call only, a save offer with its own script. Writes nothing. Do not use for: questions only, which check_membership answers. Errors: NOT_VERIFIED, NO_MEMBERSHIP, ALREADY_ELITE.',
  input: z.object({ action: z.enum(MEMBERSHIP_ACTIONS) }),
  output: z.object({
    token: z.string(),
    action: z.enum(MEMBERSHIP_ACTIONS),
    amount_cents: z.number().int(),
    amount_display: z.string(),
    amount_reason: z.string(),
    months_left: z.number().int(),
    save_offer: z.object({ months_free: z.number().int(), new_renews_on: z.string(), script: z.string() }).nullable(),
    requires_acknowledgement: z.literal(true),
    script: z.string(),
  }),
  effect: 'read',
  writes: ['holds', 'call_session'],
  gate: 'verified',
  normalize: (raw) => normalizeFields(raw, { action: readCode }),
  run(args, ctx) {
    const c = verifiedCustomer(ctx);
    const m = activeMembership(ctx.db, c.id);
    if (!m) return refuse('NO_MEMBERSHIP', { recoverable: false });
    if (args.action === 'upgrade' && m.tier === 'elite') return refuse('ALREADY_ELITE', { recoverable: false });
    const money = moneyOf(m, ctx.clock.today());
    // One save offer per call: only the first cancel quote carries it.
    const offer = args.action === 'cancel' && readCallSession(ctx.db).flags.save_offer_made !== true;
    const newRenewal = offer ? addMonths(m.renews_on, policy.save_offer_months_free) : null;
    if (offer) setSessionFlags(ctx.db, { save_offer_made: true });
    const amount = args.action === 'upgrade' ? money.upgrade_cents : money.refund_cents;
    const payload: ChangePayload = { customer_id: c.id, membership_id: m.id, action: args.action, amount_cents: amount, save_offer: offer, new_renews_on: newRenewal };
    const token = openHold(ctx, { kind: 'membership_change', target: m.id, payload });
    const reason =
      args.action === 'upgrade'
        ? `price difference of ${moneyDisplay(policy.elite_price_cents - policy.circle_price_cents)} times ${money.months_left} whole months left, divided by 12, rounded half up to the cent`
        : money.refund_reason;
    return ok({
      token,
      action: args.action,
      amount_cents: amount,
      amount_display: moneyDisplay(amount),
      amount_reason: reason,
      months_left: money.months_left,
      save_offer: newRenewal ? { months_free: policy.save_offer_months_free, new_renews_on: newRenewal, script: saveOfferScript(dateInWords(newRenewal, ctx.clock.today())) } : null,
      requires_acknowledgement: true as const,
      script: termsScript(payload, dateInWords(m.renews_on, ctx.clock.today()), money.months_left),
    });
  },
});

export const confirmMembershipChange = defineTool({
  name: 'confirm_membership_change',
  description:
    'Use when: the caller decided on the membership change you quoted. decision proceed carries out the upgrade or cancel and needs terms_acknowledged true after the terms script; accept_save_offer takes the quoted save offer instead of cancelling. Returns: the outcome and the amount charged or refunded. Do not use for: a change you have not quoted. Errors: NOT_VERIFIED, TOKEN_UNKNOWN, TOKEN_WRONG_KIND, TOKEN_WRONG_OWNER, TOKEN_USED, TOKEN_SUPERSEDED, ACK_REQUIRED, SAVE_OFFER_NOT_MADE, NO_MEMBERSHIP.',
  input: z.object({
    token: tokenField,
    decision: z.enum(MEMBERSHIP_DECISIONS).describe('proceed with the quoted change, or accept_save_offer instead of cancelling.'),
    terms_acknowledged: z.boolean().optional().describe('True once the caller agreed to the terms script; needed to proceed.'),
  }),
  output: z.object({
    outcome: z.enum(['upgraded', 'cancelled', 'save_offer_accepted']),
    tier: z.string(),
    amount_cents: z.number().int(),
    amount_display: z.string(),
    renews_on: z.string(),
    renews_spoken: z.string(),
  }),
  effect: 'write',
  writes: ['memberships', 'membership_changes', 'refunds', 'holds', 'call_session'],
  gate: 'verified',
  confirms: 'quote_membership_change',
  normalize: (raw) => normalizeFields(raw, { decision: readCode, terms_acknowledged: readBool }),
  run(args, ctx) {
    const held = checkHold(ctx, args.token, 'membership_change', changePayload);
    if (isRefusal(held)) return held;
    const p = held.payload;
    const c = verifiedCustomer(ctx);
    const m = activeMembership(ctx.db, c.id);
    if (!m || m.id !== p.membership_id) return refuse('NO_MEMBERSHIP', { recoverable: false });
    const now = ctx.clock.now();
    if (args.decision === 'accept_save_offer') {
      if (!p.save_offer || !p.new_renews_on) return refuse('SAVE_OFFER_NOT_MADE', { recoverable: true });
      setRenewal(ctx.db).run({ renews: p.new_renews_on, id: m.id });
      insertChange(ctx.db).run({ id: `mch_${m.id.slice(4)}_save_offer`, membership_id: m.id, customer_id: c.id, action: 'save_offer', amount_cents: 0, new_tier: null, created_at: now });
      markHoldUsed(ctx.db, held.token);
      return ok({ outcome: 'save_offer_accepted' as const, tier: TIER_NAMES[tierOfRow(m)], amount_cents: 0, amount_display: moneyDisplay(0), renews_on: p.new_renews_on, renews_spoken: ctx.clock.spokenDate(p.new_renews_on) });
    }
    if (args.terms_acknowledged !== true) {
      const money = moneyOf(m, ctx.clock.today());
      return refuse('ACK_REQUIRED', { recoverable: true, script: termsScript(p, dateInWords(m.renews_on, ctx.clock.today()), money.months_left) });
    }
    const id = `mch_${m.id.slice(4)}_${p.action}`;
    if (!changeById(ctx.db).get({ id })) insertChange(ctx.db).run({ id, membership_id: m.id, customer_id: c.id, action: p.action, amount_cents: p.amount_cents, new_tier: p.action === 'upgrade' ? 'elite' : null, created_at: now });
    if (p.action === 'upgrade') setTier(ctx.db).run({ paid: m.paid_cents + p.amount_cents, id: m.id });
    else {
      setCancelled(ctx.db).run({ id: m.id });
      const postsBy = ctx.clock.addBusinessDays(ctx.clock.today(), policy.refund_business_days);
      insertRefund(ctx.db).run({ id: `rfd_${id}`, customer_id: c.id, source: 'membership', source_id: id, amount_cents: p.amount_cents, status: 'issued', expected_by: postsBy, created_at: now });
    }
    markHoldUsed(ctx.db, held.token);
    return ok({
      outcome: p.action === 'upgrade' ? ('upgraded' as const) : ('cancelled' as const),
      tier: p.action === 'upgrade' ? TIER_NAMES.elite : TIER_NAMES[tierOfRow(m)],
      amount_cents: p.amount_cents,
      amount_display: moneyDisplay(p.amount_cents),
      renews_on: m.renews_on,
      renews_spoken: ctx.clock.spokenDate(m.renews_on),
    });
  },
});
