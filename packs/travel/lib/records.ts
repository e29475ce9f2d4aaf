import { and, eq } from 'drizzle-orm';
import { dateInWords, foldName, gatedSubject, moneyInWords, param, preparedQuery, readCallSession, refuse, rowById, timeInWords, type PackDb, type ToolContext, type ToolRefusal } from '../../../src/packs/index.ts';
import { bookings, flights, passengers, segments } from '../schema.ts';
import { moneyDisplay } from './fields.ts';
import { AIRPORT_NAMES, type Airport } from './policy.ts';

/** Row shapes and record lookups shared by the Bluestem tools. */

export type BookingRow = typeof bookings.$inferSelect;
export type FlightRow = typeof flights.$inferSelect;
export type SegmentRow = typeof segments.$inferSelect;
export type PassengerRow = typeof passengers.$inferSelect;

export const bookingById = rowById(bookings);
export const flightById = rowById(flights);
export const segmentById = rowById(segments);
export const passengerById = rowById(passengers);
export const passengersOf = preparedQuery((db) => db.select().from(passengers).where(eq(passengers.booking_id, param('booking'))).orderBy(passengers.id).prepare());
export const activeSegmentsOf = preparedQuery((db) =>
  db.select().from(segments).where(and(eq(segments.booking_id, param('booking')), eq(segments.status, 'active'))).orderBy(segments.id).prepare(),
);
const setFlightSeats = preparedQuery((db) => db.update(flights).set({ seats_left: param('seats') }).where(eq(flights.id, param('id'))).prepare());

/** The booking a tool behind the `verified` gate runs for: find_booking pins it. */
export function verifiedBooking(ctx: ToolContext): BookingRow {
  const session = readCallSession(ctx.db);
  const row = session.subjectKind === 'booking' && session.subjectId ? bookingById(ctx.db).get({ id: session.subjectId }) : undefined;
  return gatedSubject(row, 'verified');
}

export function isRefusal(x: unknown): x is ToolRefusal {
  return typeof x === 'object' && x !== null && 'ok' in x && (x as { ok: unknown }).ok === false;
}

/** An active segment of this booking, or the refusal that says why not. */
export function ownSegment(ctx: ToolContext, booking: BookingRow, segmentId: string): SegmentRow | ToolRefusal {
  const seg = segmentById(ctx.db).get({ id: segmentId });
  if (!seg || seg.booking_id !== booking.id) return refuse('SEGMENT_NOT_FOUND', { recoverable: true });
  if (seg.status !== 'active') return refuse('SEGMENT_NOT_ACTIVE', { recoverable: false });
  return seg;
}

export function ownPassenger(ctx: ToolContext, booking: BookingRow, passengerId: string): PassengerRow | ToolRefusal {
  const pax = passengerById(ctx.db).get({ id: passengerId });
  return pax && pax.booking_id === booking.id ? pax : refuse('PASSENGER_NOT_FOUND', { recoverable: true });
}

export function flightOf(db: PackDb, seg: SegmentRow): FlightRow {
  const flight = flightById(db).get({ id: seg.flight_id });
  if (!flight) throw new Error(`segment ${seg.id} names a missing flight`);
  return flight;
}

/** "Thursday, October eighth at twelve forty p.m." */
export function spokenDateTime(datetime: string): string {
  return `${dateInWords(datetime.slice(0, 10))} at ${timeInWords(datetime.slice(11, 16))}`;
}

export function airportName(code: string): string {
  return AIRPORT_NAMES[code as Airport] ?? code;
}

/** Flight number as said: BS210 → "Bluestem two ten". */
export function spokenFlightNumber(number: string): string {
  const digits = number.slice(2);
  const say = (d: string) => ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine'][Number(d)] ?? d;
  return `Bluestem ${digits.split('').map(say).join(' ')}`;
}

/** A flight as every tool describes it: stored strings plus the spoken forms. */
export function describeFlight(f: FlightRow) {
  return {
    flight_id: f.id,
    flight_number: f.flight_number,
    flight_spoken: spokenFlightNumber(f.flight_number),
    from: airportName(f.origin),
    to: airportName(f.destination),
    departs_at: f.departs_at,
    departs_spoken: spokenDateTime(f.departs_at),
    arrives_spoken: spokenDateTime(f.arrives_at),
    status: f.status,
    delay_minutes: f.delay_minutes,
    expected_departure_spoken: f.delay_minutes > 0 ? spokenDateTime(minutesLater(f.departs_at, f.delay_minutes)) : null,
  };
}

/** A local YYYY-MM-DDTHH:MM time some minutes later, in the same form (the flight's delayed departure). */
function minutesLater(datetime: string, minutes: number): string {
  const at = new Date(`${datetime.slice(0, 16)}Z`);
  return new Date(at.getTime() + minutes * 60_000).toISOString().slice(0, 16);
}

export function money(cents: number) {
  return { cents, display: moneyDisplay(cents), spoken: moneyInWords(cents) };
}

export function namesMatch(given: string, onFile: string): boolean {
  return foldName(given) === foldName(onFile);
}

/** Whole years of age on a date. */
export function ageOn(dateOfBirth: string, date: string): number {
  const years = Number(date.slice(0, 4)) - Number(dateOfBirth.slice(0, 4));
  return date.slice(5, 10) < dateOfBirth.slice(5, 10) ? years - 1 : years;
}

export function takeSeats(db: PackDb, flight: FlightRow, count: number): void {
  setFlightSeats(db).run({ seats: flight.seats_left - count, id: flight.id });
}

export function releaseSeats(db: PackDb, flightId: string, count: number): void {
  const flight = flightById(db).get({ id: flightId });
  if (flight) setFlightSeats(db).run({ seats: flight.seats_left + count, id: flight.id });
}

/** Minutes between two local datetimes. */
export function minutesBetween(a: string, b: string): number {
  const t = (s: string) => Date.UTC(Number(s.slice(0, 4)), Number(s.slice(5, 7)) - 1, Number(s.slice(8, 10)), Number(s.slice(11, 13)), Number(s.slice(14, 16))) / 60_000;
  return t(b) - t(a);
}

/** The verified booking with one of its travelers and one of its active flights, or the refusal that says why not. */
export function bookedTraveler(ctx: ToolContext, passengerId: string, segmentId: string): { booking: BookingRow; pax: PassengerRow; seg: SegmentRow } | ToolRefusal {
  const booking = verifiedBooking(ctx);
  const pax = ownPassenger(ctx, booking, passengerId);
  if (isRefusal(pax)) return pax;
  const seg = ownSegment(ctx, booking, segmentId);
  if (isRefusal(seg)) return seg;
  return { booking, pax, seg };
}
