import { and, eq } from 'drizzle-orm';
import { z } from 'zod';
import { checkHold, defineTool, markHoldUsed, moneyInWords, normalizeFields, ok, openHold, param, preparedQuery, refuse, rowInsert } from '../../../src/packs/index.ts';
import { charges, checkedBags, seatAssignments, takenSeats } from '../schema.ts';
import { passengerIdField, readBool, readCode, readInt, readSeat, seatField, segmentIdField, tokenField } from './fields.ts';
import { policy, SEAT_KINDS, type SeatKind } from './policy.ts';
import { bookedTraveler, isRefusal, ownSegment, verifiedBooking, type BookingRow } from './records.ts';

/** Extras: seats and checked bags, priced by the tools and confirmed in two steps. */

const takenOnFlight = preparedQuery((db) => db.select().from(takenSeats).where(eq(takenSeats.flight_id, param('flight'))).prepare());
const seatTaken = preparedQuery((db) => db.select().from(takenSeats).where(and(eq(takenSeats.flight_id, param('flight')), eq(takenSeats.seat, param('seat')))).prepare());
const bagsById = preparedQuery((db) => db.select().from(checkedBags).where(eq(checkedBags.id, param('id'))).prepare());
const deleteSeat = preparedQuery((db) => db.delete(seatAssignments).where(eq(seatAssignments.id, param('id'))).prepare());
const deleteBags = preparedQuery((db) => db.delete(checkedBags).where(eq(checkedBags.id, param('id'))).prepare());
const insertSeat = rowInsert(seatAssignments);
const insertTaken = rowInsert(takenSeats);
const insertBags = rowInsert(checkedBags);
const insertCharge = rowInsert(charges);

function seatKind(seat: string): SeatKind {
  const row = Number.parseInt(seat, 10);
  return row <= 4 ? 'extra_legroom' : row <= 8 ? 'preferred' : 'standard';
}

function seatPrice(booking: BookingRow, kind: SeatKind): number {
  if (kind === 'extra_legroom') return policy.seat_extra_legroom_cents;
  if (kind === 'preferred') return booking.fare_family === 'flex' ? 0 : policy.seat_preferred_cents;
  return booking.fare_family === 'basic' ? policy.seat_standard_basic_cents : 0;
}

/** The price line of a quote; `plural` when `what` names more than one thing ("Two checked bags cost"). */
function priceScript(what: string, cents: number, plural = false): string {
  return cents > 0
    ? `${what} ${plural ? 'cost' : 'costs'} ${moneyInWords(cents)}, charged to the card used for the booking. Shall I go ahead?`
    : `${what} ${plural ? 'are' : 'is'} included at no cost. Shall I go ahead?`;
}

/** "A preferred seat", "An extra legroom seat". */
function seatWords(kind: string): string {
  const words = kind.replace('_', ' ');
  return `${/^[aeiou]/.test(words) ? 'An' : 'A'} ${words} seat`;
}

export const listSeats = defineTool({
  name: 'list_seats',
  description:
    'Use when: a traveler asks which seats are free on a flight, or wants a window, aisle or extra legroom seat. Window seats end in A or F, aisles in C or D. Returns: up to six free seats of the kind asked for, each with its price for this fare. Do not use for: assigning a seat; quote it. Errors: NOT_VERIFIED, SEGMENT_NOT_FOUND, SEGMENT_NOT_ACTIVE.',
  input: z.object({ segment_id: segmentIdField, seat_kind: z.enum(SEAT_KINDS).describe('"More legroom" is extra_legroom; "near the front" is preferred.'), position: z.enum(['window', 'aisle', 'any']) }),
  output: z.object({ seats: z.array(z.object({ seat: z.string(), price_cents: z.number().int(), price_spoken: z.string() })) }),
  effect: 'read',
  writes: ['call_session'],
  gate: 'verified',
  normalize: (raw) => normalizeFields(raw, { segment_id: readCode, seat_kind: readCode, position: readCode }),
  run(args, ctx) {
    const booking = verifiedBooking(ctx);
    const seg = ownSegment(ctx, booking, args.segment_id);
    if (isRefusal(seg)) return seg;
    const taken = new Set(takenOnFlight(ctx.db).all({ flight: seg.flight_id }).map((t) => t.seat));
    const letters = args.position === 'window' ? ['A', 'F'] : args.position === 'aisle' ? ['C', 'D'] : ['A', 'B', 'C', 'D', 'E', 'F'];
    const free: string[] = [];
    for (let row = 1; row <= 20 && free.length < 6; row++) for (const l of letters) if (free.length < 6 && seatKind(`${row}${l}`) === args.seat_kind && !taken.has(`${row}${l}`)) free.push(`${row}${l}`);
    const price = seatPrice(booking, args.seat_kind);
    return ok({ seats: free.map((seat) => ({ seat, price_cents: price, price_spoken: moneyInWords(price) })) });
  },
});

const seatPayload = z.object({ segment_id: z.string(), passenger_id: z.string(), flight_id: z.string(), seat: z.string(), price_cents: z.number().int() });

export const quoteSeat = defineTool({
  name: 'quote_seat',
  description:
    'Use when: a traveler wants a particular seat; rows one to four have extra legroom, five to eight are preferred, the rest standard. Returns: a token, the seat kind, its price for this fare and a script. Writes nothing. Do not use for: bags. Errors: NOT_VERIFIED, PASSENGER_NOT_FOUND, SEGMENT_NOT_FOUND, SEGMENT_NOT_ACTIVE, SEAT_TAKEN.',
  input: z.object({ segment_id: segmentIdField, passenger_id: passengerIdField, seat: seatField }),
  output: z.object({ token: z.string(), seat: z.string(), seat_kind: z.string(), price_cents: z.number().int(), price_spoken: z.string(), requires_acknowledgement: z.boolean(), script: z.string() }),
  effect: 'read',
  writes: ['holds', 'call_session'],
  gate: 'verified',
  normalize: (raw) => normalizeFields(raw, { segment_id: readCode, passenger_id: readCode, seat: readSeat }),
  run(args, ctx) {
    const found = bookedTraveler(ctx, args.passenger_id, args.segment_id);
    if (isRefusal(found)) return found;
    const { booking, pax, seg } = found;
    if (seatTaken(ctx.db).get({ flight: seg.flight_id, seat: args.seat })) return refuse('SEAT_TAKEN', { recoverable: true });
    const kind = seatKind(args.seat);
    const price = seatPrice(booking, kind);
    const token = openHold(ctx, { kind: 'seat', target: `${seg.id}:${pax.id}`, payload: { segment_id: seg.id, passenger_id: pax.id, flight_id: seg.flight_id, seat: args.seat, price_cents: price } });
    return ok({ token, seat: args.seat, seat_kind: kind, price_cents: price, price_spoken: moneyInWords(price), requires_acknowledgement: price > 0, script: priceScript(seatWords(kind), price) });
  },
});

export const confirmSeat = defineTool({
  name: 'confirm_seat',
  description:
    'Use when: the traveler agreed to the seat you quoted; pass fee_acknowledged true only after they accepted a quoted price. Returns: the seat assigned and the amount charged; any earlier seat on that flight is released. Do not use for: a seat you have not quoted. Errors: NOT_VERIFIED, TOKEN_UNKNOWN, TOKEN_WRONG_KIND, TOKEN_WRONG_OWNER, TOKEN_USED, TOKEN_SUPERSEDED, ACK_REQUIRED, SEAT_TAKEN.',
  input: z.object({ token: tokenField, fee_acknowledged: z.boolean().optional().describe('True once the traveler accepted the quoted price.') }),
  output: z.object({ seat: z.string(), charged_cents: z.number().int(), charged_spoken: z.string() }),
  effect: 'write',
  writes: ['seat_assignments', 'taken_seats', 'charges', 'holds', 'call_session'],
  gate: 'verified',
  confirms: 'quote_seat',
  normalize: (raw) => normalizeFields(raw, { fee_acknowledged: readBool }),
  run(args, ctx) {
    const held = checkHold(ctx, args.token, 'seat', seatPayload);
    if (isRefusal(held)) return held;
    const p = held.payload;
    if (p.price_cents > 0 && args.fee_acknowledged !== true) return refuse('ACK_REQUIRED', { recoverable: true });
    const booking = verifiedBooking(ctx);
    if (seatTaken(ctx.db).get({ flight: p.flight_id, seat: p.seat })) return refuse('SEAT_TAKEN', { recoverable: true });
    const id = `sta_${p.segment_id.slice(4)}_${p.passenger_id.slice(4)}`;
    deleteSeat(ctx.db).run({ id });
    insertSeat(ctx.db).run({ id, segment_id: p.segment_id, passenger_id: p.passenger_id, seat: p.seat, price_cents: p.price_cents });
    insertTaken(ctx.db).run({ id: `tks_${p.flight_id.slice(4)}_${p.seat.toLowerCase()}`, flight_id: p.flight_id, seat: p.seat });
    if (p.price_cents > 0) insertCharge(ctx.db).run({ id: `chg_${id.slice(4)}_seat_${p.seat.toLowerCase()}`, booking_id: booking.id, kind: 'seat', amount_cents: p.price_cents, created_at: ctx.clock.now() });
    markHoldUsed(ctx.db, held.token);
    return ok({ seat: p.seat, charged_cents: p.price_cents, charged_spoken: moneyInWords(p.price_cents) });
  },
});

const bagPayload = z.object({ segment_id: z.string(), passenger_id: z.string(), total_bags: z.number().int(), price_cents: z.number().int() });

export const quoteBags = defineTool({
  name: 'quote_bags',
  description:
    'Use when: a traveler wants to add checked bags to a flight; bags is how many to add now. Returns: a token, the price of those bags for this fare, the bag total and a script. Writes nothing. Do not use for: seats. Errors: NOT_VERIFIED, PASSENGER_NOT_FOUND, SEGMENT_NOT_FOUND, SEGMENT_NOT_ACTIVE, BAG_LIMIT.',
  input: z.object({ segment_id: segmentIdField, passenger_id: passengerIdField, bags: z.number().int().min(1).max(2) }),
  output: z.object({ token: z.string(), bags_before: z.number().int(), bags_after: z.number().int(), price_cents: z.number().int(), price_spoken: z.string(), requires_acknowledgement: z.boolean(), script: z.string() }),
  effect: 'read',
  writes: ['holds', 'call_session'],
  gate: 'verified',
  normalize: (raw) => normalizeFields(raw, { segment_id: readCode, passenger_id: readCode, bags: readInt }),
  run(args, ctx) {
    const found = bookedTraveler(ctx, args.passenger_id, args.segment_id);
    if (isRefusal(found)) return found;
    const { booking, pax, seg } = found;
    const before = bagsById(ctx.db).get({ id: `bag_${seg.id.slice(4)}_${pax.id.slice(4)}` })?.count ?? 0;
    const after = before + args.bags;
    if (after > policy.max_bags_per_passenger) return refuse('BAG_LIMIT', { recoverable: true, bags_on_file: before });
    let price = 0;
    for (let n = before + 1; n <= after; n++) price += n === 1 ? (booking.fare_family === 'flex' ? 0 : policy.first_bag_cents) : policy.second_bag_cents;
    const token = openHold(ctx, { kind: 'bags', target: `${seg.id}:${pax.id}`, payload: { segment_id: seg.id, passenger_id: pax.id, total_bags: after, price_cents: price } });
    return ok({ token, bags_before: before, bags_after: after, price_cents: price, price_spoken: moneyInWords(price), requires_acknowledgement: price > 0, script: args.bags === 1 ? priceScript(before > 0 ? 'One more checked bag' : 'One checked bag', price) : priceScript('Two checked bags', price, true) });
  },
});

export const confirmBags = defineTool({
  name: 'confirm_bags',
  description:
    'Use when: the traveler agreed to the bags you quoted; pass fee_acknowledged true only after they accepted a quoted price. Returns: the bag total and the amount charged. Do not use for: bags you have not quoted. Errors: NOT_VERIFIED, TOKEN_UNKNOWN, TOKEN_WRONG_KIND, TOKEN_WRONG_OWNER, TOKEN_USED, TOKEN_SUPERSEDED, ACK_REQUIRED.',
  input: z.object({ token: tokenField, fee_acknowledged: z.boolean().optional().describe('True once the traveler accepted the quoted price.') }),
  output: z.object({ bags_after: z.number().int(), charged_cents: z.number().int(), charged_spoken: z.string() }),
  effect: 'write',
  writes: ['checked_bags', 'charges', 'holds', 'call_session'],
  gate: 'verified',
  confirms: 'quote_bags',
  normalize: (raw) => normalizeFields(raw, { fee_acknowledged: readBool }),
  run(args, ctx) {
    const held = checkHold(ctx, args.token, 'bags', bagPayload);
    if (isRefusal(held)) return held;
    const p = held.payload;
    if (p.price_cents > 0 && args.fee_acknowledged !== true) return refuse('ACK_REQUIRED', { recoverable: true });
    const booking = verifiedBooking(ctx);
    const id = `bag_${p.segment_id.slice(4)}_${p.passenger_id.slice(4)}`;
    deleteBags(ctx.db).run({ id });
    insertBags(ctx.db).run({ id, segment_id: p.segment_id, passenger_id: p.passenger_id, count: p.total_bags, price_cents: p.price_cents });
    if (p.price_cents > 0) insertCharge(ctx.db).run({ id: `chg_${id.slice(4)}_bags_${p.total_bags}`, booking_id: booking.id, kind: 'bags', amount_cents: p.price_cents, created_at: ctx.clock.now() });
    markHoldUsed(ctx.db, held.token);
    return ok({ bags_after: p.total_bags, charged_cents: p.price_cents, charged_spoken: moneyInWords(p.price_cents) });
  },
});
