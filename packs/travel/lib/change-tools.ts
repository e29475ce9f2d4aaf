import { eq } from 'drizzle-orm';
import { z } from 'zod';
import { checkHold, dateInWords, defineTool, markHoldUsed, moneyInWords, normalizeFields, numberInWords, ok, openHold, param, preparedQuery, refuse, rowInsert, timeInWords, type ToolContext } from '../../../src/packs/index.ts';
import { bookings, charges, refunds, segments, travelCredits } from '../schema.ts';
import { FREE_WINDOW_WORDS, flightOut } from './booking-tools.ts';
import { flightIdField, readBool, readCode, segmentIdField, tokenField } from './fields.ts';
import { policy } from './policy.ts';
import { activeSegmentsOf, describeFlight, flightById, flightOf, isRefusal, minutesBetween, money, ownSegment, passengersOf, releaseSeats, takeSeats, verifiedBooking, type BookingRow } from './records.ts';

/** Ticketing: voluntary changes and cancellations, priced by the fare rules in two steps. */

const setSegmentStatus = preparedQuery((db) => db.update(segments).set({ status: param('status') }).where(eq(segments.id, param('id'))).prepare());
const setBookingStatus = preparedQuery((db) => db.update(bookings).set({ status: param('status') }).where(eq(bookings.id, param('id'))).prepare());
const insertSegment = rowInsert(segments);
const insertCharge = rowInsert(charges);
const insertRefund = rowInsert(refunds);
const insertCredit = rowInsert(travelCredits);

/** The twenty-four hour rule: booked this recently (inclusive) and departing at least a week after booking. */
export function withinFreeWindow(ctx: ToolContext, booking: BookingRow, departsAt: string): boolean {
  const hoursSinceBooking = minutesBetween(booking.booked_at, ctx.clock.now()) / 60;
  const daysAhead = minutesBetween(booking.booked_at, departsAt) / (60 * 24);
  return hoursSinceBooking <= policy.free_cancel_booking_hours && daysAhead >= policy.free_cancel_min_days_before_departure;
}

const changePayload = z.object({ segment_id: z.string(), new_flight_id: z.string(), fee_cents: z.number().int(), difference_cents: z.number().int(), new_fare_paid_cents: z.number().int() });

export const quoteFlightChange = defineTool({
  name: 'quote_flight_change',
  description:
    'Use when: a traveler wants to move a booked flight to another flight on the same route, by choice; pass the new flight from find_flights. Returns: a token, the change fee and fare difference for everyone on the booking with reasons, the total and a script. Writes nothing. Do not use for: cancelled or delayed flights. Errors: NOT_VERIFIED, SEGMENT_NOT_FOUND, SEGMENT_NOT_ACTIVE, FARE_NOT_CHANGEABLE, FLIGHT_NOT_AVAILABLE, ROUTE_MISMATCH, SAME_FLIGHT, FLIGHT_FULL.',
  input: z.object({ segment_id: segmentIdField, new_flight_id: flightIdField }),
  output: z.object({
    token: z.string(),
    current: flightOut,
    new_flight: flightOut,
    fee_cents: z.number().int(),
    fee_reason: z.string(),
    difference_cents: z.number().int(),
    total_cents: z.number().int(),
    total_spoken: z.string(),
    requires_acknowledgement: z.boolean(),
    script: z.string(),
  }),
  effect: 'read',
  writes: ['holds', 'call_session'],
  gate: 'verified',
  normalize: (raw) => normalizeFields(raw, { segment_id: readCode, new_flight_id: readCode }),
  run(args, ctx) {
    const booking = verifiedBooking(ctx);
    const seg = ownSegment(ctx, booking, args.segment_id);
    if (isRefusal(seg)) return seg;
    const current = flightOf(ctx.db, seg);
    const free = withinFreeWindow(ctx, booking, current.departs_at);
    if (booking.fare_family === 'basic' && !free) return refuse('FARE_NOT_CHANGEABLE', { recoverable: false });
    const target = flightById(ctx.db).get({ id: args.new_flight_id });
    if (!target || target.status === 'cancelled' || target.departs_at <= ctx.clock.now()) return refuse('FLIGHT_NOT_AVAILABLE', { recoverable: true });
    if (target.id === current.id) return refuse('SAME_FLIGHT', { recoverable: true });
    if (target.origin !== current.origin || target.destination !== current.destination) return refuse('ROUTE_MISMATCH', { recoverable: true });
    const party = passengersOf(ctx.db).all({ booking: booking.id }).length;
    if (target.seats_left < party) return refuse('FLIGHT_FULL', { recoverable: true, seats_left: target.seats_left, party_size: party });
    const sameDay = target.departs_at.slice(0, 10) === current.departs_at.slice(0, 10);
    const flex = booking.fare_family === 'flex';
    const fee = free || flex ? 0 : (sameDay ? policy.same_day_change_fee_cents : policy.main_change_fee_cents) * party;
    const difference = sameDay ? 0 : Math.max(0, target.fare_cents - seg.fare_paid_cents) * party;
    const reason = free
      ? `${FREE_WINDOW_WORDS}: no change fee`
      : flex
        ? 'flex fare: no change fee'
        : sameDay
          ? 'same day change: flat fee per traveler, no fare difference'
          : 'main cabin change fee per traveler, plus any higher fare';
    const total = fee + difference;
    const token = openHold(ctx, { kind: 'flight_change', target: seg.id, payload: { segment_id: seg.id, new_flight_id: target.id, fee_cents: fee, difference_cents: difference, new_fare_paid_cents: sameDay ? seg.fare_paid_cents : Math.max(target.fare_cents, seg.fare_paid_cents) } });
    const script =
      total > 0
        ? `Moving to this flight costs ${moneyInWords(fee)} in change fees and ${moneyInWords(difference)} in fare difference, ${moneyInWords(total)} in total, charged to the card used for the booking. Do you want to go ahead?`
        : 'Moving to this flight costs nothing. Do you want to go ahead?';
    return ok({ token, current: describeFlight(current), new_flight: describeFlight(target), fee_cents: fee, fee_reason: reason, difference_cents: difference, total_cents: total, total_spoken: moneyInWords(total), requires_acknowledgement: total > 0, script });
  },
});

export const confirmFlightChange = defineTool({
  name: 'confirm_flight_change',
  description:
    'Use when: the traveler agreed to the change you quoted; pass fee_acknowledged true only after they accepted a quoted amount. Returns: the new flight and the amount charged. Do not use for: a change you have not quoted. Errors: NOT_VERIFIED, TOKEN_UNKNOWN, TOKEN_WRONG_KIND, TOKEN_WRONG_OWNER, TOKEN_USED, TOKEN_SUPERSEDED, ACK_REQUIRED, SEGMENT_NOT_ACTIVE, FLIGHT_FULL.',
  input: z.object({ token: tokenField, fee_acknowledged: z.boolean().optional().describe('True once the traveler accepted the quoted amount.') }),
  output: z.object({ new_segment_id: z.string(), flight: flightOut, charged_cents: z.number().int(), charged_spoken: z.string() }),
  effect: 'write',
  writes: ['segments', 'charges', 'flights', 'holds', 'call_session'],
  gate: 'verified',
  confirms: 'quote_flight_change',
  normalize: (raw) => normalizeFields(raw, { fee_acknowledged: readBool }),
  run(args, ctx) {
    const held = checkHold(ctx, args.token, 'flight_change', changePayload);
    if (isRefusal(held)) return held;
    const p = held.payload;
    const total = p.fee_cents + p.difference_cents;
    if (total > 0 && args.fee_acknowledged !== true) return refuse('ACK_REQUIRED', { recoverable: true });
    const booking = verifiedBooking(ctx);
    const seg = ownSegment(ctx, booking, p.segment_id);
    if (isRefusal(seg)) return seg;
    const target = flightById(ctx.db).get({ id: p.new_flight_id });
    const party = passengersOf(ctx.db).all({ booking: booking.id }).length;
    if (!target || target.seats_left < party) return refuse('FLIGHT_FULL', { recoverable: true });
    const newId = `seg_${booking.id.toLowerCase()}_${target.id.slice(4)}`;
    setSegmentStatus(ctx.db).run({ status: 'replaced', id: seg.id });
    insertSegment(ctx.db).run({ id: newId, booking_id: booking.id, flight_id: target.id, fare_paid_cents: p.new_fare_paid_cents, status: 'active' });
    takeSeats(ctx.db, target, party);
    releaseSeats(ctx.db, seg.flight_id, party);
    const now = ctx.clock.now();
    if (p.fee_cents > 0) insertCharge(ctx.db).run({ id: `chg_${newId.slice(4)}_fee`, booking_id: booking.id, kind: 'change_fee', amount_cents: p.fee_cents, created_at: now });
    if (p.difference_cents > 0) insertCharge(ctx.db).run({ id: `chg_${newId.slice(4)}_fare`, booking_id: booking.id, kind: 'fare_difference', amount_cents: p.difference_cents, created_at: now });
    markHoldUsed(ctx.db, held.token);
    return ok({ new_segment_id: newId, flight: describeFlight(target), charged_cents: total, charged_spoken: moneyInWords(total) });
  },
});

const cancelPayload = z.object({ outcome: z.enum(['refund', 'travel_credit', 'nothing']), amount_cents: z.number().int(), reason: z.string() });

function cancellationTerms(ctx: ToolContext, booking: BookingRow) {
  const segs = activeSegmentsOf(ctx.db).all({ booking: booking.id });
  const party = passengersOf(ctx.db).all({ booking: booking.id }).length;
  const paid = segs.reduce((n, s) => n + s.fare_paid_cents, 0) * party;
  const first = segs[0];
  if (first && withinFreeWindow(ctx, booking, flightOf(ctx.db, first).departs_at)) return { outcome: 'refund' as const, amount_cents: paid, reason: 'twenty_four_hour_rule', segs };
  if (booking.fare_family === 'flex') return { outcome: 'refund' as const, amount_cents: paid, reason: 'flex_fare', segs };
  if (booking.fare_family === 'main') return { outcome: 'travel_credit' as const, amount_cents: paid, reason: 'main_fare', segs };
  return { outcome: 'nothing' as const, amount_cents: 0, reason: 'basic_fare', segs };
}

function cancelScript(outcome: string, cents: number): string {
  if (outcome === 'refund') return `Cancelling refunds ${moneyInWords(cents)} to the original payment within ${numberInWords(policy.refund_business_days)} business days. Do you want to cancel the whole booking?`;
  if (outcome === 'travel_credit') return `Cancelling turns ${moneyInWords(cents)} into a travel credit valid for ${numberInWords(policy.travel_credit_valid_months)} months; it is not refunded to your card. Do you want to cancel the whole booking?`;
  return 'This is a basic fare, so cancelling returns no money and no credit. Do you still want to cancel the whole booking?';
}

/** When the booking was made, in words, and, when it gets no twenty-four hour refund, why not. */
function bookingAge(ctx: ToolContext, booking: BookingRow, reason: string): { booked_at_spoken: string; note: string } {
  const [date = '', time = '00:00'] = booking.booked_at.split('T');
  const spoken = `${dateInWords(date, ctx.clock.today())} at ${timeInWords(time)}`;
  if (reason === 'twenty_four_hour_rule') return { booked_at_spoken: spoken, note: '' };
  const late = minutesBetween(booking.booked_at, ctx.clock.now()) / 60 > policy.free_cancel_booking_hours;
  const why = late ? `more than ${numberInWords(policy.free_cancel_booking_hours)} hours ago` : `less than ${numberInWords(policy.free_cancel_min_days_before_departure)} days before the flight`;
  return { booked_at_spoken: spoken, note: `This booking was made on ${spoken}, ${why}; a full refund applies only to a ${FREE_WINDOW_WORDS}. ` };
}

export const quoteCancellation = defineTool({
  name: 'quote_cancellation',
  description:
    'Use when: a traveler wants to cancel the whole booking by choice. Returns: a token, whether they get a refund, a travel credit or nothing, the amount with its reason, when the booking was made in words (booked_at_spoken), and a script to read; when the twenty-four hour rule does not apply, the script says why from the booking time. Writes nothing. Do not use for: a flight the airline cancelled or delayed. Errors: NOT_VERIFIED, BOOKING_CANCELLED.',
  input: z.object({}),
  output: z.object({ token: z.string(), outcome: z.enum(['refund', 'travel_credit', 'nothing']), amount_cents: z.number().int(), amount_spoken: z.string(), reason: z.string(), booked_at_spoken: z.string(), script: z.string() }),
  effect: 'read',
  writes: ['holds', 'call_session'],
  gate: 'verified',
  run(_args, ctx) {
    const booking = verifiedBooking(ctx);
    if (booking.status !== 'active') return refuse('BOOKING_CANCELLED', { recoverable: false });
    const t = cancellationTerms(ctx, booking);
    const token = openHold(ctx, { kind: 'cancellation', target: booking.id, payload: { outcome: t.outcome, amount_cents: t.amount_cents, reason: t.reason } });
    const age = bookingAge(ctx, booking, t.reason);
    return ok({ token, outcome: t.outcome, amount_cents: t.amount_cents, amount_spoken: money(t.amount_cents).spoken, reason: t.reason, booked_at_spoken: age.booked_at_spoken, script: `${age.note}${cancelScript(t.outcome, t.amount_cents)}` });
  },
});

export const confirmCancellation = defineTool({
  name: 'confirm_cancellation',
  description:
    'Use when: the traveler agreed to cancel after hearing the quoted outcome; pass acknowledged true only then. Returns: the cancelled booking and the refund or credit made. Do not use for: a cancellation you have not quoted. Errors: NOT_VERIFIED, TOKEN_UNKNOWN, TOKEN_WRONG_KIND, TOKEN_WRONG_OWNER, TOKEN_USED, TOKEN_SUPERSEDED, ACK_REQUIRED, BOOKING_CANCELLED.',
  input: z.object({ token: tokenField, acknowledged: z.boolean().describe('True once the traveler agreed to the quoted outcome.') }),
  output: z.object({ status: z.literal('cancelled'), outcome: z.string(), amount_cents: z.number().int(), amount_spoken: z.string() }),
  effect: 'write',
  writes: ['bookings', 'segments', 'refunds', 'travel_credits', 'flights', 'holds', 'call_session'],
  gate: 'verified',
  confirms: 'quote_cancellation',
  normalize: (raw) => normalizeFields(raw, { acknowledged: readBool }),
  run(args, ctx) {
    const held = checkHold(ctx, args.token, 'cancellation', cancelPayload);
    if (isRefusal(held)) return held;
    if (args.acknowledged !== true) return refuse('ACK_REQUIRED', { recoverable: true });
    const booking = verifiedBooking(ctx);
    if (booking.status !== 'active') return refuse('BOOKING_CANCELLED', { recoverable: false });
    const p = held.payload;
    const party = passengersOf(ctx.db).all({ booking: booking.id }).length;
    for (const s of activeSegmentsOf(ctx.db).all({ booking: booking.id })) {
      setSegmentStatus(ctx.db).run({ status: 'cancelled', id: s.id });
      releaseSeats(ctx.db, s.flight_id, party);
    }
    setBookingStatus(ctx.db).run({ status: 'cancelled', id: booking.id });
    const id = booking.id.toLowerCase();
    if (p.outcome === 'refund') insertRefund(ctx.db).run({ id: `rfd_${id}_cancel`, booking_id: booking.id, segment_id: null, method: 'original_payment', amount_cents: p.amount_cents, reason: p.reason });
    if (p.outcome === 'travel_credit') {
      const expires = `${Number(ctx.clock.today().slice(0, 4)) + 1}${ctx.clock.today().slice(4)}`;
      insertCredit(ctx.db).run({ id: `crd_${id}_cancel`, booking_id: booking.id, amount_cents: p.amount_cents, expires_on: expires, status: 'active' });
    }
    markHoldUsed(ctx.db, held.token);
    return ok({ status: 'cancelled' as const, outcome: p.outcome, amount_cents: p.amount_cents, amount_spoken: moneyInWords(p.amount_cents) });
  },
});
