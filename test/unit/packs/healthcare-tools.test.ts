import { describe, expect, it } from 'vitest';
import { dumpDatabase, type CallDatabase } from '../../../src/store/index.ts';
import { RUNTIME_ERROR_CODES, type ToolExecution } from '../../../src/tools/index.ts';
import { usePackTools } from '../../support/pack-tools.ts';

type Args = Record<string, unknown>;
type Person = readonly [name: string, dob: string];
const ELLEN: Person = ['Ellen Brooks', '1984-03-02'];
const MARCUS: Person = ['Marcus Webb', '1979-11-19'];

describe('healthcare tools (Straus Dermatology)', () => {
  const { pack: loadedPack, fresh, latestAgain, call, data, code } = usePackTools('healthcare');
  const verify = (db: CallDatabase, [full_name, date_of_birth]: Person, extra: Args = {}): ToolExecution =>
    call(db, 'verify_identity', { full_name, date_of_birth, caller_role: 'self', ...extra });
  const asPatient = (person: Person, extra: Args = {}): CallDatabase => {
    const db = fresh();
    expect(verify(db, person, extra).output.ok).toBe(true);
    return db;
  };

  describe('gates', () => {
    /** Each gated tool with arguments that succeed for the given patient. */
    const GATED: readonly [tool: string, person: Person, args: Args][] = [
      ['get_patient_overview', ELLEN, {}],
      ['book_visit', ELLEN, { opening_id: 'opn_fox_1007_0900', visit_type: 'follow_up' }],
      ['quote_visit_change', ELLEN, { appointment_id: 'apt_park_1007_0900', action: 'cancel' }],
      ['join_waitlist', ELLEN, { visit_type: 'follow_up', location_ids: 'loc_park_ave', earliest_date: '2026-10-07', latest_date: '2026-10-20' }],
      ['send_visit_text', ELLEN, { appointment_id: 'apt_park_1007_0900' }],
      ['check_benefits', ELLEN, { visit_type: 'follow_up', location_id: 'loc_park_ave' }],
      ['update_insurance', ELLEN, { carrier: 'cigna', member_id: 'CIG12345678' }],
      ['get_balance', ['Nina Patel', '1991-06-14'], {}],
      ['explain_line_item', ['Nina Patel', '1991-06-14'], { charge_id: 'chg_nina_late_0921' }],
      ['send_payment_link', ['Nina Patel', '1991-06-14'], { amount_cents: 1000 }],
      ['set_up_payment_plan', ['Carl Jensen', '1966-01-27'], { months: 6, terms_acknowledged: true }],
      ['request_fee_review', ['Nina Patel', '1991-06-14'], { charge_id: 'chg_nina_late_0921', reason: 'weather' }],
      ['request_callback', ELLEN, { topic: 'statement_question', best_time: 'morning' }],
      ['check_result_status', ['Lucy Chen', '1990-04-17'], { kind: 'biopsy' }],
      ['request_refill', ELLEN, { medication: 'doxycycline' }],
      ['send_care_message', ELLEN, { priority: 'routine', topic: 'other', message: 'A question about my cream.' }],
      ['send_portal_invite', MARCUS, {}],
    ];

    it('lists every gated tool of the pack', () => {
      const gated = loadedPack().module.tools.filter((t) => t.gate).map((t) => t.name);
      expect([...GATED.map(([t]) => t), 'confirm_visit_change', 'send_deposit_link'].sort()).toEqual(gated.sort());
    });

    it.each(GATED)('%s refuses an unverified caller, writes nothing, and succeeds after verification', (tool, person, args) => {
      const db = fresh();
      const before = dumpDatabase(db.sqlite);
      const refused = call(db, tool, args);
      expect(code(refused)).toBe('NOT_VERIFIED');
      const after = dumpDatabase(db.sqlite);
      for (const table of Object.keys(before).filter((t) => t !== 'call_session')) expect(after[table], table).toEqual(before[table]);
      expect(verify(db, person).output.ok).toBe(true);
      expect(call(db, tool, args).output.ok, tool).toBe(true);
    });

    it('confirm_visit_change and send_deposit_link refuse before verification and work after', () => {
      const db = fresh();
      expect(code(call(db, 'confirm_visit_change', { token: 'visit_change-1' }))).toBe('NOT_VERIFIED');
      expect(code(call(db, 'send_deposit_link'))).toBe('NOT_VERIFIED');
      verify(db, MARCUS);
      data(call(db, 'quote_visit_change', { appointment_id: 'apt_park_1007_1000', action: 'cancel' }));
      expect(data(call(db, 'confirm_visit_change', { token: 'visit_change-1' })).status).toBe('cancelled');
      const cosmetic = fresh();
      verify(cosmetic, ['Maya Ross', '2008-10-06']);
      data(call(cosmetic, 'hold_cosmetic_consult', { opening_id: 'opn_hale_1007_0900', service: 'filler' }));
      data(call(cosmetic, 'confirm_cosmetic_consult', { token: 'cosmetic_consult-1', policy_acknowledged: true }));
      expect(data(call(cosmetic, 'send_deposit_link')).amount_cents).toBe(7500);
    });

    it('transfer_to_human works before identification and after a lock', () => {
      const db = fresh();
      for (const dob of ['1984-03-12', '1984-02-03', '1983-03-02']) verify(db, ['Ellen Brooks', dob]);
      expect(code(verify(db, ELLEN))).toBe('IDENTITY_LOCKED');
      expect(data(call(db, 'transfer_to_human', { reason: 'identity_locked' })).transferred).toBe(true);
      expect(dumpDatabase(db.sqlite).escalations).toHaveLength(1);
    });
  });

  describe('identity', () => {
    it('asks for a second factor for the duplicate name and birth date, and the ZIP picks the record', () => {
      const db = fresh();
      expect(code(verify(db, ['Grace Holloway', '1988-02-11']))).toBe('NEED_SECOND_FACTOR');
      expect(data(verify(db, ['Grace Holloway', '1988-02-11'], { zip_code: '10021' })).patient_id).toBe('pat_grace_holloway_park');
      expect(data(verify(fresh(), ['grace holloway', 'February 11, 1988'], { zip_code: '11215' })).patient_id).toBe('pat_grace_holloway_cobble');
      expect(code(verify(fresh(), ['Grace Holloway', '1988-02-11'], { zip_code: '10001' }))).toBe('NO_MATCH');
    });

    it('tolerates one slip in a long name but never in the birth date, and locks on the third failure', () => {
      expect(data(verify(fresh(), ['Elen Brooks', '1984-03-02'])).patient_id).toBe('pat_ellen_brooks');
      const db = fresh();
      expect(code(verify(db, ['Ellen Brooks', '1984-03-03']))).toBe('NO_MATCH');
      expect(code(verify(db, ['Ellen Brooks', '1984-03-04']))).toBe('NO_MATCH');
      expect(code(verify(db, ['Ellen Brooks', '1984-03-05']))).toBe('IDENTITY_LOCKED');
      expect(code(verify(db, ELLEN))).toBe('IDENTITY_LOCKED');
    });

    it('lets a guardian on file act for a minor and refuses a parent of an adult', () => {
      const leo = verify(fresh(), ['Leo Marsh', '2011-03-22'], { caller_role: 'parent_or_guardian', guardian_name: 'Anna Marsh' });
      expect(data(leo).guardian_relationship).toBe('mother');
      expect(code(verify(fresh(), ['Jake Dalton', '2006-05-09'], { caller_role: 'parent_or_guardian', guardian_name: 'Karen Dalton' }))).toBe('GUARDIAN_NOT_ON_FILE');
      expect(code(verify(fresh(), ['Leo Marsh', '2011-03-22'], { caller_role: 'parent_or_guardian' }))).toBe('GUARDIAN_NAME_REQUIRED');
    });
  });

  describe('traps on both sides of each threshold', () => {
    const quoteCancel = (person: Person, appointment: string): Record<string, unknown> =>
      data(call(asPatient(person), 'quote_visit_change', { appointment_id: appointment, action: 'cancel' }));

    it('late change fee: 23 hours costs $40, exactly 24 hours is free', () => {
      expect(quoteCancel(ELLEN, 'apt_park_1007_0900')).toMatchObject({ hours_notice: 23, fee_cents: 4000, requires_acknowledgement: true });
      expect(quoteCancel(MARCUS, 'apt_park_1007_1000')).toMatchObject({ hours_notice: 24, fee_cents: 0, requires_acknowledgement: false });
    });

    it('cosmetic deposit: kept at 47 hours, refunded at exactly 48 hours', () => {
      expect(quoteCancel(['Sofia Marino', '1993-01-20'], 'apt_bell_1008_0900')).toMatchObject({ deposit_outcome: 'forfeited', fee_cents: 0 });
      expect(quoteCancel(['Claire Donovan', '1987-05-29'], 'apt_bell_1008_1000')).toMatchObject({ deposit_outcome: 'refunded', fee_cents: 0 });
    });

    it('payment plans start at $300: $295 refused, $300 and $310 accepted with the monthly amount rounded up', () => {
      const nina = asPatient(['Nina Patel', '1991-06-14']);
      expect(data(call(nina, 'get_balance')).payment_plan).toMatchObject({ eligible: false, threshold_cents: 30000 });
      const refused = call(nina, 'set_up_payment_plan', { months: 3, terms_acknowledged: true });
      expect([code(refused), refused.output.data]).toEqual(['PLAN_NOT_ELIGIBLE', { recoverable: false, actual_cents: 29500, threshold_cents: 30000 }]);
      expect(data(call(asPatient(['Carl Jensen', '1966-01-27']), 'set_up_payment_plan', { months: 6, terms_acknowledged: true })).monthly_cents).toBe(5000);
      const tessa = asPatient(['Tessa Moore', '1975-09-03']);
      expect(code(call(tessa, 'set_up_payment_plan', { months: 7, terms_acknowledged: true }))).toBe('PLAN_MONTHS_OUT_OF_RANGE');
      expect(code(call(tessa, 'set_up_payment_plan', { months: 3, terms_acknowledged: false }))).toBe('ACK_REQUIRED');
      expect(data(call(tessa, 'set_up_payment_plan', { months: 3, terms_acknowledged: true })).monthly_cents).toBe(10334);
    });

    it('payment links take $10 up to the balance', () => {
      const nina = asPatient(['Nina Patel', '1991-06-14']);
      expect(code(call(nina, 'send_payment_link', { amount_cents: 999 }))).toBe('AMOUNT_OUT_OF_RANGE');
      expect(code(call(nina, 'send_payment_link', { amount_cents: 29501 }))).toBe('AMOUNT_OUT_OF_RANGE');
      expect(data(call(nina, 'send_payment_link', { amount_cents: '$10' })).amount_cents).toBe(1000);
      expect(data(call(nina, 'send_payment_link', { amount_cents: 29500 })).amount_cents).toBe(29500);
      expect(code(call(asPatient(['Olivia Hart', '1997-08-25']), 'send_visit_text', { appointment_id: 'apt_reyes_1009_1100' }))).toBe('NO_MOBILE_ON_FILE');
    });

    it('carriers: accepted, not accepted with the offices that take it, and cannot confirm', () => {
      const db = fresh();
      expect(data(call(db, 'check_plan_accepted', { carrier: 'Aetna', location_id: 'Park Ave' })).status).toBe('accepted');
      const stamford = data(call(db, 'check_plan_accepted', { carrier: 'aetna', location_id: 'loc_stamford' }));
      expect(stamford.status).toBe('not_accepted');
      expect((stamford.accepted_at as { location_id: string }[]).map((o) => o.location_id)).toEqual(['loc_cobble_hill', 'loc_park_ave', 'loc_white_plains']);
      expect(data(call(db, 'check_plan_accepted', { carrier: 'Blue Cross', location_id: 'Stamford' })).status).toBe('not_accepted');
      expect(data(call(db, 'check_plan_accepted', { carrier: 'Medicaid', location_id: 'Brooklyn' })).status).toBe('accepted');
      expect(data(call(db, 'check_plan_accepted', { carrier: 'Some Local Plan', location_id: 'loc_white_plains' })).status).toBe('cannot_confirm');
      const henry = asPatient(['Henry Doyle', '1958-12-05']);
      expect(data(call(henry, 'check_benefits', { visit_type: 'follow_up', location_id: 'loc_stamford' })).network_status).toBe('out_of_network');
      expect(data(call(henry, 'check_benefits', { visit_type: 'follow_up', location_id: 'loc_white_plains' })).copay_cents).toBe(4000);
      expect(code(call(asPatient(['Sam Rivera', '1999-04-04']), 'check_benefits', { visit_type: 'follow_up', location_id: 'loc_cobble_hill' }))).toBe('NO_INSURANCE_ON_FILE');
    });

    it('injectable consults from 18: the birthday today counts, 15 and a day short of 18 do not', () => {
      expect(call(asPatient(['Maya Ross', '2008-10-06']), 'hold_cosmetic_consult', { opening_id: 'opn_hale_1007_0900', service: 'filler' }).output.ok).toBe(true);
      const leo = asPatient(['Leo Marsh', '2011-03-22'], { caller_role: 'parent_or_guardian', guardian_name: 'Anna Marsh' });
      expect(code(call(leo, 'hold_cosmetic_consult', { opening_id: 'opn_bell_1007_0900', service: 'Botox' }))).toBe('AGE_RESTRICTED');
      expect(call(leo, 'hold_cosmetic_consult', { opening_id: 'opn_bell_1007_0900', service: 'chemical_peel' }).output.ok).toBe(true);
      const newCaller = { opening_id: 'opn_bell_1007_0900', service: 'filler', full_name: 'Zoe Hart', date_of_birth: '2008-10-07', mobile_phone: '212 555 0199' };
      expect(code(call(fresh(), 'hold_cosmetic_consult', newCaller))).toBe('AGE_RESTRICTED');
    });

    it('children book pediatric visits at Cobble Hill only', () => {
      const leo = asPatient(['Leo Marsh', '2011-03-22'], { caller_role: 'parent_or_guardian', guardian_name: 'Anna Marsh' });
      expect(code(call(leo, 'book_visit', { opening_id: 'opn_fox_1007_0900', visit_type: 'follow_up' }))).toBe('AGE_NOT_ELIGIBLE');
      expect(code(call(leo, 'find_openings', { visit_type: 'pediatric_visit', location_id: 'loc_park_ave' }))).toBe('VISIT_TYPE_NOT_AT_LOCATION');
      expect(data(call(leo, 'book_visit', { opening_id: 'opn_ortiz_1007_1400', visit_type: 'pediatric_visit' })).appointment_id).toBe('apt_ortiz_1007_1400');
      expect(data(call(fresh(), 'classify_visit', { reason: 'eczema', patient_status: 'new', patient_age_years: 17 })).visit_type).toBe('pediatric_visit');
      expect(data(call(fresh(), 'classify_visit', { reason: 'eczema', patient_status: 'new', patient_age_years: 18 })).visit_type).toBe('new_patient');
    });

    it('refills: 12 months to the day is fine, a day more needs a visit, isotretinoin never by phone', () => {
      expect(data(call(asPatient(['Iris Novak', '1971-10-30']), 'request_refill', { medication: 'Retin-A' })).status).toBe('sent_to_prescriber');
      expect(code(call(asPatient(['Iris Novak', '1971-10-30']), 'request_refill', { medication: 'clindamycin' }))).toBe('MEDICATION_NOT_ON_LIST');
      expect(data(call(asPatient(['Adam Foster', '1982-08-08']), 'request_refill', { medication: 'Efudex' })).decide_by_spoken).toBe('Thursday, October eighth');
      expect(code(call(asPatient(['Paul Brennan', '1969-02-14']), 'request_refill', { medication: 'clobetasol' }))).toBe('REFILL_NEEDS_VISIT');
      expect(code(call(asPatient(['Ruby Castillo', '2004-07-30']), 'request_refill', { medication: 'Accutane' }))).toBe('REFILL_BY_VISIT_ONLY');
    });

    it('results give status only: pending, awaiting review, or a confident negative', () => {
      expect(data(call(asPatient(['Lucy Chen', '1990-04-17']), 'check_result_status', { kind: 'biopsy' })).status).toBe('pending');
      const adam = asPatient(['Adam Foster', '1982-08-08']);
      expect(data(call(adam, 'check_result_status', { kind: 'pathology' })).status).toBe('awaiting_review');
      expect(code(call(adam, 'check_result_status', { kind: 'blood_work' }))).toBe('RESULT_NOT_ON_FILE');
    });

    it('waitlists: 30 days and three offices are the limits', () => {
      const db = asPatient(ELLEN);
      const base = { visit_type: 'follow_up', earliest_date: '2026-10-07' };
      expect(data(call(db, 'join_waitlist', { ...base, location_ids: 'loc_park_ave,loc_cobble_hill,loc_white_plains', latest_date: '2026-11-06' })).span_days).toBe(30);
      expect(code(call(db, 'join_waitlist', { ...base, location_ids: 'loc_park_ave', latest_date: '2026-11-07' }))).toBe('WAITLIST_RANGE_TOO_LONG');
      expect(code(call(db, 'join_waitlist', { ...base, location_ids: ['Park Avenue', 'Cobble Hill', 'White Plains', 'Stamford'], latest_date: '2026-10-20' }))).toBe('WAITLIST_TOO_MANY_OFFICES');
    });

    it('fee reviews: late fees only, one review each', () => {
      expect(data(call(asPatient(['Nina Patel', '1991-06-14']), 'request_fee_review', { charge_id: 'chg_nina_late_0921', reason: 'transportation' })).decide_by).toBe('2026-10-09');
      const ben = asPatient(['Ben Carter', '1986-12-12']);
      expect(code(call(ben, 'request_fee_review', { charge_id: 'chg_ben_late_0810', reason: 'other' }))).toBe('FEE_REVIEW_EXISTS');
      expect(code(call(ben, 'request_fee_review', { charge_id: 'chg_ben_visit_0903', reason: 'other' }))).toBe('FEE_REVIEW_NOT_ALLOWED');
      expect(code(call(ben, 'explain_line_item', { charge_id: 'chg_nina_late_0921' }))).toBe('CHARGE_NOT_FOUND');
    });
  });

  describe('two-step writes', () => {
    it('gives each token failure its own code and writes from the stored payload', () => {
      const db = asPatient(ELLEN);
      expect(code(call(db, 'confirm_visit_change', { token: 'visit_change-9' }))).toBe('TOKEN_UNKNOWN');
      data(call(db, 'quote_visit_change', { appointment_id: 'apt_park_1007_0900', action: 'cancel' }));
      data(call(db, 'quote_visit_change', { appointment_id: 'apt_park_1007_0900', action: 'move', new_opening_id: 'opn_bell_1013_0900' }));
      expect(code(call(db, 'confirm_visit_change', { token: 'visit_change-1', fee_acknowledged: true }))).toBe('TOKEN_SUPERSEDED');
      expect(code(call(db, 'confirm_visit_change', { token: 'visit_change-2' }))).toBe('ACK_REQUIRED');
      expect(data(call(db, 'confirm_visit_change', { token: 'visit_change-2', fee_acknowledged: true })).new_appointment_id).toBe('apt_bell_1013_0900');
      expect(code(call(db, 'confirm_visit_change', { token: 'visit_change-2', fee_acknowledged: true }))).toBe('TOKEN_USED');
      const dump = dumpDatabase(db.sqlite);
      expect(dump.charges?.find((c) => c.id === 'chg_late_park_1007_0900')).toMatchObject({ amount_cents: 4000, status: 'open' });
      expect(dump.openings?.find((o) => o.id === 'opn_park_1007_0900')?.status).toBe('open');
      expect(dump.openings?.find((o) => o.id === 'opn_bell_1013_0900')?.status).toBe('booked');
    });

    it('refuses a token of another kind or another patient', () => {
      const db = fresh();
      data(call(db, 'hold_cosmetic_consult', { opening_id: 'opn_bell_1007_0900', service: 'chemical_peel', full_name: 'Ivy Lane', date_of_birth: '1990-01-01', mobile_phone: '+12125550101' }));
      verify(db, MARCUS);
      expect(code(call(db, 'confirm_visit_change', { token: 'cosmetic_consult-1' }))).toBe('TOKEN_WRONG_KIND');
      data(call(db, 'quote_visit_change', { appointment_id: 'apt_park_1007_1000', action: 'cancel' }));
      verify(db, ELLEN);
      expect(code(call(db, 'confirm_visit_change', { token: 'visit_change-1' }))).toBe('TOKEN_WRONG_OWNER');
    });

    it('confirms in a fresh executor on the same file', () => {
      const db = asPatient(['Claire Donovan', '1987-05-29']);
      data(call(db, 'quote_visit_change', { appointment_id: 'apt_bell_1008_1000', action: 'cancel' }));
      const reopened = latestAgain();
      expect(data(call(reopened, 'confirm_visit_change', { token: 'visit_change-1' })).deposit_outcome).toBe('refunded');
      expect(dumpDatabase(reopened.sqlite).charges?.find((c) => c.id === 'chg_claire_deposit')?.status).toBe('refund_due');
    });
  });

  describe('idempotency', () => {
    it.each([
      ['book_visit', ELLEN, { opening_id: 'opn_fox_1007_0900', visit_type: 'follow_up' }, 'appointments'],
      ['send_visit_text', ELLEN, { appointment_id: 'apt_park_1007_0900' }, 'texts'],
      ['request_refill', ELLEN, { medication: 'doxycycline' }, 'refill_requests'],
      ['send_payment_link', ['Nina Patel', '1991-06-14'], { amount_cents: 5000 }, 'payment_links'],
      ['request_callback', ELLEN, { topic: 'treatment_question', best_time: 'afternoon' }, 'callbacks'],
      ['send_portal_invite', MARCUS, {}, 'portal_invites'],
      ['update_insurance', ELLEN, { carrier: 'cigna', member_id: 'CIG12345678' }, 'patients'],
      ['transfer_to_human', ELLEN, { reason: 'caller_request' }, 'escalations'],
    ] as const)('%s repeated writes nothing and says idempotent', (tool, person, args, table) => {
      const db = asPatient(person);
      expect(data(call(db, tool, args)).idempotent).toBe(false);
      const once = dumpDatabase(db.sqlite)[table];
      expect(data(call(db, tool, args)).idempotent).toBe(true);
      expect(dumpDatabase(db.sqlite)[table]).toEqual(once);
    });

    it('list_locations keys offices by id, so the office asked about reads the same filtered or not', () => {
      const db = fresh();
      type Offices = { locations: Record<string, Record<string, unknown>> };
      const every = data(call(db, 'list_locations', {})) as Offices;
      expect(Object.keys(every.locations)).toEqual(['loc_park_ave', 'loc_cobble_hill', 'loc_white_plains', 'loc_stamford']);
      const one = data(call(db, 'list_locations', { location_id: 'White Plains' })) as Offices;
      expect(Object.keys(one.locations)).toEqual(['loc_white_plains']);
      expect(one.locations.loc_white_plains).toEqual(every.locations.loc_white_plains);
      expect(one.locations.loc_white_plains).toMatchObject({ floor: 'Second floor' });
      expect(String(one.locations.loc_white_plains?.parking)).toContain('Free parking');
    });

    it('registers a new patient once per call and refuses an existing record', () => {
      const db = fresh();
      const args = { full_name: 'Ivy Lane', date_of_birth: '1990-01-01', mobile_phone: '(212) 555-0101', zip_code: '10001' };
      expect(data(call(db, 'register_new_patient', args))).toMatchObject({ patient_id: 'pat_ivy_lane_19900101', idempotent: false });
      expect(data(call(db, 'register_new_patient', args)).idempotent).toBe(true);
      expect(code(call(fresh(), 'register_new_patient', { ...args, full_name: 'Ellen Brooks', date_of_birth: '1984-03-02' }))).toBe('PATIENT_EXISTS');
      expect(code(call(fresh(), 'register_new_patient', { ...args, date_of_birth: '2015-01-01' }))).toBe('GUARDIAN_REQUIRED');
    });
  });

  describe('safe messages', () => {
    const HOSTILE = ['TypeError: x is undefined', "'; DROP TABLE patients; --", 'Ignore previous instructions', '2026-02-30', '$-5', '9'.repeat(40)];
    const catalogued = (): Set<string> => new Set([...Object.values(loadedPack().module.errorCodes), ...Object.values(RUNTIME_ERROR_CODES)].map((e) => e.safe_message));

    it('every dispatchable tool answers {} and fuzzed arguments with a catalogued sentence and no fault', () => {
      const allowed = catalogued();
      const tools = [...loadedPack().catalog.values()].filter((t) => t.definition);
      for (const db of [fresh(), asPatient(ELLEN)]) {
        for (const tool of tools) {
          const fields = Object.keys(tool.input.shape);
          const attempts: unknown[] = [{}, null, 'text', ...HOSTILE.map((h) => Object.fromEntries(fields.map((f) => [f, h])))];
          for (const args of attempts) {
            const ex = call(db, tool.name, args);
            expect(ex.internalFault, `${tool.name} ${JSON.stringify(args)}`).toBeNull();
            if (ex.output.ok) continue;
            expect(allowed.has(ex.output.safe_message ?? ''), `${tool.name}: ${ex.output.safe_message}`).toBe(true);
            for (const h of HOSTILE) expect(ex.output.safe_message).not.toContain(h);
          }
        }
      }
    });
  });
});
