import { describe, expect, it } from 'vitest';
import type { CallDatabase } from '../../../src/store/index.ts';
import { usePackTools } from '../../support/pack-tools.ts';

/**
 * Scripts Bluestem's desks read word for word, as the audit players found them (packs/travel/README.md,
 * "Task audit decisions"): a code pasted into a sentence, a double period after "a.m.", an article
 * and a verb that did not agree, a delay the agent would have had to add up, a credit's expiry
 * said without its year, and a twenty-four hour rule worded one way in the fare rules and another
 * in a change quote.
 */
describe('travel scripts an agent reads aloud', () => {
  const tools = usePackTools('travel');
  const { fresh, call, data } = tools;
  const hammond = (): CallDatabase => {
    const db = fresh();
    expect(call(db, 'find_booking', { record_locator: 'LWKXHR', last_name: 'Hammond' }).output.ok).toBe(true);
    return db;
  };

  it('says each kind of special assistance in words, not its code', () => {
    const say = (kind: string) => String(data(call(hammond(), 'record_special_assistance', { passenger_id: 'pax_ruth_hammond', segment_id: 'seg_lwkxhr_1', kind })).script);
    expect(say('wheelchair_to_seat')).toContain('Ruth needs a wheelchair all the way to the seat on this flight.');
    expect(say('blind_or_low_vision')).toContain('Ruth needs help as a blind or low-vision traveler on this flight.');
    expect(say('extra_time_boarding')).not.toMatch(/_|extra time boarding/);
  });

  it('ends a flight status on one period after a.m. or p.m.', () => {
    const status = data(call(fresh(), 'get_flight_status', { flight_number: 'BS512', date: '2026-10-08' }));
    expect(String(status.script)).not.toContain('..');
    expect(String(status.script)).toMatch(/ a\.m\.$| p\.m\.$/);
  });

  it('gives a delayed flight its expected departure in words, and an on-time one none', () => {
    const delayed = data(call(fresh(), 'get_flight_status', { flight_number: 'BS512', date: '2026-10-08' }));
    // Scheduled at eleven a.m., one hundred fifty minutes late.
    expect(delayed).toMatchObject({ delay_minutes: 150, expected_departure_spoken: 'Thursday, October eighth at one thirty p.m.' });
    const onTime = data(call(fresh(), 'get_flight_status', { flight_number: 'BS744', date: '2026-10-16' }));
    expect(onTime).toMatchObject({ delay_minutes: 0, expected_departure_spoken: null });
  });

  it('quotes an extra legroom seat with "An" and two bags with a plural verb', () => {
    const db = hammond();
    const free = data(call(db, 'list_seats', { segment_id: 'seg_lwkxhr_1', seat_kind: 'extra_legroom', position: 'any' })) as { seats: { seat: string }[] };
    const seat = data(call(db, 'quote_seat', { segment_id: 'seg_lwkxhr_1', passenger_id: 'pax_ruth_hammond', seat: free.seats[0]?.seat }));
    expect(String(seat.script).startsWith('An extra legroom seat costs ')).toBe(true);
    const bags = data(call(hammond(), 'quote_bags', { segment_id: 'seg_lwkxhr_1', passenger_id: 'pax_ruth_hammond', bags: 2 }));
    expect(String(bags.script).startsWith('Two checked bags cost ')).toBe(true);
  });

  it("says a credit's expiry year when it is not the clock's year, and leaves this year's without one", () => {
    const db = fresh();
    expect(call(db, 'find_booking', { record_locator: 'ZQMKFH', last_name: 'Tanaka' }).output.ok).toBe(true);
    const { credits } = data(call(db, 'list_travel_credits')) as { credits: { credit_id: string; expires_on_spoken: string }[] };
    const spoken = Object.fromEntries(credits.map((c) => [c.credit_id, c.expires_on_spoken]));
    // The clock is Thursday, October 8, 2026: one credit runs to March 31, 2027, one ended yesterday.
    expect(spoken).toEqual({ crd_zqmkfh_spring: 'Wednesday, March thirty-first, twenty twenty-seven', crd_zqmkfh_old: 'Wednesday, October seventh' });
  });

  it('states the twenty-four hour rule in the same words in the fare rules and in a change quote', () => {
    const rule = 'booking made twenty-four hours ago or less, for a flight at least seven days after booking';
    const fares = data(call(fresh(), 'explain_fare_rules', { fare_family: 'main' }));
    expect(String(fares.script)).toContain(`Any ${rule}, can be changed with no change fee, paying only any higher fare, or cancelled for a full refund.`);
    // Leo Brandt booked WJRHLN thirteen hours ago for a Phoenix flight twelve days away.
    const db = fresh();
    expect(call(db, 'find_booking', { record_locator: 'WJRHLN', last_name: 'Brandt' }).output.ok).toBe(true);
    const quote = data(call(db, 'quote_flight_change', { segment_id: 'seg_wjrhln_1', new_flight_id: 'flt_bs834_1021' }));
    expect(quote).toMatchObject({ fee_cents: 0, fee_reason: `${rule}: no change fee` });
  });

  it('says when a booking was made where the twenty-four hour rule is applied, and why it does not apply', () => {
    const quote = (locator: string, last_name: string) => {
      const db = fresh();
      expect(call(db, 'find_booking', { record_locator: locator, last_name }).output.ok).toBe(true);
      return data(call(db, 'quote_cancellation', {}));
    };
    // Ava Collins booked at seven a.m. the day before the clock's nine a.m.: twenty-six hours.
    const late = quote('FXLRWK', 'Collins');
    expect(late).toMatchObject({ outcome: 'travel_credit', booked_at_spoken: 'Wednesday, October seventh at seven a.m.' });
    expect(String(late.script).startsWith('This booking was made on Wednesday, October seventh at seven a.m., more than twenty-four hours ago; a full refund applies only to a booking made twenty-four hours ago or less')).toBe(true);
    const inside = quote('WJRHLN', 'Brandt');
    expect(inside).toMatchObject({ outcome: 'refund', reason: 'twenty_four_hour_rule' });
    expect(String(inside.script)).not.toContain('This booking was made');
  });

  it('tells travelers moved to a later flight that their meal vouchers work on that day too', () => {
    const db = fresh();
    expect(call(db, 'find_booking', { record_locator: 'HKWQRZ', last_name: 'Whitfield' }).output.ok).toBe(true);
    const sent = data(call(db, 'send_meal_voucher', { segment_id: 'seg_hkwqrz_1' }));
    expect(String(sent.script)).toContain('today, and on the day of the flight you are moved to if that is later');
  });

  it('says in the tool descriptions that a disruption refund is made at payments and a voucher is sent before going there', () => {
    const { pack } = tools;
    const described = (name: string) => pack().catalog.get(name)?.description ?? '';
    expect(described('check_disruption')).toContain('quote_refund at the payments desk');
    expect(described('send_meal_voucher')).toContain('Send it before handing a refund to payments');
    expect(pack().blueprint.agents.find((a) => a.name === 'payments')?.tools.map((t) => t.name)).not.toContain('send_meal_voucher');
  });
});
