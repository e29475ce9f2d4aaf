import { and, eq, gte, lt } from 'drizzle-orm';
import { z } from 'zod';
import { defineTool, moneyInWords, normalizeFields, numberInWords, ok, param, pinSubject, preparedQuery, readCallSession, recordVerificationFailure, refuse } from '../../../src/packs/index.ts';
import { checkedBags, flights, seatAssignments } from '../schema.ts';
import { airportField, dateField, flightNumberField, lastNameField, readAirport, readCode, readDate, readFlightNumber, readLocator, readName, recordLocatorField } from './fields.ts';
import { AIRPORT_CODE, FARE_FAMILIES, policy } from './policy.ts';
import { activeSegmentsOf, ageOn, bookingById, describeFlight, flightOf, money, namesMatch, passengersOf, verifiedBooking as verifiedBookingOf } from './records.ts';

/** Reception: public flight facts, fare rules, and finding a booking (the gate for every booking tool). */

const flightsOnDay = preparedQuery((db) =>
  db
    .select()
    .from(flights)
    .where(and(eq(flights.flight_number, param('number')), gte(flights.departs_at, param('from')), lt(flights.departs_at, param('to'))))
    .prepare(),
);
const routeOnDay = preparedQuery((db) =>
  db
    .select()
    .from(flights)
    .where(and(eq(flights.origin, param('origin')), eq(flights.destination, param('destination')), gte(flights.departs_at, param('from')), lt(flights.departs_at, param('to'))))
    .orderBy(flights.departs_at)
    .prepare(),
);
const seatsOfSegment = preparedQuery((db) => db.select().from(seatAssignments).where(eq(seatAssignments.segment_id, param('segment'))).prepare());
const bagsOfSegment = preparedQuery((db) => db.select().from(checkedBags).where(eq(checkedBags.segment_id, param('segment'))).prepare());

const flightOut = z.object({
  flight_id: z.string(),
  flight_number: z.string(),
  flight_spoken: z.string(),
  from: z.string(),
  to: z.string(),
  departs_at: z.string(),
  departs_spoken: z.string(),
  arrives_spoken: z.string(),
  status: z.string(),
  delay_minutes: z.number().int(),
  expected_departure_spoken: z.string().nullable(),
});
export { flightOut };

const dayAfter = (date: string) => {
  const d = new Date(`${date}T00:00Z`);
  d.setUTCDate(d.getUTCDate() + 1);
  return d.toISOString().slice(0, 10);
};

export const getFlightStatus = defineTool({
  name: 'get_flight_status',
  description:
    'Use when: anyone asks whether a Bluestem flight is on time, delayed or cancelled on a date; no booking needed. Returns: the flight with spoken departure and arrival, status, delay in minutes and a script. Do not use for: what a disrupted traveler is owed. Errors: FLIGHT_NOT_FOUND.',
  input: z.object({ flight_number: flightNumberField, date: dateField.describe('Departure date, YYYY-MM-DD.') }),
  output: flightOut.extend({ script: z.string() }),
  effect: 'read',
  writes: [],
  normalize: (raw) => normalizeFields(raw, { flight_number: readFlightNumber, date: readDate }),
  run(args, ctx) {
    const flight = flightsOnDay(ctx.db).get({ number: args.flight_number, from: args.date, to: dayAfter(args.date) });
    if (!flight) return refuse('FLIGHT_NOT_FOUND', { recoverable: true });
    const d = describeFlight(flight);
    const script =
      flight.status === 'cancelled'
        ? `${d.flight_spoken} to ${d.to} on ${d.departs_spoken.split(' at ')[0]} is cancelled.`
        : flight.status === 'delayed'
          ? `${d.flight_spoken} to ${d.to} is delayed by ${numberInWords(flight.delay_minutes)} minutes from its scheduled departure, ${endingAt(d.departs_spoken)}`
          : `${d.flight_spoken} to ${d.to} is on time, departing ${endingAt(d.departs_spoken)}`;
    return ok({ ...d, script });
  },
});

/** A time said last in a sentence: "a.m." already ends it, so no second period is added. */
function endingAt(spoken: string): string {
  return spoken.endsWith('.') ? spoken : `${spoken}.`;
}

export const findFlights = defineTool({
  name: 'find_flights',
  description:
    'Use when: a caller wants to know which Bluestem flights fly a route on a date and their fares, with or without a booking, or before a change. Returns: each departure with flight_id, spoken times, the fare sold now and seats left. Do not use for: free rebooking after a disruption. Errors: DATE_IN_PAST.',
  input: z.object({ origin: airportField, destination: airportField, date: dateField.describe('Departure date, YYYY-MM-DD.') }),
  output: z.object({ flights: z.array(flightOut.extend({ fare_cents: z.number().int(), fare_spoken: z.string(), seats_left: z.number().int() })) }),
  effect: 'read',
  writes: [],
  normalize: (raw) => normalizeFields(raw, { origin: readAirport, destination: readAirport, date: readDate }),
  run(args, ctx) {
    if (args.date < ctx.clock.today()) return refuse('DATE_IN_PAST', { recoverable: true });
    const rows = routeOnDay(ctx.db).all({ origin: AIRPORT_CODE[args.origin], destination: AIRPORT_CODE[args.destination], from: args.date, to: dayAfter(args.date) });
    return ok({
      flights: rows.filter((f) => f.status !== 'cancelled').map((f) => ({ ...describeFlight(f), fare_cents: f.fare_cents, fare_spoken: moneyInWords(f.fare_cents), seats_left: f.seats_left })),
    });
  },
});

const FARE_RULES: Record<(typeof FARE_FAMILIES)[number], string> = {
  basic: `Basic fares cannot be changed, and a cancelled basic fare returns nothing. Standard seats cost ${moneyInWords(policy.seat_standard_basic_cents)} each, and checked bags are extra.`,
  main: `Main cabin fares can be changed for a fee of ${moneyInWords(policy.main_change_fee_cents)} plus any difference in fare, or ${moneyInWords(policy.same_day_change_fee_cents)} for another flight on the same day. A cancelled main cabin fare becomes a travel credit for ${numberInWords(policy.travel_credit_valid_months)} months. Standard seats are free.`,
  flex: `Flex fares change with no fee, paying only any difference in fare, and a cancelled flex fare is refunded to the original payment. Preferred seats and the first checked bag are included.`,
};

/** Who the twenty-four hour rule covers, in the words explain_fare_rules and quote_flight_change both say. */
export const FREE_WINDOW_WORDS = `booking made ${numberInWords(policy.free_cancel_booking_hours)} hours ago or less, for a flight at least ${numberInWords(policy.free_cancel_min_days_before_departure)} days after booking`;

export const explainFareRules = defineTool({
  name: 'explain_fare_rules',
  description:
    'Use when: a caller asks what a fare family allows: changes, cancellations, seats, bags, and the twenty four hour rule. Returns: the rules as a script to read. Do not use for: pricing a change on a booking; the quote tools do that. Errors: none.',
  input: z.object({ fare_family: z.enum(FARE_FAMILIES).describe('"Basic economy" is basic; "main cabin" or "standard" is main; "flexible" is flex.') }),
  output: z.object({ fare_family: z.enum(FARE_FAMILIES), script: z.string() }),
  effect: 'read',
  writes: [],
  normalize: (raw) => normalizeFields(raw, { fare_family: readCode }),
  run(args) {
    const free = `Any ${FREE_WINDOW_WORDS}, can be changed with no change fee, paying only any higher fare, or cancelled for a full refund.`;
    return ok({ fare_family: args.fare_family, script: `${FARE_RULES[args.fare_family]} ${free}` });
  },
});

export const findBooking = defineTool({
  name: 'find_booking',
  description:
    'Use when: a caller wants anything about a booking; ask for the confirmation code and the last name of a traveler on it. Returns: found with the booking status and fare family, and unlocks the booking tools for this call; three misses lock lookups. Do not use for: flight status, which needs no booking. Errors: BOOKING_NOT_FOUND, LOOKUP_LOCKED.',
  input: z.object({ record_locator: recordLocatorField, last_name: lastNameField.describe('Last name of any traveler on the booking.') }),
  output: z.object({ found: z.literal(true), record_locator: z.string(), status: z.string(), fare_family: z.enum(FARE_FAMILIES), travelers: z.array(z.string()) }),
  effect: 'read',
  writes: ['call_session'],
  normalize: (raw) => normalizeFields(raw, { record_locator: readLocator, last_name: readName }),
  run(args, ctx) {
    if (readCallSession(ctx.db).locked) return refuse('LOOKUP_LOCKED', { recoverable: false });
    const booking = bookingById(ctx.db).get({ id: args.record_locator });
    const travelers = booking ? passengersOf(ctx.db).all({ booking: booking.id }) : [];
    if (!booking || !travelers.some((p) => namesMatch(args.last_name, p.last_name))) {
      const failures = recordVerificationFailure(ctx.db, policy.booking_lookup_lock_after_failures);
      if (failures >= policy.booking_lookup_lock_after_failures) return refuse('LOOKUP_LOCKED', { recoverable: false, failures });
      return refuse('BOOKING_NOT_FOUND', { recoverable: true, attempts_left: policy.booking_lookup_lock_after_failures - failures });
    }
    pinSubject(ctx.db, { kind: 'booking', id: booking.id, method: 'locator_last_name', gate: 'verified' });
    return ok({
      found: true as const,
      record_locator: booking.id,
      status: booking.status,
      fare_family: booking.fare_family as (typeof FARE_FAMILIES)[number],
      travelers: travelers.map((p) => `${p.first_name} ${p.last_name}`),
    });
  },
});

export const getBookingDetails = defineTool({
  name: 'get_booking_details',
  description:
    'Use when: the booking is found and you need its travelers, flights, seats or bags, or the ids other tools take. Returns: travelers with passenger_id and age, active flights with segment_id, spoken times, status and fare paid, seats and bag counts. Do not use for: prices of changes. Errors: NOT_VERIFIED.',
  input: z.object({}),
  output: z.object({
    record_locator: z.string(),
    fare_family: z.string(),
    status: z.string(),
    travelers: z.array(z.object({ passenger_id: z.string(), name: z.string(), age: z.number().int() })),
    flights: z.array(flightOut.extend({ segment_id: z.string(), fare_paid_spoken: z.string(), seats: z.array(z.string()), checked_bags: z.number().int() })),
  }),
  effect: 'read',
  writes: ['call_session'],
  gate: 'verified',
  run(_args, ctx) {
    const booking = verifiedBookingOf(ctx);
    const travelers = passengersOf(ctx.db).all({ booking: booking.id });
    return ok({
      record_locator: booking.id,
      fare_family: booking.fare_family,
      status: booking.status,
      travelers: travelers.map((p) => ({ passenger_id: p.id, name: `${p.first_name} ${p.last_name}`, age: ageOn(p.date_of_birth, ctx.clock.today()) })),
      flights: activeSegmentsOf(ctx.db)
        .all({ booking: booking.id })
        .map((s) => ({
          ...describeFlight(flightOf(ctx.db, s)),
          segment_id: s.id,
          fare_paid_spoken: money(s.fare_paid_cents).spoken,
          seats: seatsOfSegment(ctx.db).all({ segment: s.id }).map((a) => a.seat),
          checked_bags: bagsOfSegment(ctx.db).all({ segment: s.id }).reduce((n, b) => n + b.count, 0),
        })),
    });
  },
});
