import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';

export { callSession, escalations, holds } from '../../src/packs/session-tables.ts';

// Reference tables: seeded, never written by a tool (flights and seats excepted: bookings consume them).

/** The airports Bluestem flies to, with the name the agent says. */
export const airports = sqliteTable('airports', {
  id: text('id').primaryKey(),
  city: text('city').notNull(),
  spoken_name: text('spoken_name').notNull(),
});

/** One departure of one flight number, with today's operating status and the fare sold now. */
export const flights = sqliteTable(
  'flights',
  {
    id: text('id').primaryKey(),
    flight_number: text('flight_number').notNull(),
    origin: text('origin').notNull(),
    destination: text('destination').notNull(),
    departs_at: text('departs_at').notNull(),
    arrives_at: text('arrives_at').notNull(),
    status: text('status').notNull(),
    delay_minutes: integer('delay_minutes').notNull(),
    disruption_cause: text('disruption_cause'),
    fare_cents: integer('fare_cents').notNull(),
    seats_left: integer('seats_left').notNull(),
    pet_spaces_left: integer('pet_spaces_left').notNull(),
  },
  (t) => [index('flights_by_route').on(t.origin, t.destination, t.departs_at)],
);

/** Seats that are taken on each flight (every other seat in rows one to twenty is free). */
export const takenSeats = sqliteTable('taken_seats', {
  id: text('id').primaryKey(),
  flight_id: text('flight_id').notNull(),
  seat: text('seat').notNull(),
});

// Scored tables.

/** A booking under its record locator; the fare family decides every change and refund rule. */
export const bookings = sqliteTable('bookings', {
  id: text('id').primaryKey(),
  fare_family: text('fare_family').notNull(),
  booked_at: text('booked_at').notNull(),
  contact_phone: text('contact_phone').notNull(),
  status: text('status').notNull(),
});

export const passengers = sqliteTable('passengers', {
  id: text('id').primaryKey(),
  booking_id: text('booking_id').notNull(),
  first_name: text('first_name').notNull(),
  last_name: text('last_name').notNull(),
  date_of_birth: text('date_of_birth').notNull(),
});

/** One flight of a booking; a change marks it replaced and adds the new one. */
export const segments = sqliteTable('segments', {
  id: text('id').primaryKey(),
  booking_id: text('booking_id').notNull(),
  flight_id: text('flight_id').notNull(),
  fare_paid_cents: integer('fare_paid_cents').notNull(),
  status: text('status').notNull(),
});

export const seatAssignments = sqliteTable('seat_assignments', {
  id: text('id').primaryKey(),
  segment_id: text('segment_id').notNull(),
  passenger_id: text('passenger_id').notNull(),
  seat: text('seat').notNull(),
  price_cents: integer('price_cents').notNull(),
});

export const checkedBags = sqliteTable('checked_bags', {
  id: text('id').primaryKey(),
  segment_id: text('segment_id').notNull(),
  passenger_id: text('passenger_id').notNull(),
  count: integer('count').notNull(),
  price_cents: integer('price_cents').notNull(),
});

/** Every amount collected by phone: change fees, fare differences, seats, bags, pets. */
export const charges = sqliteTable('charges', {
  id: text('id').primaryKey(),
  booking_id: text('booking_id').notNull(),
  kind: text('kind').notNull(),
  amount_cents: integer('amount_cents').notNull(),
  created_at: text('created_at').notNull(),
});

export const refunds = sqliteTable('refunds', {
  id: text('id').primaryKey(),
  booking_id: text('booking_id').notNull(),
  segment_id: text('segment_id'),
  method: text('method').notNull(),
  amount_cents: integer('amount_cents').notNull(),
  reason: text('reason').notNull(),
});

export const travelCredits = sqliteTable('travel_credits', {
  id: text('id').primaryKey(),
  booking_id: text('booking_id').notNull(),
  amount_cents: integer('amount_cents').notNull(),
  expires_on: text('expires_on').notNull(),
  status: text('status').notNull(),
});

export const mealVouchers = sqliteTable('meal_vouchers', {
  id: text('id').primaryKey(),
  segment_id: text('segment_id').notNull(),
  passenger_id: text('passenger_id').notNull(),
  amount_cents: integer('amount_cents').notNull(),
  sent_to: text('sent_to').notNull(),
});

export const assistanceRequests = sqliteTable('assistance_requests', {
  id: text('id').primaryKey(),
  passenger_id: text('passenger_id').notNull(),
  segment_id: text('segment_id').notNull(),
  kind: text('kind').notNull(),
});

export const petReservations = sqliteTable('pet_reservations', {
  id: text('id').primaryKey(),
  passenger_id: text('passenger_id').notNull(),
  segment_id: text('segment_id').notNull(),
  pet_kind: text('pet_kind').notNull(),
  price_cents: integer('price_cents').notNull(),
});

export const minorServices = sqliteTable('minor_services', {
  id: text('id').primaryKey(),
  passenger_id: text('passenger_id').notNull(),
  segment_id: text('segment_id').notNull(),
  pickup_name: text('pickup_name').notNull(),
  pickup_phone: text('pickup_phone').notNull(),
});
