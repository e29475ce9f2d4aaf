import type { PackDb } from '../../src/packs/index.ts';
import { airports, bookings, flights, passengers, segments, seatAssignments, takenSeats, travelCredits } from './schema.ts';

/**
 * Bluestem Air's seed: airports, a week of departures from the Kansas City hub with today's
 * disruptions, and the bookings whose records set each policy trap. Each row's comment names the
 * trap and its side of the threshold. The clock is Thursday 2026-10-08 09:00 (America/Chicago).
 * Self-contained on purpose: the template hash covers this file and the migrations only.
 */

const AIRPORTS = [
  ['MCI', 'Kansas City', 'Kansas City'],
  ['DEN', 'Denver', 'Denver'],
  ['ORD', 'Chicago', "Chicago O'Hare"],
  ['DFW', 'Dallas', 'Dallas Fort Worth'],
  ['MSP', 'Minneapolis', 'Minneapolis Saint Paul'],
  ['BNA', 'Nashville', 'Nashville'],
  ['PHX', 'Phoenix', 'Phoenix'],
] as const;

// number, to, date MMDD, departs, arrives, status, delay minutes, cause, fare cents, seats left, pet spaces
const FLIGHTS = [
  ['BS210', 'DEN', '1008', '12:40', '13:55', 'cancelled', 0, 'crew', 16900, 40, 2], // cancelled by the airline: refund or free rebooking
  ['BS214', 'DEN', '1008', '17:10', '18:25', 'scheduled', 0, null, 21900, 3, 2], // same day, room for two
  ['BS218', 'DEN', '1009', '08:05', '09:20', 'scheduled', 0, null, 15900, 1, 2], // one seat: too few for a party of two
  ['BS210', 'DEN', '1011', '12:40', '13:55', 'scheduled', 0, null, 16900, 12, 2], // day three after the original: last day inside the window
  ['BS210', 'DEN', '1012', '12:40', '13:55', 'scheduled', 0, null, 16900, 30, 2], // day four: outside the free rebooking window
  ['BS432', 'ORD', '1008', '15:20', '17:35', 'delayed', 180, 'mechanical', 18400, 22, 2], // exactly three hours: significant (inclusive)
  ['BS436', 'ORD', '1008', '18:45', '21:00', 'delayed', 130, 'weather', 14900, 15, 2], // over two hours but weather: no voucher, no refund
  ['BS438', 'ORD', '1009', '07:15', '09:30', 'scheduled', 0, null, 17900, 10, 2],
  ['BS512', 'DFW', '1008', '11:00', '12:45', 'delayed', 150, 'mechanical', 19900, 18, 2], // voucher yes (two hours or more), refund no (under three)
  ['BS620', 'MSP', '1009', '07:30', '09:05', 'scheduled', 0, null, 13900, 25, 2],
  ['BS744', 'BNA', '1016', '09:15', '11:00', 'scheduled', 0, null, 18900, 30, 2],
  ['BS746', 'BNA', '1016', '16:40', '18:25', 'scheduled', 0, null, 24900, 8, 1], // dearer same-day flight; one pet space
  ['BS748', 'BNA', '1017', '09:15', '11:00', 'scheduled', 0, null, 15900, 20, 2], // cheaper next day: no fare difference
  ['BS750', 'BNA', '1017', '16:40', '18:25', 'scheduled', 0, null, 24900, 0, 2], // sold out
  ['BS830', 'PHX', '1020', '10:05', '11:40', 'scheduled', 0, null, 22900, 26, 0], // no pet space left
  ['BS832', 'PHX', '1020', '19:30', '21:05', 'scheduled', 0, null, 27900, 14, 2],
  ['BS834', 'PHX', '1021', '10:05', '11:40', 'scheduled', 0, null, 19900, 30, 2],
] as const;

// locator, fare family, booked at, contact phone
const BOOKINGS = [
  ['HKWQRZ', 'main', '2026-08-30T14:12', '+18165550142'], // Whitfields, two travelers on the cancelled Denver flight
  ['MXJLRA', 'flex', '2026-09-02T10:30', '+18165550187'], // Okafor, three-hour delay to Chicago: refund edge
  ['KFNZLW', 'basic', '2026-09-15T19:05', '+19135550123'], // Lund, weather delay: nothing owed
  ['RLHMQX', 'main', '2026-09-10T08:45', '+18165550164'], // Alvarez, voluntary change with fee and fare difference
  ['ZQMKFH', 'basic', '2026-09-20T12:00', '+19135550176'], // Tanaka, basic: no changes; credits on file
  ['WJRHLN', 'main', '2026-10-07T20:00', '+18165550119'], // Brandt, booked thirteen hours ago: free cancellation
  ['FXLRWK', 'main', '2026-10-07T07:00', '+18165550155'], // Collins, booked twenty six hours ago: just outside the free window
  ['QHMWZL', 'main', '2026-09-25T16:20', '+18165550130'], // Sorensen, a nine year old flying alone
  ['LWKXHR', 'main', '2026-09-12T11:10', '+19135550148'], // Hammond, special assistance
  ['NRZQJM', 'flex', '2026-09-18T09:40', '+18165550171'], // Cole, two and a half hour delay
  ['JMKQWX', 'main', '2026-09-22T13:35', '+19135550139'], // Ferreira, a pet and a seat
] as const;

// id, locator, first, last, date of birth
const PASSENGERS = [
  ['pax_nora_whitfield', 'HKWQRZ', 'Nora', 'Whitfield', '1984-02-11'],
  ['pax_sam_whitfield', 'HKWQRZ', 'Sam', 'Whitfield', '1982-07-30'],
  ['pax_dale_okafor', 'MXJLRA', 'Dale', 'Okafor', '1977-11-03'],
  ['pax_priya_lund', 'KFNZLW', 'Priya', 'Lund', '1995-04-21'],
  ['pax_hector_alvarez', 'RLHMQX', 'Hector', 'Alvarez', '1969-09-17'],
  ['pax_grace_tanaka', 'ZQMKFH', 'Grace', 'Tanaka', '1990-12-02'],
  ['pax_leo_brandt', 'WJRHLN', 'Leo', 'Brandt', '1988-06-25'],
  ['pax_ava_collins', 'FXLRWK', 'Ava', 'Collins', '1993-03-08'],
  ['pax_mia_sorensen', 'QHMWZL', 'Mia', 'Sorensen', '2017-05-14'], // nine: the service is required
  ['pax_ruth_hammond', 'LWKXHR', 'Ruth', 'Hammond', '1948-01-29'],
  ['pax_ethan_cole', 'NRZQJM', 'Ethan', 'Cole', '1986-10-12'],
  ['pax_lucia_ferreira', 'JMKQWX', 'Lucia', 'Ferreira', '1979-08-06'],
] as const;

// segment id, locator, flight id, fare paid per traveler
const SEGMENTS = [
  ['seg_hkwqrz_1', 'HKWQRZ', 'flt_bs210_1008', 16900],
  ['seg_mxjlra_1', 'MXJLRA', 'flt_bs432_1008', 18400],
  ['seg_kfnzlw_1', 'KFNZLW', 'flt_bs436_1008', 9900],
  ['seg_rlhmqx_1', 'RLHMQX', 'flt_bs744_1016', 18900],
  ['seg_zqmkfh_1', 'ZQMKFH', 'flt_bs830_1020', 11900],
  ['seg_wjrhln_1', 'WJRHLN', 'flt_bs832_1020', 27900],
  ['seg_fxlrwk_1', 'FXLRWK', 'flt_bs830_1020', 22900],
  ['seg_qhmwzl_1', 'QHMWZL', 'flt_bs620_1009', 13900],
  ['seg_lwkxhr_1', 'LWKXHR', 'flt_bs744_1016', 18900],
  ['seg_nrzqjm_1', 'NRZQJM', 'flt_bs512_1008', 19900],
  ['seg_jmkqwx_1', 'JMKQWX', 'flt_bs746_1016', 24900],
] as const;

// Seats chosen at booking (free standard seats on main and flex fares).
const SEATS = [
  ['seg_hkwqrz_1', 'pax_nora_whitfield', '14A'],
  ['seg_hkwqrz_1', 'pax_sam_whitfield', '14B'],
  ['seg_rlhmqx_1', 'pax_hector_alvarez', '12C'],
  ['seg_lwkxhr_1', 'pax_ruth_hammond', '10D'],
] as const;

const LETTERS = ['A', 'B', 'C', 'D', 'E', 'F'] as const;

/** Deterministic taken seats: about one in three, plus every seat assigned above. */
function takenSeatRows() {
  const rows: { id: string; flight_id: string; seat: string }[] = [];
  for (const [number, , mmdd] of FLIGHTS) {
    const flightId = `flt_${number.toLowerCase()}_${mmdd}`;
    const assigned = new Set<string>(SEATS.filter(([seg]) => SEGMENTS.find((s) => s[0] === seg)?.[2] === flightId).map(([, , seat]) => seat));
    for (let row = 1; row <= 20; row++) {
      LETTERS.forEach((letter, i) => {
        const seat = `${row}${letter}`;
        if (assigned.has(seat) || (row * 5 + i * 3 + Number(mmdd)) % 3 === 0) rows.push({ id: `tks_${flightId.slice(4)}_${seat.toLowerCase()}`, flight_id: flightId, seat });
      });
    }
  }
  return rows;
}

export function seed(db: PackDb): void {
  db.insert(airports).values(AIRPORTS.map(([id, city, spoken_name]) => ({ id, city, spoken_name }))).run();
  db.insert(flights)
    .values(
      FLIGHTS.map(([flight_number, destination, mmdd, dep, arr, status, delay_minutes, disruption_cause, fare_cents, seats_left, pet_spaces_left]) => ({
        id: `flt_${flight_number.toLowerCase()}_${mmdd}`,
        flight_number,
        origin: 'MCI',
        destination,
        departs_at: `2026-${mmdd.slice(0, 2)}-${mmdd.slice(2)}T${dep}`,
        arrives_at: `2026-${mmdd.slice(0, 2)}-${mmdd.slice(2)}T${arr}`,
        status,
        delay_minutes,
        disruption_cause,
        fare_cents,
        seats_left,
        pet_spaces_left,
      })),
    )
    .run();
  db.insert(takenSeats).values(takenSeatRows()).run();
  db.insert(bookings).values(BOOKINGS.map(([id, fare_family, booked_at, contact_phone]) => ({ id, fare_family, booked_at, contact_phone, status: 'active' }))).run();
  db.insert(passengers).values(PASSENGERS.map(([id, booking_id, first_name, last_name, date_of_birth]) => ({ id, booking_id, first_name, last_name, date_of_birth }))).run();
  db.insert(segments).values(SEGMENTS.map(([id, booking_id, flight_id, fare_paid_cents]) => ({ id, booking_id, flight_id, fare_paid_cents, status: 'active' }))).run();
  db.insert(seatAssignments).values(SEATS.map(([segment_id, passenger_id, seat]) => ({ id: `sta_${segment_id.slice(4)}_${passenger_id.slice(4)}`, segment_id, passenger_id, seat, price_cents: 0 }))).run();
  db.insert(travelCredits)
    .values([
      { id: 'crd_zqmkfh_spring', booking_id: 'ZQMKFH', amount_cents: 12000, expires_on: '2027-03-31', status: 'active' }, // usable
      { id: 'crd_zqmkfh_old', booking_id: 'ZQMKFH', amount_cents: 5000, expires_on: '2026-10-07', status: 'active' }, // expired yesterday
      { id: 'crd_lwkxhr_june', booking_id: 'LWKXHR', amount_cents: 8800, expires_on: '2026-10-08', status: 'active' }, // expires today: still usable (inclusive)
    ])
    .run();
}
