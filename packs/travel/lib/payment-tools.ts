import { eq } from 'drizzle-orm';
import { z } from 'zod';
import { checkHold, dateInWords, defineTool, markHoldUsed, moneyInWords, normalizeFields, numberInWords, ok, openHold, param, preparedQuery, refuse, rowInsert } from '../../../src/packs/index.ts';
import { refunds, segments, travelCredits } from '../schema.ts';
import { readCode, segmentIdField, tokenField } from './fields.ts';
import { significantlyDisrupted } from './disruption-tools.ts';
import { policy } from './policy.ts';
import { flightOf, isRefusal, ownSegment, passengersOf, releaseSeats, verifiedBooking } from './records.ts';

/** Refunds for flights the airline cancelled or significantly delayed, and travel credits. */

const creditsOf = preparedQuery((db) => db.select().from(travelCredits).where(eq(travelCredits.booking_id, param('booking'))).orderBy(travelCredits.id).prepare());
const setSegmentStatus = preparedQuery((db) => db.update(segments).set({ status: param('status') }).where(eq(segments.id, param('id'))).prepare());
const insertRefund = rowInsert(refunds);
const insertCredit = rowInsert(travelCredits);

const METHODS = ['original_payment', 'travel_credit'] as const;
const refundPayload = z.object({ segment_id: z.string(), method: z.enum(METHODS), amount_cents: z.number().int() });

export const quoteRefund = defineTool({
  name: 'quote_refund',
  description:
    'Use when: a traveler whose flight was cancelled or delayed three hours or more wants their money back instead of another flight. method original_payment refunds the card; travel_credit adds the stated bonus. Returns: a token, the amount for everyone on the booking and a script. Writes nothing. Do not use for: voluntary cancellations. Errors: NOT_VERIFIED, SEGMENT_NOT_FOUND, SEGMENT_NOT_ACTIVE, NOT_REFUNDABLE.',
  input: z.object({ segment_id: segmentIdField, method: z.enum(METHODS).describe('"Back to my card" is original_payment; "a credit" or "voucher" is travel_credit.') }),
  output: z.object({ token: z.string(), method: z.enum(METHODS), amount_cents: z.number().int(), amount_spoken: z.string(), script: z.string() }),
  effect: 'read',
  writes: ['holds', 'call_session'],
  gate: 'verified',
  normalize: (raw) => normalizeFields(raw, { segment_id: readCode, method: readCode }),
  run(args, ctx) {
    const booking = verifiedBooking(ctx);
    const seg = ownSegment(ctx, booking, args.segment_id);
    if (isRefusal(seg)) return seg;
    if (!significantlyDisrupted(flightOf(ctx.db, seg))) return refuse('NOT_REFUNDABLE', { recoverable: false });
    const paid = seg.fare_paid_cents * passengersOf(ctx.db).all({ booking: booking.id }).length;
    const amount = args.method === 'travel_credit' ? paid + Math.round((paid * policy.credit_bonus_percent) / 100) : paid;
    const token = openHold(ctx, { kind: 'refund', target: seg.id, payload: { segment_id: seg.id, method: args.method, amount_cents: amount } });
    const script =
      args.method === 'original_payment'
        ? `I can refund ${moneyInWords(amount)} to the original form of payment. It reaches your account within ${numberInWords(policy.refund_business_days)} business days, and this flight comes off your booking. Shall I go ahead?`
        : `I can give you a travel credit of ${moneyInWords(amount)}, which includes a ${numberInWords(policy.credit_bonus_percent)} percent bonus, valid for ${numberInWords(policy.travel_credit_valid_months)} months, and this flight comes off your booking. Shall I go ahead?`;
    return ok({ token, method: args.method, amount_cents: amount, amount_spoken: moneyInWords(amount), script });
  },
});

export const confirmRefund = defineTool({
  name: 'confirm_refund',
  description:
    'Use when: the traveler agreed to the refund or credit you quoted. Returns: the amount and method, and the flight is removed from the booking. Do not use for: a refund you have not quoted. Errors: NOT_VERIFIED, TOKEN_UNKNOWN, TOKEN_WRONG_KIND, TOKEN_WRONG_OWNER, TOKEN_USED, TOKEN_SUPERSEDED, SEGMENT_NOT_ACTIVE.',
  input: z.object({ token: tokenField }),
  output: z.object({ method: z.enum(METHODS), amount_cents: z.number().int(), amount_spoken: z.string() }),
  effect: 'write',
  writes: ['refunds', 'travel_credits', 'segments', 'flights', 'holds', 'call_session'],
  gate: 'verified',
  confirms: 'quote_refund',
  run(args, ctx) {
    const held = checkHold(ctx, args.token, 'refund', refundPayload);
    if (isRefusal(held)) return held;
    const p = held.payload;
    const booking = verifiedBooking(ctx);
    const seg = ownSegment(ctx, booking, p.segment_id);
    if (isRefusal(seg)) return seg;
    setSegmentStatus(ctx.db).run({ status: 'refunded', id: seg.id });
    releaseSeats(ctx.db, seg.flight_id, passengersOf(ctx.db).all({ booking: booking.id }).length);
    insertRefund(ctx.db).run({ id: `rfd_${seg.id.slice(4)}`, booking_id: booking.id, segment_id: seg.id, method: p.method, amount_cents: p.amount_cents, reason: 'airline_disruption' });
    if (p.method === 'travel_credit') {
      const expires = `${Number(ctx.clock.today().slice(0, 4)) + 1}${ctx.clock.today().slice(4)}`;
      insertCredit(ctx.db).run({ id: `crd_${seg.id.slice(4)}`, booking_id: booking.id, amount_cents: p.amount_cents, expires_on: expires, status: 'active' });
    }
    markHoldUsed(ctx.db, held.token);
    return ok({ method: p.method, amount_cents: p.amount_cents, amount_spoken: moneyInWords(p.amount_cents) });
  },
});

export const listTravelCredits = defineTool({
  name: 'list_travel_credits',
  description:
    'Use when: a traveler asks what travel credit they have on this booking, how much, or until when. Returns: each credit with amount and expiry in words and whether it can still be used; a credit is usable through its expiry date. Do not use for: refunds. Errors: NOT_VERIFIED.',
  input: z.object({}),
  output: z.object({ credits: z.array(z.object({ credit_id: z.string(), amount_cents: z.number().int(), amount_spoken: z.string(), expires_on: z.string(), expires_on_spoken: z.string(), usable: z.boolean() })), usable_total_cents: z.number().int(), usable_total_spoken: z.string() }),
  effect: 'read',
  writes: ['call_session'],
  gate: 'verified',
  run(_args, ctx) {
    const booking = verifiedBooking(ctx);
    const credits = creditsOf(ctx.db)
      .all({ booking: booking.id })
      .map((c) => ({ credit_id: c.id, amount_cents: c.amount_cents, amount_spoken: moneyInWords(c.amount_cents), expires_on: c.expires_on, expires_on_spoken: dateInWords(c.expires_on, ctx.clock.today()), usable: c.status === 'active' && c.expires_on >= ctx.clock.today() }));
    const total = credits.filter((c) => c.usable).reduce((n, c) => n + c.amount_cents, 0);
    return ok({ credits, usable_total_cents: total, usable_total_spoken: moneyInWords(total) });
  },
});
