import { and, eq, gte, lte } from 'drizzle-orm';
import { z } from 'zod';
import { dateInWords, defineTool, moneyInWords, normalizeFields, numberInWords, ok, param, preparedQuery, refuse, rowInsert, type ToolContext } from '../../../src/packs/index.ts';
import { flights, mealVouchers, segments } from '../schema.ts';
import { flightOut } from './booking-tools.ts';
import { flightIdField, readCode, segmentIdField } from './fields.ts';
import { policy } from './policy.ts';
import { describeFlight, flightById, flightOf, isRefusal, ownSegment, passengersOf, segmentById, takeSeats, verifiedBooking, type FlightRow, type SegmentRow } from './records.ts';

/** Disruptions: what a cancelled or delayed traveler is owed, free rebooking and meal vouchers. */

const routeBetween = preparedQuery((db) =>
  db
    .select()
    .from(flights)
    .where(and(eq(flights.origin, param('origin')), eq(flights.destination, param('destination')), gte(flights.departs_at, param('from')), lte(flights.departs_at, param('to'))))
    .orderBy(flights.departs_at)
    .prepare(),
);
const setSegmentStatus = preparedQuery((db) => db.update(segments).set({ status: param('status') }).where(eq(segments.id, param('id'))).prepare());
const insertSegment = rowInsert(segments);
const insertVoucher = rowInsert(mealVouchers);
const voucherById = preparedQuery((db) => db.select().from(mealVouchers).where(eq(mealVouchers.id, param('id'))).prepare());

/** Cancelled, or delayed by the significant-delay threshold or more (inclusive). */
export function significantlyDisrupted(f: FlightRow): boolean {
  return f.status === 'cancelled' || (f.status === 'delayed' && f.delay_minutes >= policy.significant_delay_minutes);
}

function voucherEligible(f: FlightRow): boolean {
  const controllable = f.disruption_cause === 'crew' || f.disruption_cause === 'mechanical';
  return controllable && (f.status === 'cancelled' || f.delay_minutes >= policy.meal_voucher_delay_minutes);
}

function windowLastDay(ctx: ToolContext, f: FlightRow): string {
  return ctx.clock.addDays(f.departs_at.slice(0, 10), policy.rebooking_window_days);
}

/** A disrupted flight of this booking; `rebooked` also accepts one already replaced by free rebooking (its voucher is still owed). */
function disruptedSegment(ctx: ToolContext, segmentId: string, rebooked = false): { seg: SegmentRow; flight: FlightRow; party: number } | ReturnType<typeof refuse> {
  const booking = verifiedBooking(ctx);
  const replaced = segmentById(ctx.db).get({ id: segmentId });
  const seg = rebooked && replaced?.booking_id === booking.id && replaced.status === 'replaced' ? replaced : ownSegment(ctx, booking, segmentId);
  if (isRefusal(seg)) return seg;
  const flight = flightOf(ctx.db, seg);
  if (flight.status === 'scheduled') return refuse('NOT_DISRUPTED', { recoverable: false });
  return { seg, flight, party: passengersOf(ctx.db).all({ booking: booking.id }).length };
}

export const checkDisruption = defineTool({
  name: 'check_disruption',
  description:
    'Use when: a traveler on a cancelled or delayed flight asks what happens now or what they are owed. Returns: status, delay, cause, and whether free rebooking, a refund and a meal voucher apply, with the last day of the rebooking window and a script. The refund (or travel credit) instead of a flight is quoted and made by quote_refund at the payments desk, not here. Do not use for: on-time flights. Errors: NOT_VERIFIED, SEGMENT_NOT_FOUND, SEGMENT_NOT_ACTIVE, NOT_DISRUPTED.',
  input: z.object({ segment_id: segmentIdField }),
  output: z.object({
    flight: flightOut,
    cause: z.string().nullable(),
    free_rebooking: z.boolean(),
    refund_eligible: z.boolean(),
    meal_voucher_eligible: z.boolean(),
    significant_delay_minutes: z.number().int(),
    rebooking_last_day: z.string(),
    rebooking_last_day_spoken: z.string(),
    script: z.string(),
  }),
  effect: 'read',
  writes: ['call_session'],
  gate: 'verified',
  normalize: (raw) => normalizeFields(raw, { segment_id: readCode }),
  run(args, ctx) {
    const found = disruptedSegment(ctx, args.segment_id);
    if (isRefusal(found)) return found;
    const { flight } = found;
    const major = significantlyDisrupted(flight);
    const meal = voucherEligible(flight);
    const last = windowLastDay(ctx, flight);
    const what = flight.status === 'cancelled' ? 'was cancelled' : `is delayed by ${numberInWords(flight.delay_minutes)} minutes`;
    const rights = major
      ? `You can move to another Bluestem flight on the same route up to ${dateInWords(last, ctx.clock.today())} at no cost, or take a refund of this flight.`
      : `Because the delay is under ${numberInWords(policy.significant_delay_minutes / 60)} hours, the flight is not eligible for a refund or free rebooking.`;
    const mealLine = meal ? ` You are also owed a meal voucher of ${moneyInWords(policy.meal_voucher_cents)} per traveler.` : '';
    return ok({
      flight: describeFlight(flight),
      cause: flight.disruption_cause,
      free_rebooking: major,
      refund_eligible: major,
      meal_voucher_eligible: meal,
      significant_delay_minutes: policy.significant_delay_minutes,
      rebooking_last_day: last,
      rebooking_last_day_spoken: dateInWords(last, ctx.clock.today()),
      script: `This flight ${what}. ${rights}${mealLine}`,
    });
  },
});

export const findRebookingOptions = defineTool({
  name: 'find_rebooking_options',
  description:
    'Use when: a traveler whose flight is cancelled or significantly delayed wants another flight. Returns: flights on the same route inside the free rebooking window with room for the whole party, each with flight_id and spoken times, and the last day of the window. Do not use for: voluntary changes. Errors: NOT_VERIFIED, SEGMENT_NOT_FOUND, SEGMENT_NOT_ACTIVE, NOT_DISRUPTED, DELAY_BELOW_THRESHOLD.',
  input: z.object({ segment_id: segmentIdField }),
  output: z.object({ options: z.array(flightOut.extend({ seats_left: z.number().int() })), party_size: z.number().int(), rebooking_last_day_spoken: z.string() }),
  effect: 'read',
  writes: ['call_session'],
  gate: 'verified',
  normalize: (raw) => normalizeFields(raw, { segment_id: readCode }),
  run(args, ctx) {
    const found = disruptedSegment(ctx, args.segment_id);
    if (isRefusal(found)) return found;
    const { flight, party } = found;
    if (!significantlyDisrupted(flight)) return refuse('DELAY_BELOW_THRESHOLD', { recoverable: false });
    const last = windowLastDay(ctx, flight);
    const options = routeBetween(ctx.db)
      .all({ origin: flight.origin, destination: flight.destination, from: ctx.clock.now(), to: `${last}T23:59` })
      .filter((f) => f.id !== flight.id && f.status !== 'cancelled' && f.seats_left >= party);
    return ok({ options: options.map((f) => ({ ...describeFlight(f), seats_left: f.seats_left })), party_size: party, rebooking_last_day_spoken: dateInWords(last, ctx.clock.today()) });
  },
});

export const bookReplacementFlight = defineTool({
  name: 'book_replacement_flight',
  description:
    'Use when: a traveler on a cancelled or significantly delayed flight chose a flight from find_rebooking_options; read it back first. Free, for everyone on the booking. Returns: the new flight with spoken times; idempotent on repeats. Do not use for: voluntary changes, which are priced. Errors: NOT_VERIFIED, SEGMENT_NOT_FOUND, SEGMENT_NOT_ACTIVE, NOT_DISRUPTED, DELAY_BELOW_THRESHOLD, FLIGHT_NOT_AVAILABLE, ROUTE_MISMATCH, OUTSIDE_REBOOKING_WINDOW, FLIGHT_FULL.',
  input: z.object({ segment_id: segmentIdField, new_flight_id: flightIdField }),
  output: z.object({ new_segment_id: z.string(), flight: flightOut, cost_cents: z.literal(0), idempotent: z.boolean() }),
  effect: 'write',
  writes: ['segments', 'flights', 'call_session'],
  gate: 'verified',
  normalize: (raw) => normalizeFields(raw, { segment_id: readCode, new_flight_id: readCode }),
  run(args, ctx) {
    const booking = verifiedBooking(ctx);
    const newId = `seg_${booking.id.toLowerCase()}_${args.new_flight_id.slice(4)}`;
    const already = segmentById(ctx.db).get({ id: newId });
    const target = flightById(ctx.db).get({ id: args.new_flight_id });
    if (already && already.status === 'active' && target) return ok({ new_segment_id: newId, flight: describeFlight(target), cost_cents: 0 as const, idempotent: true });
    const found = disruptedSegment(ctx, args.segment_id);
    if (isRefusal(found)) return found;
    const { seg, flight, party } = found;
    if (!significantlyDisrupted(flight)) return refuse('DELAY_BELOW_THRESHOLD', { recoverable: false });
    if (!target || target.status === 'cancelled' || target.id === flight.id || target.departs_at <= ctx.clock.now()) return refuse('FLIGHT_NOT_AVAILABLE', { recoverable: true });
    if (target.origin !== flight.origin || target.destination !== flight.destination) return refuse('ROUTE_MISMATCH', { recoverable: true });
    const last = windowLastDay(ctx, flight);
    if (target.departs_at.slice(0, 10) > last) return refuse('OUTSIDE_REBOOKING_WINDOW', { recoverable: true, last_day_spoken: dateInWords(last, ctx.clock.today()) });
    if (target.seats_left < party) return refuse('FLIGHT_FULL', { recoverable: true, seats_left: target.seats_left, party_size: party });
    setSegmentStatus(ctx.db).run({ status: 'replaced', id: seg.id });
    insertSegment(ctx.db).run({ id: newId, booking_id: booking.id, flight_id: target.id, fare_paid_cents: seg.fare_paid_cents, status: 'active' });
    takeSeats(ctx.db, target, party);
    return ok({ new_segment_id: newId, flight: describeFlight(target), cost_cents: 0 as const, idempotent: false });
  },
});

export const sendMealVoucher = defineTool({
  name: 'send_meal_voucher',
  description:
    'Use when: a traveler on a delayed or cancelled flight asks for a meal voucher, or check_disruption said one is owed. Sends one voucher per traveler by text to the booking phone; a voucher works at airport restaurants today and on the day of a replacement flight. Send it before handing a refund to payments, which cannot send one. Returns: the vouchers, the amount each and a script; idempotent. Works before or after free rebooking. Do not use for: weather delays, which earn none. Errors: NOT_VERIFIED, SEGMENT_NOT_FOUND, SEGMENT_NOT_ACTIVE, NOT_DISRUPTED, VOUCHER_NOT_ELIGIBLE.',
  input: z.object({ segment_id: segmentIdField }),
  output: z.object({ vouchers: z.number().int(), amount_each_cents: z.number().int(), amount_each_spoken: z.string(), idempotent: z.boolean(), script: z.string() }),
  effect: 'write',
  writes: ['meal_vouchers', 'call_session'],
  gate: 'verified',
  normalize: (raw) => normalizeFields(raw, { segment_id: readCode }),
  run(args, ctx) {
    const booking = verifiedBooking(ctx);
    const found = disruptedSegment(ctx, args.segment_id, true);
    if (isRefusal(found)) return found;
    if (!voucherEligible(found.flight)) return refuse('VOUCHER_NOT_ELIGIBLE', { recoverable: false, cause: found.flight.disruption_cause, delay_minutes: found.flight.delay_minutes });
    const travelers = passengersOf(ctx.db).all({ booking: booking.id });
    let idempotent = true;
    for (const p of travelers) {
      const id = `mvc_${found.seg.id.slice(4)}_${p.id.slice(4)}`;
      if (voucherById(ctx.db).get({ id })) continue;
      idempotent = false;
      insertVoucher(ctx.db).run({ id, segment_id: found.seg.id, passenger_id: p.id, amount_cents: policy.meal_voucher_cents, sent_to: booking.contact_phone });
    }
    return ok({
      vouchers: travelers.length,
      amount_each_cents: policy.meal_voucher_cents,
      amount_each_spoken: moneyInWords(policy.meal_voucher_cents),
      idempotent,
      script: `I have sent ${numberInWords(travelers.length)} meal ${travelers.length === 1 ? 'voucher' : 'vouchers'} of ${moneyInWords(policy.meal_voucher_cents)} each by text to the phone number on the booking. They work at any restaurant in the airport today, and on the day of the flight you are moved to if that is later.`,
    });
  },
});
