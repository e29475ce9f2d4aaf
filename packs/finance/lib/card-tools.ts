import { eq } from 'drizzle-orm';
import { z } from 'zod';
import { checkHold, defineTool, markHoldUsed, normalizeFields, ok, openHold, param, preparedQuery, refuse, rowById, rowInsert, type ToolContext, type ToolRefusal } from '../../../src/packs/index.ts';
import { cardReplacements, pinResets, travelNotices } from '../schema.ts';
import { dateField, last4Field, readBool, readCode, readDate, readDigits, tokenField } from './fields.ts';
import { policy, REPLACEMENT_REASONS } from './policy.ts';
import { amountOut, cardsOf, day, daysBetween, dayOut, isRefusal, money, ownCard, setCardStatus, spokenEnding, steppedUp, verifiedMember, type CardRow } from './records.ts';

/** Cards desk: lock and unlock, replacement with its delivery fee, travel notices and PIN resets. */

const noticesOfMember = preparedQuery((db) => db.select().from(travelNotices).where(eq(travelNotices.member_id, param('member'))).prepare());
const insertNotice = rowInsert(travelNotices);
const replacementById = rowById(cardReplacements);
const insertReplacement = rowInsert(cardReplacements);
const pinResetById = rowById(pinResets);
const insertPinReset = rowInsert(pinResets);

/** The member's card with these last four digits, unless it is missing or closed. */
function openCard(ctx: ToolContext, memberId: string, last4: string): CardRow | ToolRefusal {
  const card = ownCard(ctx, memberId, last4);
  if (isRefusal(card)) return card;
  return card.status === 'closed' ? refuse('CARD_CLOSED', { recoverable: false }) : card;
}

const card4 = last4Field.describe('Last four digits of the card, as the member says them.');

export const getCards = defineTool({
  name: 'get_cards',
  description:
    'Use when: a verified member asks about their cards, whether one is locked, or which travel notices are on file. Returns: each card by kind, last four digits and status, and the travel notices with dates in words. Do not use for: charges on a card. Errors: NOT_VERIFIED.',
  input: z.object({}),
  output: z.object({
    cards: z.array(z.object({ kind: z.string(), last4: z.string(), status: z.string() })),
    travel_notices: z.array(z.object({ destination: z.string(), start: dayOut, end: dayOut })),
  }),
  effect: 'read',
  writes: [],
  gate: 'verified',
  run(_args, ctx) {
    const member = verifiedMember(ctx);
    return ok({
      cards: cardsOf(ctx, member.id).map((c) => ({ kind: c.kind, last4: c.last4, status: c.status })),
      travel_notices: noticesOfMember(ctx.db).all({ member: member.id }).map((n) => ({ destination: n.destination, start: day(n.start_date, ctx.clock.today()), end: day(n.end_date, ctx.clock.today()) })),
    });
  },
});

export const updateCardLock = defineTool({
  name: 'update_card_lock',
  description:
    'Use when: a verified member wants a card locked (missing card, a charge they do not know) or unlocked; unlocking needs the one-time code first. Returns: the card status; repeating changes nothing. Do not use for: ordering a new card. Errors: NOT_VERIFIED, CARD_NOT_FOUND, CARD_CLOSED, STEP_UP_REQUIRED.',
  input: z.object({ card_last4: card4, locked: z.boolean().describe('True to lock, false to unlock.') }),
  output: z.object({ last4: z.string(), status: z.enum(['active', 'locked']), idempotent: z.boolean(), script: z.string() }),
  effect: 'write',
  writes: ['cards', 'call_session'],
  gate: 'verified',
  normalize: (raw) => normalizeFields(raw, { card_last4: readDigits, locked: readBool }),
  run(args, ctx) {
    const member = verifiedMember(ctx);
    const card = openCard(ctx, member.id, args.card_last4);
    if (isRefusal(card)) return card;
    const status = args.locked ? ('locked' as const) : ('active' as const);
    if (!args.locked && card.status === 'locked' && !steppedUp(ctx)) return refuse('STEP_UP_REQUIRED', { recoverable: true });
    const same = card.status === status;
    if (!same) setCardStatus(ctx, card.id, status);
    const script = args.locked
      ? 'The card is locked. New purchases and cash withdrawals will be declined until it is unlocked; automatic payments already set up keep going.'
      : 'The card is unlocked and ready to use.';
    return ok({ last4: card.last4, status, idempotent: same, script });
  },
});

const replacementPayload = z.object({ card_id: z.string(), reason: z.enum(REPLACEMENT_REASONS), delivery: z.enum(['standard', 'expedited']), fee_cents: z.number().int(), arrives_by: z.string() });

function replacementScript(fee: number): string | null {
  return fee > 0 ? `Expedited delivery costs ${money(fee).spoken}, charged to the account the card draws on. Do you accept the fee?` : null;
}

export const quoteCardReplacement = defineTool({
  name: 'quote_card_replacement',
  description:
    'Use when: a verified member needs a new card because theirs is lost, stolen, damaged or used for fraud. Returns: a token, the delivery fee (free for standard, and for stolen or fraud), the arrival date in words, what happens to the old card, and a script. Writes nothing. Do not use for: locking. Errors: NOT_VERIFIED, CARD_NOT_FOUND, CARD_CLOSED.',
  input: z.object({ card_last4: card4, reason: z.enum(REPLACEMENT_REASONS).describe('"I lost it" is lost; "someone took it" is stolen; "it is cracked or will not read" is damaged; "charges I did not make" is fraud.'), delivery: z.enum(['standard', 'expedited']) }),
  output: z.object({ token: z.string(), fee: amountOut, fee_reason: z.string(), arrives_by: dayOut, old_card: z.enum(['closed_now', 'works_until_new_card_arrives']), requires_acknowledgement: z.boolean(), script: z.string().nullable() }),
  effect: 'read',
  writes: ['holds', 'call_session'],
  gate: 'verified',
  normalize: (raw) => normalizeFields(raw, { card_last4: readDigits, reason: readCode, delivery: readCode }),
  run(args, ctx) {
    const member = verifiedMember(ctx);
    const card = openCard(ctx, member.id, args.card_last4);
    if (isRefusal(card)) return card;
    const free = args.reason === 'stolen' || args.reason === 'fraud';
    const fee = args.delivery === 'expedited' && !free ? policy.expedited_card_fee_cents : 0;
    const days = args.delivery === 'expedited' ? policy.expedited_card_business_days : policy.standard_card_business_days;
    const arrives = ctx.clock.addBusinessDays(ctx.clock.today(), days);
    const payload = { card_id: card.id, reason: args.reason, delivery: args.delivery, fee_cents: fee, arrives_by: arrives };
    const token = openHold(ctx, { kind: 'card_replacement', target: card.id, payload });
    const reason = args.delivery === 'standard' ? 'standard delivery is free' : free ? 'expedited delivery is free for a stolen card or fraud' : 'expedited delivery fee';
    return ok({
      token,
      fee: money(fee),
      fee_reason: reason,
      arrives_by: day(arrives, ctx.clock.today()),
      old_card: args.reason === 'damaged' ? ('works_until_new_card_arrives' as const) : ('closed_now' as const),
      requires_acknowledgement: fee > 0,
      script: replacementScript(fee),
    });
  },
});

export const confirmCardReplacement = defineTool({
  name: 'confirm_card_replacement',
  description:
    'Use when: the member agreed to the replacement you quoted; pass fee_acknowledged true only after they accept a quoted fee. Returns: the replacement, the arrival date in words and the old card status. Do not use for: a replacement you have not quoted. Errors: NOT_VERIFIED, TOKEN_UNKNOWN, TOKEN_WRONG_KIND, TOKEN_WRONG_OWNER, TOKEN_USED, TOKEN_SUPERSEDED, ACK_REQUIRED, CARD_CLOSED.',
  input: z.object({ token: tokenField, fee_acknowledged: z.boolean().optional().describe('True once the member accepted the quoted fee.') }),
  output: z.object({ replacement_id: z.string(), arrives_by: dayOut, fee: amountOut, old_card_status: z.string() }),
  effect: 'write',
  writes: ['card_replacements', 'cards', 'holds'],
  gate: 'verified',
  confirms: 'quote_card_replacement',
  normalize: (raw) => normalizeFields(raw, { fee_acknowledged: readBool }),
  run(args, ctx) {
    const held = checkHold(ctx, args.token, 'card_replacement', replacementPayload);
    if (isRefusal(held)) return held;
    const p = held.payload;
    const script = replacementScript(p.fee_cents);
    if (script && args.fee_acknowledged !== true) return refuse('ACK_REQUIRED', { recoverable: true, script });
    const member = verifiedMember(ctx);
    const card = cardsOf(ctx, member.id).find((c) => c.id === p.card_id);
    if (!card || card.status === 'closed') return refuse('CARD_CLOSED', { recoverable: false });
    const id = `rpl_${card.id.slice(4)}`;
    if (!replacementById(ctx.db).get({ id })) insertReplacement(ctx.db).run({ id, card_id: card.id, reason: p.reason, delivery: p.delivery, fee_cents: p.fee_cents, arrives_by: p.arrives_by, created_at: ctx.clock.now() });
    const status = p.reason === 'damaged' ? card.status : 'closed';
    setCardStatus(ctx, card.id, status);
    markHoldUsed(ctx.db, held.token);
    return ok({ replacement_id: id, arrives_by: day(p.arrives_by, ctx.clock.today()), fee: money(p.fee_cents), old_card_status: status });
  },
});

export const addTravelNotice = defineTool({
  name: 'add_travel_notice',
  description:
    'Use when: a verified member is travelling and wants their cards to keep working; one destination, first and last day, at most ninety days. Returns: the notice with dates in words; idempotent on repeats. Do not use for: unlocking a card. Errors: NOT_VERIFIED, DATE_IN_PAST, INVALID_DATE_RANGE, TRAVEL_RANGE_TOO_LONG.',
  input: z.object({
    destination: z.string().regex(/^[A-Za-z][A-Za-z .'-]{1,59}$/).describe('Where the member is going, as they say it: a country, a state or a city. A city is kept as said, without asking for its state or country; the notice covers purchases there.'),
    start_date: dateField,
    end_date: dateField,
  }),
  output: z.object({ notice_id: z.string(), destination: z.string(), start: dayOut, end: dayOut, days: z.number().int(), idempotent: z.boolean() }),
  effect: 'write',
  writes: ['travel_notices'],
  gate: 'verified',
  normalize: (raw) => normalizeFields(raw, { start_date: readDate, end_date: readDate }),
  run(args, ctx) {
    const member = verifiedMember(ctx);
    if (args.start_date < ctx.clock.today()) return refuse('DATE_IN_PAST', { recoverable: true });
    if (args.end_date < args.start_date) return refuse('INVALID_DATE_RANGE', { recoverable: true });
    const days = daysBetween(args.start_date, args.end_date) + 1;
    if (days > policy.travel_notice_max_days) return refuse('TRAVEL_RANGE_TOO_LONG', { recoverable: true, days, max_days: policy.travel_notice_max_days, last_day: day(ctx.clock.addDays(args.start_date, policy.travel_notice_max_days - 1), ctx.clock.today()) });
    const destination = args.destination.trim().replace(/\s+/g, ' ');
    const id = `trv_${member.id.slice(4)}_${args.start_date.replaceAll('-', '')}`;
    const existing = noticesOfMember(ctx.db).all({ member: member.id }).find((n) => n.id === id);
    const same = existing?.end_date === args.end_date && existing.destination.toLowerCase() === destination.toLowerCase();
    if (!same) {
      if (existing) return refuse('INVALID_DATE_RANGE', { recoverable: true });
      insertNotice(ctx.db).run({ id, member_id: member.id, destination, start_date: args.start_date, end_date: args.end_date, created_at: ctx.clock.now() });
    }
    return ok({ notice_id: id, destination, start: day(args.start_date, ctx.clock.today()), end: day(args.end_date, ctx.clock.today()), days, idempotent: same });
  },
});

export const sendPinReset = defineTool({
  name: 'send_pin_reset',
  description:
    'Use when: a verified member who passed the one-time code forgot a card PIN. Texts a secure link to set a new PIN to the mobile on file; nobody says a PIN on the phone. Returns: where it went and a script. Do not use for: a number the caller gives. Errors: NOT_VERIFIED, STEP_UP_REQUIRED, CARD_NOT_FOUND, CARD_CLOSED, NO_MOBILE_ON_FILE.',
  input: z.object({ card_last4: card4 }),
  output: z.object({ sent_to: z.string(), idempotent: z.boolean(), script: z.string() }),
  effect: 'write',
  writes: ['pin_resets', 'call_session'],
  gate: 'verified',
  normalize: (raw) => normalizeFields(raw, { card_last4: readDigits }),
  run(args, ctx) {
    const member = verifiedMember(ctx);
    const card = openCard(ctx, member.id, args.card_last4);
    if (isRefusal(card)) return card;
    if (!member.mobile_phone) return refuse('NO_MOBILE_ON_FILE', { recoverable: false });
    if (!steppedUp(ctx)) return refuse('STEP_UP_REQUIRED', { recoverable: true });
    const id = `pin_${card.id.slice(4)}`;
    const existing = pinResetById(ctx.db).get({ id });
    if (!existing) insertPinReset(ctx.db).run({ id, card_id: card.id, sent_to: member.mobile_phone, created_at: ctx.clock.now() });
    const ending = spokenEnding(member.mobile_phone);
    return ok({ sent_to: ending, idempotent: existing !== undefined, script: `I texted a secure link to the mobile number ${ending}. Open it to choose a new PIN. Nobody from Fennwood will ever ask you to say your PIN.` });
  },
});
