import { describe, expect, it } from 'vitest';
import type { CallDatabase } from '../../../src/store/index.ts';
import { usePackTools } from '../../support/pack-tools.ts';

/**
 * Bluestem Air's policy traps (packs/travel/README.md, "Traps in the seed"): each threshold is
 * tested on both sides, and on its edge where the rule has one, against the seeded bookings.
 */
describe('travel tools (Bluestem Air)', () => {
  const { fresh, call, data, code } = usePackTools('travel');
  const asBooking = (record_locator: string, last_name: string): CallDatabase => {
    const db = fresh();
    expect(call(db, 'find_booking', { record_locator, last_name }).output.ok).toBe(true);
    return db;
  };

  describe('finding a booking', () => {
    it('needs the last name of a traveler on it, and locks after three misses', () => {
      const db = fresh();
      expect(code(call(db, 'find_booking', { record_locator: 'HKWQRZ', last_name: 'Whitford' }))).toBe('BOOKING_NOT_FOUND');
      expect(code(call(db, 'get_booking_details', {}))).toBe('NOT_VERIFIED');
      expect(code(call(db, 'find_booking', { record_locator: 'HKWQRZ', last_name: 'Whitford' }))).toBe('BOOKING_NOT_FOUND');
      expect(code(call(db, 'find_booking', { record_locator: 'HKWQRZ', last_name: 'Whitford' }))).toBe('LOOKUP_LOCKED');
      expect(code(call(db, 'find_booking', { record_locator: 'HKWQRZ', last_name: 'Whitfield' }))).toBe('LOOKUP_LOCKED');
    });

    it('reads a spoken code and a lower-case name', () => {
      const db = fresh();
      expect(data(call(db, 'find_booking', { record_locator: 'hk wq rz', last_name: 'whitfield' }))).toMatchObject({ record_locator: 'HKWQRZ', fare_family: 'main' });
    });
  });

  describe('disruptions', () => {
    it('a delay of exactly three hours is significant; two and a half is not, yet earns a mechanical voucher', () => {
      expect(data(call(asBooking('MXJLRA', 'Okafor'), 'check_disruption', { segment_id: 'seg_mxjlra_1' }))).toMatchObject({ refund_eligible: true, meal_voucher_eligible: true });
      expect(data(call(asBooking('NRZQJM', 'Cole'), 'check_disruption', { segment_id: 'seg_nrzqjm_1' }))).toMatchObject({ refund_eligible: false, meal_voucher_eligible: true });
    });

    it('a voucher for a crew cancellation is still owed after the free rebooking', () => {
      const db = asBooking('HKWQRZ', 'Whitfield');
      expect(call(db, 'book_replacement_flight', { segment_id: 'seg_hkwqrz_1', new_flight_id: 'flt_bs214_1008' }).output.ok).toBe(true);
      expect(data(call(db, 'send_meal_voucher', { segment_id: 'seg_hkwqrz_1' }))).toMatchObject({ vouchers: 2, amount_each_cents: 1500 });
      expect(code(call(db, 'check_disruption', { segment_id: 'seg_hkwqrz_1' }))).toBe('SEGMENT_NOT_ACTIVE');
    });

    it('weather earns no voucher', () => {
      expect(code(call(asBooking('KFNZLW', 'Lund'), 'send_meal_voucher', { segment_id: 'seg_kfnzlw_1' }))).toBe('VOUCHER_NOT_ELIGIBLE');
    });

    it('free rebooking runs through the third day after the original date and needs room for the party', () => {
      const book = (flight: string) => call(asBooking('HKWQRZ', 'Whitfield'), 'book_replacement_flight', { segment_id: 'seg_hkwqrz_1', new_flight_id: flight });
      expect(data(book('flt_bs210_1011'))).toMatchObject({ new_segment_id: 'seg_hkwqrz_bs210_1011', cost_cents: 0 });
      expect(code(book('flt_bs210_1012'))).toBe('OUTSIDE_REBOOKING_WINDOW');
      expect(code(book('flt_bs218_1009'))).toBe('FLIGHT_FULL');
      const options = data(call(asBooking('HKWQRZ', 'Whitfield'), 'find_rebooking_options', { segment_id: 'seg_hkwqrz_1' })) as { options: { flight_id: string }[] };
      expect(options.options.map((o) => o.flight_id)).toEqual(['flt_bs214_1008', 'flt_bs210_1011']) // not the one-seat flt_bs218_1009, not flt_bs210_1012;
    });
  });

  describe('changes and cancellations', () => {
    it('prices a main fare change: fee plus higher fare, flat fee the same day, fee only for a cheaper fare', () => {
      const quote = (flight: string) => data(call(asBooking('RLHMQX', 'Alvarez'), 'quote_flight_change', { segment_id: 'seg_rlhmqx_1', new_flight_id: flight }));
      expect(quote('flt_bs748_1017')).toMatchObject({ fee_cents: 7500, difference_cents: 0, total_cents: 7500 });
      expect(quote('flt_bs746_1016')).toMatchObject({ fee_cents: 5000, difference_cents: 0, total_cents: 5000 });
    });

    it('a basic fare cannot change; the twenty four hour rule refunds in full; after it, main becomes credit', () => {
      expect(code(call(asBooking('ZQMKFH', 'Tanaka'), 'quote_flight_change', { segment_id: 'seg_zqmkfh_1', new_flight_id: 'flt_bs834_1021' }))).toBe('FARE_NOT_CHANGEABLE');
      expect(data(call(asBooking('WJRHLN', 'Brandt'), 'quote_cancellation', {}))).toMatchObject({ outcome: 'refund', amount_cents: 27900, reason: 'twenty_four_hour_rule' });
      expect(data(call(asBooking('FXLRWK', 'Collins'), 'quote_cancellation', {}))).toMatchObject({ outcome: 'travel_credit', amount_cents: 22900 });
      expect(data(call(asBooking('ZQMKFH', 'Tanaka'), 'quote_cancellation', {}))).toMatchObject({ outcome: 'nothing', amount_cents: 0 });
    });

    it('confirming needs the acknowledgement of a quoted amount', () => {
      const db = asBooking('RLHMQX', 'Alvarez');
      const token = (data(call(db, 'quote_flight_change', { segment_id: 'seg_rlhmqx_1', new_flight_id: 'flt_bs748_1017' })) as { token: string }).token;
      expect(code(call(db, 'confirm_flight_change', { token }))).toBe('ACK_REQUIRED');
      expect(data(call(db, 'confirm_flight_change', { token, fee_acknowledged: true }))).toMatchObject({ charged_cents: 7500 });
    });
  });

  describe('refunds, credits and extras', () => {
    it('a disrupted flight refunds to the card, or as credit with the ten percent bonus; an on-time flight does not', () => {
      const quote = (method: string) => data(call(asBooking('MXJLRA', 'Okafor'), 'quote_refund', { segment_id: 'seg_mxjlra_1', method }));
      expect(quote('original_payment')).toMatchObject({ amount_cents: 18400 });
      expect(quote('travel_credit')).toMatchObject({ amount_cents: 20240 });
      expect(code(call(asBooking('RLHMQX', 'Alvarez'), 'quote_refund', { segment_id: 'seg_rlhmqx_1', method: 'original_payment' }))).toBe('NOT_REFUNDABLE');
    });

    it('a credit is usable through its expiry date and not the day after', () => {
      expect(data(call(asBooking('ZQMKFH', 'Tanaka'), 'list_travel_credits', {}))).toMatchObject({ usable_total_cents: 12000 });
      expect(data(call(asBooking('LWKXHR', 'Hammond'), 'list_travel_credits', {}))).toMatchObject({ usable_total_cents: 8800 });
    });

    it('prices seats and bags by fare, and caps bags at two', () => {
      const db = asBooking('JMKQWX', 'Ferreira');
      expect(data(call(db, 'quote_seat', { segment_id: 'seg_jmkqwx_1', passenger_id: 'pax_lucia_ferreira', seat: '1A' }))).toMatchObject({ price_cents: 4500, seat_kind: 'extra_legroom' });
      expect(data(call(db, 'quote_bags', { segment_id: 'seg_jmkqwx_1', passenger_id: 'pax_lucia_ferreira', bags: 2 }))).toMatchObject({ price_cents: 8000 });
      expect(data(call(asBooking('NRZQJM', 'Cole'), 'quote_bags', { segment_id: 'seg_nrzqjm_1', passenger_id: 'pax_ethan_cole', bags: 1 }))).toMatchObject({ price_cents: 0 });
      expect(code(call(db, 'quote_bags', { segment_id: 'seg_jmkqwx_1', passenger_id: 'pax_lucia_ferreira', bags: 3 }))).toBe('INVALID_ARGUMENTS');
    });

    it('a nine year old alone needs the service; pets only as dogs and cats, where there is space', () => {
      expect(data(call(asBooking('QHMWZL', 'Sorensen'), 'register_unaccompanied_minor', { passenger_id: 'pax_mia_sorensen', segment_id: 'seg_qhmwzl_1', pickup_name: 'Peter Lindqvist', pickup_phone: '+18165550198' }))).toMatchObject({ age_at_departure: 9, required: true });
      expect(code(call(asBooking('JMKQWX', 'Ferreira'), 'quote_pet_in_cabin', { passenger_id: 'pax_lucia_ferreira', segment_id: 'seg_jmkqwx_1', pet_kind: 'rabbit' }))).toBe('PET_KIND_NOT_ALLOWED');
      expect(code(call(asBooking('ZQMKFH', 'Tanaka'), 'quote_pet_in_cabin', { passenger_id: 'pax_grace_tanaka', segment_id: 'seg_zqmkfh_1', pet_kind: 'dog' }))).toBe('PET_SPACE_FULL');
    });
  });
});
