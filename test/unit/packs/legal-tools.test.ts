import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { dumpDatabase, type CallDatabase } from '../../../src/store/index.ts';
import { type ToolExecution } from '../../../src/tools/index.ts';
import { usePackTools } from '../../support/pack-tools.ts';

type Args = Record<string, unknown>;
/** Matter number and date of birth of seeded clients. */
const DENISE = { matter_number: '24-0917', date_of_birth: '1979-05-14' }; // discovery
const GERALD = { matter_number: '25-0112', date_of_birth: '1968-11-02' }; // closed matter
const SAMUEL = { matter_number: '26-0341', date_of_birth: '1974-12-03' }; // open product matter, Elena Ruiz
const ANGELA = { matter_number: '24-0611', date_of_birth: '1990-09-09' }; // lawsuit filed, moved

/** A prospect's screened intake: area, state, incident date and the party checked. */
const PROSPECT = { caller_name: 'Maria Lopez', phone: '+14125550199', email: 'maria.lopez@example.com', summary: 'Rear-ended at a light; neck and back pain since.' };

describe('legal tools (Halverson & Reed)', () => {
  const { pack, fresh, call, data, code } = usePackTools('legal');
  const asClient = (who: Args): CallDatabase => {
    const db = fresh();
    data(call(db, 'verify_client', { ...who, caller_role: 'client' }));
    return db;
  };
  /** Screens and opens an intake on a fresh call. */
  const withIntake = (area: string, state: string, incident_date: string, opposing_party = 'Keystone Regional Transit', extra: Args = {}): CallDatabase => {
    const db = fresh();
    expect(data(call(db, 'check_conflict', { opposing_party })).status).toBe('clear');
    expect(data(call(db, 'check_case_fit', { area, state })).status).toBe('accepted');
    data(call(db, 'create_intake', { ...PROSPECT, area, state, incident_date, opposing_party, ...extra }));
    return db;
  };
  const scoredTables = (db: CallDatabase): Record<string, unknown> => {
    const dump = dumpDatabase(db.sqlite);
    return Object.fromEntries(Object.entries(dump).filter(([t]) => pack().compare.tables[t]?.scored === true));
  };

  describe('the conflict check', () => {
    it.each([
      ['Brightwater Freight', 'conflict'], // current client
      ['Brightwater Freight Lines', 'conflict'], // alias
      ['brightwater logistics, inc.', 'conflict'], // alias, case and suffix folded
      ['Allegheny Mutual', 'conflict'], // alias of a current client
      ['Allegheny Mutual Insurance Company', 'conflict'], // legal suffix dropped
      ['Summit Ridge Apartments', 'needs_review'], // former client
      ['Summit Ridge Property Management', 'needs_review'], // alias of a former client
      ['Ohio Valley Medical Center', 'needs_review'], // former client
      ['OVMC', 'needs_review'], // initials on file
      ['Brightwater Frieght', 'needs_review'], // near-miss spelling of a current client: review, never clear
      ['Alleghany Mutual Insurance', 'needs_review'], // one letter off
      ['Brightwater', 'needs_review'], // contained in a client's name
      ['Allegheny Insurance', 'needs_review'], // words contained in a client's name
      ['Brightwater Trucking', 'needs_review'], // the whole distinctive core of a current client plus a word
      ['Brightwater truck', 'needs_review'],
      ['Summit Ridge Dental', 'needs_review'], // a former client's core plus a word
      ['Allegheny General Hospital', 'needs_review'], // "allegheny" is all of Allegheny Mutual Insurance's core: a person looks
      ['Allegheny Heights Medical Group', 'needs_review'],
      ['Ohio Valley Millwork', 'needs_review'], // holds "ohio valley"
      ['Denise Kowalski', 'conflict'], // the firm's client, matter open
      ['denise kowalski', 'conflict'],
      ['Samuel Greer', 'conflict'], // open matter
      ['Denise Kowalsky', 'needs_review'], // a slip of a client's name
      ['Denise M. Kowalski', 'needs_review'], // a client's name plus a word
      ['Kowalski', 'needs_review'], // contained in a client's name
      ['Gerald Finch', 'needs_review'], // a client whose only matter is closed
      ['Mr. Greer', 'needs_review'], // a current client by title and surname: never clear
      ['Sam Greer', 'needs_review'], // a current client's nickname
      ['Angie Moretti', 'needs_review'],
      ['D. Kowalski', 'needs_review'], // an initial and the surname
      ['Denise K.', 'needs_review'], // the first name and the surname's initial
      ['The Company', 'needs_review'], // nothing left after folding identifies no one
      ['LLC', 'needs_review'],
      ['Brightwell Foods', 'clear'], // unrelated, shares only a prefix
      ['Keystone Regional Transit', 'clear'],
      ['Medical Center', 'clear'], // generic words alone are no match
      ['Valley Medical Supply', 'clear'], // part of a former client's core and generic words only
      ['Valley Medical Imaging', 'clear'], // C2-H1's look-alike
      ['Riverbend Freight Lines', 'clear'], // C2-H2's look-alike: only generic words of a current client's alias
      ['Summit Hill Apartments', 'clear'], // part of a core
      ['Denise Walker', 'clear'], // shares a client's first name only
      ['Riverside Grocery', 'clear'],
    ])('%s is %s', (party, status) => {
      const out = data(call(fresh(), 'check_conflict', { opposing_party: party }));
      expect(out.status).toBe(status);
      if (status === 'conflict') expect(String(out.script)).not.toMatch(/client|Brightwater|Allegheny|Kowalski|Greer/);
    });

    it("a client's name gets the same answer as any party on file, saying nothing about the client", () => {
      const strip = (out: Record<string, unknown>): Record<string, unknown> => ({ ...out, opposing_party: '' });
      const party = strip(data(call(fresh(), 'check_conflict', { opposing_party: 'Brightwater Freight' })));
      expect(strip(data(call(fresh(), 'check_conflict', { opposing_party: 'Denise Kowalski' })))).toEqual(party);
      const review = strip(data(call(fresh(), 'check_conflict', { opposing_party: 'Summit Ridge Apartments' })));
      const closed = data(call(fresh(), 'check_conflict', { opposing_party: 'Gerald Finch' }));
      expect(strip(closed)).toEqual(review);
      expect(JSON.stringify(closed)).not.toMatch(/25-0112|closed|Reed|Columbus|wage/i);
    });

    /** Every name and alias on file: adverse parties and the firm's clients. */
    const namesOnFile = (): string[] => {
      const dump = dumpDatabase(fresh().sqlite);
      return [...(dump.adverse_parties ?? []).map((r) => String(r.name)), ...(dump.clients ?? []).map((r) => String(r.full_name))];
    };

    it('never fails open: a name or alias on file with one more word is never clear', () => {
      const names = namesOnFile();
      expect(names.length).toBeGreaterThan(15);
      const db = fresh();
      fc.assert(
        fc.property(fc.constantFrom(...names), fc.stringMatching(/^[A-Za-z][A-Za-z'-]{0,11}$/), fc.nat(), (name, word, at) => {
          const words = name.split(' ');
          const i = at % (words.length + 1);
          const spoken = [...words.slice(0, i), word, ...words.slice(i)].join(' ');
          expect(data(call(db, 'check_conflict', { opposing_party: spoken })).status, spoken).not.toBe('clear');
        }),
        { numRuns: 400 },
      );
    });

    it('never fails open: every one-letter slip of a name on file is a conflict or a review', () => {
      const names = namesOnFile();
      expect(names.length).toBeGreaterThan(15);
      const slips = names.flatMap((name) =>
        [...name].flatMap((ch, i) => (/[A-Za-z]/.test(ch) ? [name.slice(0, i) + name.slice(i + 1), name.slice(0, i) + (ch.toLowerCase() === 'x' ? 'q' : 'x') + name.slice(i + 1)] : [])),
      );
      const db = fresh();
      const open = slips.filter((s) => s.trim().length >= 2 && data(call(db, 'check_conflict', { opposing_party: s })).status === 'clear');
      expect(open).toEqual([]);
    });
  });

  describe('the conflict gate in create_intake', () => {
    const intake = { ...PROSPECT, area: 'car_accident', state: 'PA', incident_date: '2025-06-01', opposing_party: 'Keystone Regional Transit' };

    it('refuses before screening, and writes nothing', () => {
      const db = fresh();
      const before = scoredTables(db);
      const out = call(db, 'create_intake', intake);
      expect([code(out), (out.output.data as Args).missing]).toEqual(['CONFLICT_CHECK_REQUIRED', ['conflict_check', 'case_fit']]);
      expect(scoredTables(db)).toEqual(before);
    });

    it('needs both a clear conflict check on the same party and an accepted case fit', () => {
      const db = fresh();
      data(call(db, 'check_conflict', { opposing_party: 'Keystone Regional Transit' }));
      expect((call(db, 'create_intake', intake).output.data as Args).missing).toEqual(['case_fit']);
      data(call(db, 'check_case_fit', { area: 'car_accident', state: 'WV' }));
      expect((call(db, 'create_intake', intake).output.data as Args).missing).toEqual(['case_fit']);
      data(call(db, 'check_case_fit', { area: 'car crash', state: 'Pennsylvania' }));
      expect(code(call(db, 'create_intake', { ...intake, opposing_party: 'Brightwell Foods' }))).toBe('CONFLICT_CHECK_REQUIRED');
      const created = data(call(db, 'create_intake', { ...intake, opposing_party: 'Keystone Regional Transit, Inc.' }));
      expect(created).toMatchObject({ intake_id: 'int_maria_lopez_20250601', priority: 'standard', window_status: 'open', idempotent: false });
      expect(data(call(db, 'create_intake', intake)).idempotent).toBe(true);
      expect(dumpDatabase(db.sqlite).intakes).toHaveLength(1);
    });

    it('a conflict or a review never opens the gate', () => {
      for (const party of ['Brightwater Freight', 'Summit Ridge Apartments', 'Brightwater Frieght']) {
        const db = fresh();
        data(call(db, 'check_conflict', { opposing_party: party }));
        data(call(db, 'check_case_fit', { area: 'car_accident', state: 'PA' }));
        expect(code(call(db, 'create_intake', { ...intake, opposing_party: party })), party).toBe('CONFLICT_CHECK_REQUIRED');
      }
    });
  });

  describe('case fit and fees', () => {
    it.each([
      ['car_accident', 'PA', 'accepted', null, 30, 36, 0],
      ['slip and fall', 'West Virginia', 'accepted', null, 30, 36, 0],
      ['workplace_injury', 'OH', 'accepted', null, 20, 20, 0],
      ['workplace_injury', 'WV', 'declined', 'area_not_in_state', null, null, null], // workplace injury in West Virginia
      ['medical_malpractice', 'PA', 'accepted', null, 30, 36, 0],
      ['medical_malpractice', 'OH', 'declined', 'area_not_in_state', null, null, null], // malpractice in Ohio
      ['employment_discrimination', 'WV', 'accepted', null, 35, 35, 15000], // the $150 employment consult
      ['unpaid overtime', 'OH', 'accepted', null, 35, 35, 15000],
      ['age discrimination', 'OH', 'accepted', null, 35, 35, 15000], // the caller's words, not a decline
      ['sexual harassment', 'PA', 'accepted', null, 35, 35, 15000],
      ['wage_claim', 'PA', 'declined', 'area_not_in_state', null, null, null],
      ['car_accident', 'NY', 'declined', 'state_not_licensed', null, null, null],
      ['divorce', 'PA', 'declined', 'area_not_handled', null, null, null],
      ['bankruptcy', 'OH', 'declined', 'area_not_handled', null, null, null],
    ])('%s in %s is %s', (area, state, status, reason, before, after, consult) => {
      const out = data(call(fresh(), 'check_case_fit', { area, state }));
      expect([out.status, out.decline_reason, out.fee_percent_before_suit, out.fee_percent_after_suit, out.consult_fee_cents]).toEqual([status, reason, before, after, consult]);
      expect(String(out.script).length).toBeGreaterThan(20);
    });

    it('an area phrase it cannot read is an invalid argument, never a silent decline as other', () => {
      for (const area of ['personal injury', 'wrongful death', 'employment']) {
        const out = call(fresh(), 'check_case_fit', { area, state: 'OH' });
        expect([code(out), (out.output.data as Args).invalid_fields], area).toEqual(['INVALID_ARGUMENTS', expect.arrayContaining(['area'])]);
      }
      expect(data(call(fresh(), 'check_case_fit', { area: 'other', state: 'OH' }))).toMatchObject({ status: 'declined', decline_reason: 'area_not_handled' });
    });

    it('the employment consult fee needs acknowledgement; an injury consult is free', () => {
      const db = withIntake('employment_discrimination', 'PA', '2026-08-03');
      const times = data(call(db, 'find_consult_times', { area: 'employment_discrimination', location: 'off_pittsburgh' }));
      const [first] = times.openings as { opening_id: string }[];
      const held = data(call(db, 'hold_consult', { opening_id: first?.opening_id }));
      expect(held).toMatchObject({ fee_cents: 15000, fee_display: '$150.00', fee_reason: 'employment_consult', fee_acknowledgement_required: true });
      expect(code(call(db, 'confirm_consult', { token: held.token }))).toBe('ACK_REQUIRED');
      expect(code(call(db, 'confirm_consult', { token: held.token, fee_acknowledged: false }))).toBe('ACK_REQUIRED');
      expect(data(call(db, 'confirm_consult', { token: held.token, fee_acknowledged: true }))).toMatchObject({ fee_cents: 15000, fee_status: 'due_at_consult' });
      expect(code(call(db, 'confirm_consult', { token: held.token, fee_acknowledged: true }))).toBe('TOKEN_USED');

      const injury = withIntake('car_accident', 'PA', '2026-05-02');
      const slot = (data(call(injury, 'find_consult_times', { area: 'car_accident', location: 'Pittsburgh' })).openings as { opening_id: string }[])[0];
      const free = data(call(injury, 'hold_consult', { opening_id: slot?.opening_id }));
      expect(free).toMatchObject({ fee_cents: 0, fee_acknowledgement_required: false });
      expect(data(call(injury, 'confirm_consult', { token: free.token }))).toMatchObject({ fee_status: 'none' });
    });
  });

  describe('filing windows on the 2026-10-07 clock', () => {
    it.each([
      ['car_accident', '2024-12-07', 61, 'open'],
      ['car_accident', '2024-12-06', 60, 'urgent'], // the 60-day edge is urgent
      ['car_accident', '2024-10-07', 0, 'urgent'], // the deadline day is still urgent
      ['car_accident', '2024-10-06', -1, 'expired'],
      ['product_injury', '2024-12-06', 60, 'urgent'],
      ['workplace_injury', '2025-12-07', 61, 'open'],
      ['workplace_injury', '2025-12-06', 60, 'urgent'],
      ['workplace_injury', '2025-10-07', 0, 'urgent'],
      ['workplace_injury', '2025-10-06', -1, 'expired'],
      ['employment_discrimination', '2026-04-11', 61, 'open'],
      ['employment_discrimination', '2026-04-10', 60, 'urgent'],
      ['employment_discrimination', '2026-02-09', 0, 'urgent'],
      ['employment_discrimination', '2026-02-08', -1, 'expired'],
      ['wage_claim', '2023-12-07', 61, 'open'],
      ['wage_claim', '2023-12-06', 60, 'urgent'],
      ['wage_claim', '2023-10-07', 0, 'urgent'],
      ['wage_claim', '2023-10-06', -1, 'expired'],
    ])('%s on %s: %i days left, %s', (area, incident_date, days, status) => {
      expect(data(call(fresh(), 'check_filing_window', { area, incident_date }))).toMatchObject({ days_left: days, status });
    });

    it('February 29 becomes February 28 in a year without it', () => {
      const db = fresh();
      expect(data(call(db, 'check_filing_window', { area: 'car_accident', incident_date: '2024-02-29' }))).toMatchObject({ deadline: '2026-02-28', status: 'expired' });
      expect(data(call(db, 'check_filing_window', { area: 'workplace_injury', incident_date: '2024-02-29' }))).toMatchObject({ deadline: '2025-02-28' });
      expect(data(call(db, 'check_filing_window', { area: 'wage_claim', incident_date: '2024-02-29' }))).toMatchObject({ deadline: '2027-02-28', days_left: 144, status: 'open' });
      expect(data(call(db, 'check_filing_window', { area: 'wage_claim', incident_date: '2024-03-01' }))).toMatchObject({ deadline: '2027-03-01', days_left: 145 });
      expect(data(call(db, 'check_filing_window', { area: 'car_accident', incident_date: 'February 29, 2024' }))).toMatchObject({ deadline: '2026-02-28' });
    });

    it('refuses a future date and an area the firm never handles', () => {
      expect(code(call(fresh(), 'check_filing_window', { area: 'car_accident', incident_date: '2026-10-08' }))).toBe('INCIDENT_DATE_INVALID');
      expect(code(call(fresh(), 'check_filing_window', { area: 'family', incident_date: '2026-01-08' }))).toBe('AREA_NOT_HANDLED');
    });

    it('create_intake opens urgent on the deadline day and refuses a day past for deadline review', () => {
      expect(data(call(withIntake('car_accident', 'PA', '2024-10-07'), 'add_case_note', { topic: 'injuries', note: 'Broken wrist.' })).idempotent).toBe(false);
      const urgent = fresh();
      data(call(urgent, 'check_conflict', { opposing_party: 'Keystone Regional Transit' }));
      data(call(urgent, 'check_case_fit', { area: 'car_accident', state: 'PA' }));
      expect(data(call(urgent, 'create_intake', { ...PROSPECT, area: 'car_accident', state: 'PA', incident_date: '2024-10-07', opposing_party: 'Keystone Regional Transit' }))).toMatchObject({ priority: 'urgent', deadline: '2024-10-07'.replace('2024', '2026') });
      const late = fresh();
      data(call(late, 'check_conflict', { opposing_party: 'Keystone Regional Transit' }));
      data(call(late, 'check_case_fit', { area: 'car_accident', state: 'PA' }));
      const refused = call(late, 'create_intake', { ...PROSPECT, area: 'car_accident', state: 'PA', incident_date: '2024-10-06', opposing_party: 'Keystone Regional Transit' });
      expect([code(refused), (refused.output.data as Args).days_past]).toEqual(['DEADLINE_REVIEW_REQUIRED', 1]);
      expect(dumpDatabase(late.sqlite).intakes).toEqual([]);
    });
  });

  describe('intake follow-ups', () => {
    it('need the intake of this call, and repeat idempotently', () => {
      for (const [tool, args] of [['add_case_note', { topic: 'witnesses', note: 'A neighbour saw it.' }], ['send_intake_forms', { channel: 'text' }], ['request_records_release', { record_type: 'medical', provider: 'Mercy Hospital' }]] as const) {
        expect(code(call(fresh(), tool, args)), tool).toBe('INTAKE_REQUIRED');
      }
      const db = withIntake('car_accident', 'PA', '2026-05-02', 'Keystone Regional Transit', { email: undefined });
      expect(code(call(db, 'send_intake_forms', { channel: 'email' }))).toBe('NO_EMAIL_ON_INTAKE');
      expect(data(call(db, 'send_intake_forms', { channel: 'text' }))).toMatchObject({ form_set: 'injury_packet', idempotent: false });
      expect(data(call(db, 'send_intake_forms', { channel: 'text' })).idempotent).toBe(true);
      expect(data(call(db, 'request_records_release', { record_type: 'police_report', provider: 'Pittsburgh Police' })).idempotent).toBe(false);
      expect(data(call(db, 'request_records_release', { record_type: 'police_report', provider: 'pittsburgh police' })).idempotent).toBe(true);
      expect(code(call(db, 'request_records_release', { record_type: 'employment', provider: 'Acme Steel' }))).toBe('RECORD_TYPE_NOT_RELEVANT');
      data(call(db, 'add_case_note', { topic: 'witnesses', note: 'A neighbour saw it.' }));
      expect(data(call(db, 'add_case_note', { topic: 'witnesses', note: 'A neighbour saw it.' })).idempotent).toBe(true);
      expect(data(call(db, 'add_case_note', { topic: 'witnesses', note: 'The bus driver stopped too.' })).idempotent).toBe(false);
      const dump = dumpDatabase(db.sqlite);
      expect([dump.form_sends?.length, dump.records_requests?.length, dump.case_notes?.length]).toEqual([1, 1, 2]);
    });
  });

  describe('client services', () => {
    it.each([['get_matter_status', {}], ['update_contact_details', { email: 'denise.k@example.com' }]] as const)('%s refuses an unverified caller and works after verification', (tool, args) => {
      const db = fresh();
      const before = scoredTables(db);
      expect(code(call(db, tool, args))).toBe('NOT_VERIFIED');
      expect(scoredTables(db)).toEqual(before);
      data(call(db, 'verify_client', { ...DENISE, caller_role: 'client' }));
      data(call(db, tool, args));
    });

    it('a message for the assigned team needs a verified client and goes to the lead attorney', () => {
      const db = fresh();
      expect(code(call(db, 'take_message', { recipient: 'assigned_team', message: 'Please call me.' }))).toBe('NOT_VERIFIED');
      data(call(db, 'verify_client', { ...DENISE, caller_role: 'client' }));
      const out = data(call(db, 'take_message', { recipient: 'my lawyer', message: 'Please call me about the deposition.' }));
      expect(out).toMatchObject({ message_id: 'msg_atty_margaret_halverson_14125550187', recipient_name: "Margaret Halverson's team", reply_by: '2026-10-08', idempotent: false });
      expect(data(call(db, 'take_message', { recipient: 'atty_margaret_halverson', message: 'Same message.' })).idempotent).toBe(true);
      expect(code(call(fresh(), 'take_message', { recipient: 'front_office', message: 'Call me.' }))).toBe('CALLER_DETAILS_REQUIRED');
    });

    it('an intake opened after a client verification closes the client gate: the call is about the prospect now', () => {
      const db = asClient(DENISE);
      expect(data(call(db, 'get_matter_status')).matter_number).toBe('24-0917');
      expect(data(call(db, 'check_conflict', { opposing_party: 'Keystone Regional Transit' })).status).toBe('clear');
      expect(data(call(db, 'check_case_fit', { area: 'car_accident', state: 'PA' })).status).toBe('accepted');
      data(call(db, 'create_intake', { ...PROSPECT, area: 'car_accident', state: 'PA', incident_date: '2026-05-02', opposing_party: 'Keystone Regional Transit' }));
      for (const tool of ['get_matter_status', 'update_contact_details']) {
        const out = call(db, tool, tool === 'get_matter_status' ? {} : { phone: '+14125550100' });
        expect([tool, out.output.error_code, out.internalFault]).toEqual([tool, 'NOT_VERIFIED', null]);
      }
      expect(code(call(db, 'take_message', { recipient: 'assigned_team', message: 'Please call me.' }))).toBe('NOT_VERIFIED');
    });

    it('locks after three failed verifications; the human transfer still works', () => {
      const db = fresh();
      const tries = ['1961-02-28', '1962-02-27', '1961-03-27'].map((dob) => code(call(db, 'verify_client', { matter_number: '25-0833', date_of_birth: dob, caller_role: 'client' })));
      expect(tries).toEqual(['NO_MATCH', 'NO_MATCH', 'CLIENT_LOCKED']);
      expect(code(call(db, 'verify_client', { matter_number: '25-0833', date_of_birth: '1961-02-27', caller_role: 'client' }))).toBe('CLIENT_LOCKED');
      expect(data(call(db, 'transfer_to_human', { reason: 'identity_failed' })).transferred).toBe(true);
      expect(dumpDatabase(db.sqlite).escalations).toHaveLength(1);
    });

    it('a spouse gets the third-party script, and the attempt counts no failure', () => {
      const db = fresh();
      expect(code(call(db, 'verify_client', { matter_number: '25-0604', date_of_birth: '1985-07-21', caller_role: 'family_member' }))).toBe('THIRD_PARTY_CALLER');
      expect(code(call(db, 'get_matter_status'))).toBe('NOT_VERIFIED');
      expect(dumpDatabase(db.sqlite).call_session?.[0]?.failures ?? 0).toBe(0);
    });

    it('a third party is refused without giving the client details; a client needs both; someone else on the line closes the gate', () => {
      const db = fresh();
      expect(code(call(db, 'verify_client', { caller_role: 'family_member' }))).toBe('THIRD_PARTY_CALLER');
      expect(code(call(db, 'verify_client', { matter_number: '25-0604', caller_role: 'client' }))).toBe('VERIFICATION_DETAILS_REQUIRED');
      expect(dumpDatabase(db.sqlite).call_session?.[0]?.failures ?? 0).toBe(0);
      const verified = asClient(ANGELA);
      expect(data(call(verified, 'get_matter_status')).stage).toBe('lawsuit_filed');
      expect(code(call(verified, 'verify_client', { caller_role: 'family_member' }))).toBe('THIRD_PARTY_CALLER');
      expect(code(call(verified, 'get_matter_status'))).toBe('NOT_VERIFIED');
      expect(code(call(verified, 'update_contact_details', { phone: '+13045550100' }))).toBe('NOT_VERIFIED');
    });

    it('reports discovery and a closed matter without advice, and a closed matter books no meeting', () => {
      expect(data(call(asClient(DENISE), 'get_matter_status'))).toMatchObject({ stage: 'discovery', lead_attorney: 'Margaret Halverson', closed_on: null });
      const gerald = asClient(GERALD);
      expect(data(call(gerald, 'get_matter_status'))).toMatchObject({ stage: 'closed', next_step: null, closed_on: '2026-06-30' });
      expect(code(call(gerald, 'hold_consult', { opening_id: 'cop_reed_1013_1400' }))).toBe('MATTER_CLOSED');
    });

    it('a verified client books a free meeting with the lead attorney only', () => {
      const db = asClient(SAMUEL);
      expect(code(call(db, 'hold_consult', { opening_id: 'cop_price_1013_1100' }))).toBe('OPENING_NOT_SUITABLE');
      const held = data(call(db, 'hold_consult', { opening_id: 'cop_ruiz_1012_1000' }));
      expect(held).toMatchObject({ fee_cents: 0, fee_reason: 'client_meeting' });
      const booked = data(call(db, 'confirm_consult', { token: held.token }));
      expect(booked.consult_id).toBe('con_ruiz_1012_1000');
      expect(code(call(db, 'hold_consult', { opening_id: 'cop_ruiz_1014_1400' }))).toBe('CONSULT_ALREADY_BOOKED');
      expect(code(call(fresh(), 'cancel_consult', { opening_id: 'cop_ruiz_1012_1000' }))).toBe('CONSULT_NOT_FOUND');
      expect(data(call(db, 'cancel_consult', { opening_id: 'cop_ruiz_1012_1000' })).idempotent).toBe(false);
      expect(data(call(db, 'cancel_consult', { opening_id: 'cop_ruiz_1012_1000' })).idempotent).toBe(true);
      expect(dumpDatabase(db.sqlite).consult_openings?.find((o) => o.id === 'cop_ruiz_1012_1000')?.status).toBe('open');
    });

    it('updates only changed contact fields and logs each change', () => {
      const db = asClient(ANGELA);
      expect(code(call(db, 'update_contact_details', {}))).toBe('NO_CHANGES_GIVEN');
      const out = data(call(db, 'update_contact_details', { phone: '(304) 555-0177', street: '310 Fulton Street', city: 'Wheeling' }));
      expect(out).toMatchObject({ updated_fields: ['phone'], unchanged_fields: ['street', 'city'], idempotent: false });
      expect(data(call(db, 'update_contact_details', { phone: '+13045550177' })).idempotent).toBe(true);
      const dump = dumpDatabase(db.sqlite);
      expect(dump.clients?.find((c) => c.id === 'cli_angela_moretti')?.phone).toBe('+13045550177');
      expect(dump.contact_updates?.map((u) => [u.field, u.old_value, u.new_value])).toEqual([['phone', '+13045550131', '+13045550177']]);
    });
  });

  describe('scheduling', () => {
    it('skips a taken block, refuses it by id, and a second hold supersedes the first', () => {
      const db = withIntake('car_accident', 'PA', '2026-05-02');
      const times = data(call(db, 'find_consult_times', { area: 'car_accident', location: 'off_pittsburgh' }));
      expect((times.openings as { opening_id: string }[]).map((o) => o.opening_id)).toEqual(['cop_halverson_1008_1400', 'cop_halverson_1013_1000', 'cop_halverson_1015_1000']);
      expect(code(call(db, 'hold_consult', { opening_id: 'cop_halverson_1008_1000' }))).toBe('OPENING_TAKEN');
      expect(code(call(db, 'hold_consult', { opening_id: 'cop_jennings_1009_1300' }))).toBe('OPENING_NOT_SUITABLE');
      const first = data(call(db, 'hold_consult', { opening_id: 'cop_halverson_1008_1400' }));
      const second = data(call(db, 'hold_consult', { opening_id: 'cop_halverson_1013_1000' }));
      expect(code(call(db, 'confirm_consult', { token: first.token }))).toBe('TOKEN_SUPERSEDED');
      expect(data(call(db, 'confirm_consult', { token: second.token })).consult_id).toBe('con_halverson_1013_1000');
    });

    it('hold needs an intake or a verified client', () => {
      expect(code(call(fresh(), 'hold_consult', { opening_id: 'cop_halverson_1008_1400' }))).toBe('INTAKE_REQUIRED');
      expect(code(call(fresh(), 'find_consult_times', { area: 'tax', location: 'video' }))).toBe('AREA_NOT_HANDLED');
      expect(code(call(fresh(), 'find_consult_times', { area: 'car_accident', location: 'video', earliest_date: '2026-10-29' }))).toBe('BEYOND_HORIZON');
    });
  });

  describe('reception', () => {
    it('gives one office with its languages and the practice areas by state', () => {
      const out = data(call(fresh(), 'get_firm_info', { office_id: 'Columbus' }));
      const offices = out.offices as Args[];
      expect(offices.map((o) => [o.office_id, o.languages])).toEqual([['off_columbus', ['English', 'Spanish', 'Somali']]]);
      const areas = Object.fromEntries((out.practice_areas as { area: string; states: string[] }[]).map((a) => [a.area, a.states]));
      expect(areas).toMatchObject({ workplace_injury: ['OH', 'PA'], medical_malpractice: ['PA'], wage_claim: ['OH'] });
      expect((data(call(fresh(), 'get_firm_info', { office_id: 'all offices' })).offices as Args[]).map((o) => o.office_id)).toEqual(['off_columbus', 'off_pittsburgh', 'off_wheeling']);
    });
  });
});
