import type { PackDb } from '../../src/packs/index.ts';
import {
  appointments,
  charges,
  guardians,
  locations,
  medications,
  openings,
  patients,
  planBenefits,
  planContracts,
  providers,
  results,
  visitTypes,
} from './schema.ts';

/**
 * Straus Dermatology's seed: reference tables, the patients whose records set each policy trap,
 * and a deterministic openings grid. Each row's comment names the trap it sets and its side of the
 * threshold. The clock is Tuesday 2026-10-06 10:00 (America/New_York). Artifact tables start empty.
 * Self-contained on purpose: the template hash covers this file and the migrations only.
 */

const SEEDED_AT = '2025-01-15T09:00';
const GRID_FIRST = '2026-10-07';
const GRID_LAST = '2026-11-05';
const CLOSED_DAYS = new Set(['2026-10-12']); // Columbus Day: offices closed, no openings.

const LOCATIONS = [
  // Manhattan flagship: Mohs surgery and the cosmetic suite; Aetna yes, ConnectiCare no.
  ['loc_park_ave', 'Park Avenue', 'NY', '640 Park Avenue, New York, New York 10065', 'Fourth floor, suite 400', '+12125550100', '8 a.m. to 5 p.m.', '9 a.m. to 1 p.m., cosmetic suite only', 'No parking on site; the garage on East 68th Street gives a validated rate.', 'The 6 train to 68th Street, two blocks away.'],
  // Brooklyn: the only pediatric office and the only one taking Healthfirst Medicaid.
  ['loc_cobble_hill', 'Cobble Hill', 'NY', '210 Court Street, Brooklyn, New York 11201', 'Ground floor', '+17185550100', '8 a.m. to 5 p.m.', null, 'Street parking only.', 'The F and G trains to Bergen Street, a five minute walk.'],
  // Westchester: patch testing only here; free parking.
  ['loc_white_plains', 'White Plains', 'NY', '45 Main Street, White Plains, New York 10601', 'Second floor', '+19145550100', '8 a.m. to 5 p.m.', null, 'Free parking in the building lot, entrance on Maple Avenue.', 'Metro-North to White Plains station, a ten minute walk.'],
  // Connecticut: cosmetic suite; ConnectiCare yes, Aetna and Empire Blue Cross no.
  ['loc_stamford', 'Stamford', 'CT', '300 Bedford Street, Stamford, Connecticut 06901', 'Third floor', '+12035550100', '8 a.m. to 5 p.m.', null, 'Free garage behind the building, levels one and two.', 'Metro-North to Stamford station, then a short cab ride.'],
] as const;

// id, name, title, office, mohs, pediatric only, patch testing, cosmetic
const PROVIDERS = [
  ['prv_park', 'Doctor Helen Park', 'md', 'loc_park_ave', 1, 0, 0, 0], // the only Mohs surgeon
  ['prv_bell', 'Doctor Nora Bell', 'md', 'loc_park_ave', 0, 0, 0, 1], // cosmetic at Park Avenue
  ['prv_ortiz', 'Doctor James Ortiz', 'md', 'loc_cobble_hill', 0, 1, 0, 0], // sees children only
  ['prv_fox', 'Lena Fox, physician assistant', 'pa', 'loc_cobble_hill', 0, 0, 0, 0], // PA: no Mohs
  ['prv_grant', 'Doctor Owen Grant', 'md', 'loc_white_plains', 0, 0, 1, 0], // the only patch tester
  ['prv_reyes', 'Tom Reyes, physician assistant', 'pa', 'loc_white_plains', 0, 0, 0, 0],
  ['prv_hale', 'Doctor Clara Hale', 'md', 'loc_stamford', 0, 0, 0, 1], // cosmetic at Stamford
] as const;

// id, name, minutes, credential, MD only, min age, max age
const VISIT_TYPES = [
  ['new_patient', 'new patient visit', 30, 'general', 0, 18, null],
  ['follow_up', 'follow-up visit', 15, 'general', 0, 18, null],
  ['skin_exam', 'full skin exam', 20, 'general', 0, 18, null],
  ['mohs_surgery', 'Mohs surgery', 90, 'mohs', 1, null, null],
  ['patch_test', 'patch testing', 30, 'patch_testing', 0, null, null],
  ['pediatric_visit', 'pediatric visit', 30, 'pediatric', 0, null, 17], // under 18 only
  ['cosmetic_consult', 'cosmetic consult', 30, 'cosmetic', 0, null, null],
] as const;

type Block = readonly [string, number];
const GENERAL: readonly Block[] = [['09:00', 30], ['10:00', 15], ['11:00', 15], ['14:00', 20], ['15:30', 30]];
const PARK_THURSDAY: readonly Block[] = [['08:00', 90], ['10:00', 15], ['11:00', 15], ['14:00', 20], ['15:30', 30]];
const BELL_COSMETIC: readonly Block[] = [['09:00', 30], ['10:00', 30], ['11:00', 30], ['13:00', 30], ['16:00', 30]];
const HALE_COSMETIC: readonly Block[] = [['10:00', 30], ['13:00', 30], ['15:00', 30]];
const PEDIATRIC: readonly Block[] = [['14:00', 30], ['15:00', 30], ['16:00', 30]];

/** Weekly templates by weekday (1 = Monday); a missing day means the provider is out. */
const SCHEDULES: Readonly<Record<string, Readonly<Record<number, readonly Block[]>>>> = {
  prv_park: { 1: GENERAL, 3: GENERAL, 4: PARK_THURSDAY }, // one 90-minute Mohs block each Thursday
  prv_bell: { 1: GENERAL, 2: BELL_COSMETIC, 3: GENERAL, 4: BELL_COSMETIC, 5: GENERAL },
  prv_ortiz: { 1: PEDIATRIC, 3: PEDIATRIC, 5: PEDIATRIC },
  prv_fox: { 1: GENERAL, 2: GENERAL, 3: GENERAL, 4: GENERAL, 5: GENERAL },
  prv_grant: { 1: GENERAL, 2: GENERAL, 3: GENERAL, 4: GENERAL },
  prv_reyes: { 2: GENERAL, 3: GENERAL, 4: GENERAL, 5: GENERAL },
  prv_hale: { 1: GENERAL, 2: HALE_COSMETIC, 3: GENERAL, 4: HALE_COSMETIC, 5: HALE_COSMETIC },
};

// id, name, birth date, ZIP, mobile, email, home office, carrier, member id, portal
const PATIENTS = [
  ['pat_ellen_brooks', 'Ellen Brooks', '1984-03-02', '10021', '+12125550141', 'ellen.brooks@example.com', 'loc_park_ave', 'aetna', 'AET44820193', 'active'], // follow-up 23 hours away: late fee side
  ['pat_marcus_webb', 'Marcus Webb', '1979-11-19', '10016', '+12125550178', 'marcus.webb@example.com', 'loc_park_ave', 'empire_bcbs', 'EMP55102934', 'none'], // follow-up exactly 24 hours away: free side
  ['pat_grace_holloway_park', 'Grace Holloway', '1988-02-11', '10021', '+12125550112', 'grace.holloway@example.com', 'loc_park_ave', 'cigna', 'CIG70011482', 'active'], // duplicate name and birth date, ZIP 10021
  ['pat_grace_holloway_cobble', 'Grace Holloway', '1988-02-11', '11215', '+17185550163', null, 'loc_cobble_hill', 'unitedhealthcare', 'UHC90233817', 'none'], // duplicate name and birth date, ZIP 11215
  ['pat_leo_marsh', 'Leo Marsh', '2011-03-22', '11217', '+17185550190', 'anna.marsh@example.com', 'loc_cobble_hill', 'healthfirst', 'HF300144721', 'none'], // 15 years old, guardian on file
  ['pat_ruby_castillo', 'Ruby Castillo', '2004-07-30', '10601', '+19145550133', 'ruby.castillo@example.com', 'loc_white_plains', 'cigna', 'CIG70088120', 'active'], // isotretinoin: never refilled by phone
  ['pat_nina_patel', 'Nina Patel', '1991-06-14', '10024', '+12125550155', 'nina.patel@example.com', 'loc_park_ave', 'aetna', 'AET44861027', 'active'], // balance $295: just below the plan minimum
  ['pat_carl_jensen', 'Carl Jensen', '1966-01-27', '10605', '+19145550107', 'carl.jensen@example.com', 'loc_white_plains', 'medicare', 'MED1EG4TE5MK72', 'none'], // balance $300: exactly on the plan minimum
  ['pat_tessa_moore', 'Tessa Moore', '1975-09-03', '06901', '+12035550126', 'tessa.moore@example.com', 'loc_stamford', 'connecticare', 'CC81002277', 'active'], // balance $310: above the plan minimum
  ['pat_henry_doyle', 'Henry Doyle', '1958-12-05', '06902', '+12035550188', 'henry.doyle@example.com', 'loc_stamford', 'aetna', 'AET44899310', 'none'], // Stamford patient with Aetna: out of network at home
  ['pat_lucy_chen', 'Lucy Chen', '1990-04-17', '11201', '+17185550144', 'lucy.chen@example.com', 'loc_cobble_hill', 'unitedhealthcare', 'UHC90255102', 'active'], // biopsy pending
  ['pat_adam_foster', 'Adam Foster', '1982-08-08', '10583', '+19145550171', 'adam.foster@example.com', 'loc_white_plains', 'empire_bcbs', 'EMP55177420', 'none'], // biopsy back, awaiting review
  ['pat_sofia_marino', 'Sofia Marino', '1993-01-20', '10022', '+12125550119', 'sofia.marino@example.com', 'loc_park_ave', 'cigna', 'CIG70034419', 'active'], // cosmetic consult 47 hours away: deposit forfeited
  ['pat_claire_donovan', 'Claire Donovan', '1987-05-29', '10028', '+12125550147', 'claire.donovan@example.com', 'loc_park_ave', 'unitedhealthcare', 'UHC90211968', 'none'], // cosmetic consult exactly 48 hours away: deposit refunded
  ['pat_iris_novak', 'Iris Novak', '1971-10-30', '10601', '+19145550162', 'iris.novak@example.com', 'loc_white_plains', 'unitedhealthcare', 'UHC90287733', 'none'], // tretinoin reviewed exactly 12 months ago: refill allowed
  ['pat_paul_brennan', 'Paul Brennan', '1969-02-14', '11231', '+17185550128', null, 'loc_cobble_hill', 'medicare', 'MED2HN7RA1CK55', 'none'], // clobetasol reviewed 12 months and a day ago: visit needed; no email
  ['pat_jake_dalton', 'Jake Dalton', '2006-05-09', '10023', '+12125550136', 'jake.dalton@example.com', 'loc_park_ave', 'aetna', 'AET44877215', 'active'], // 20 years old, no guardian: a parent gets nothing
  ['pat_victor_lang', 'Victor Lang', '1950-07-11', '10028', '+12125550183', null, 'loc_park_ave', 'medicare', 'MED3VL8QX2PL41', 'none'], // holds the October 8 Mohs block
  ['pat_rosa_delgado', 'Rosa Delgado', '1961-03-30', '11215', '+17185550152', 'rosa.delgado@example.com', 'loc_cobble_hill', 'medicare', 'MED4RD2MT6WS90', 'none'], // holds the October 15 Mohs block
  ['pat_frank_ellison', 'Frank Ellison', '1955-11-02', '10801', '+19145550195', 'frank.ellison@example.com', 'loc_white_plains', 'unitedhealthcare', 'UHC90266041', 'none'], // holds the October 22 Mohs block
  ['pat_maya_ross', 'Maya Ross', '2008-10-06', '06905', '+12035550139', 'maya.ross@example.com', 'loc_stamford', 'connecticare', 'CC81009455', 'none'], // turns 18 today: injectable consults allowed
  ['pat_ben_carter', 'Ben Carter', '1986-12-12', '10019', '+12125550164', 'ben.carter@example.com', 'loc_park_ave', 'empire_bcbs', 'EMP55130086', 'active'], // late fee already reviewed and declined
  ['pat_olivia_hart', 'Olivia Hart', '1997-08-25', '10606', null, 'olivia.hart@example.com', 'loc_white_plains', 'cigna', 'CIG70050671', 'none'], // no mobile on file: no texts or links
  ['pat_sam_rivera', 'Sam Rivera', '1999-04-04', '11238', '+17185550117', 'sam.rivera@example.com', 'loc_cobble_hill', null, null, 'none'], // self-pay: no insurance on file
] as const;

// opening provider, date MMDD, time HHMM, patient, visit type
const APPOINTMENTS = [
  ['park', '1007', '0900', 'pat_ellen_brooks', 'follow_up'], // 23 hours away: $40 to cancel or move
  ['park', '1007', '1000', 'pat_marcus_webb', 'follow_up'], // exactly 24 hours away: free
  ['park', '1008', '0800', 'pat_victor_lang', 'mohs_surgery'], // Mohs blocks booked through October 22
  ['park', '1015', '0800', 'pat_rosa_delgado', 'mohs_surgery'],
  ['park', '1022', '0800', 'pat_frank_ellison', 'mohs_surgery'],
  ['bell', '1008', '0900', 'pat_sofia_marino', 'cosmetic_consult'], // 47 hours away: deposit forfeited
  ['bell', '1008', '1000', 'pat_claire_donovan', 'cosmetic_consult'], // exactly 48 hours away: refunded
  ['bell', '1016', '1400', 'pat_grace_holloway_park', 'skin_exam'],
  ['ortiz', '1014', '1500', 'pat_leo_marsh', 'pediatric_visit'],
  ['hale', '1019', '1000', 'pat_henry_doyle', 'follow_up'],
  ['grant', '1013', '0900', 'pat_adam_foster', 'follow_up'],
  ['fox', '1020', '1400', 'pat_lucy_chen', 'follow_up'],
  ['reyes', '1009', '1100', 'pat_olivia_hart', 'follow_up'], // no mobile: a confirmation text is refused
  ['grant', '1014', '1400', 'pat_iris_novak', 'skin_exam'],
] as const;

// id, patient, kind, service date, posted on, cents, status, appointment, review state
const CHARGES = [
  ['chg_nina_late_0921', 'pat_nina_patel', 'late_change', '2026-09-21', '2026-09-21', 4000, 'open', null, 'none'], // reviewable late fee
  ['chg_nina_visit_0902', 'pat_nina_patel', 'visit_balance', '2026-09-02', '2026-09-10', 25500, 'open', null, 'none'], // total $295
  ['chg_carl_path_0915', 'pat_carl_jensen', 'pathology', '2026-09-15', '2026-09-22', 18000, 'open', null, 'none'],
  ['chg_carl_visit_0915', 'pat_carl_jensen', 'visit_balance', '2026-09-15', '2026-09-22', 12000, 'open', null, 'none'], // total $300
  ['chg_tessa_copay_0828', 'pat_tessa_moore', 'copay', '2026-08-28', '2026-08-28', 4000, 'open', null, 'none'],
  ['chg_tessa_visit_0828', 'pat_tessa_moore', 'visit_balance', '2026-08-28', '2026-09-08', 27000, 'open', null, 'none'], // total $310
  ['chg_ben_late_0810', 'pat_ben_carter', 'late_change', '2026-08-10', '2026-08-10', 4000, 'open', null, 'declined'], // already reviewed
  ['chg_ben_visit_0903', 'pat_ben_carter', 'visit_balance', '2026-09-03', '2026-09-14', 6500, 'open', null, 'none'], // not a late fee: no review
  ['chg_henry_visit_0915', 'pat_henry_doyle', 'visit_balance', '2026-09-15', '2026-09-25', 8500, 'open', null, 'none'], // out of network at Stamford
  ['chg_ellen_copay_0901', 'pat_ellen_brooks', 'copay', '2026-09-01', '2026-09-01', 4000, 'paid', null, 'none'], // paid: no balance
  ['chg_sofia_deposit', 'pat_sofia_marino', 'cosmetic_deposit', '2026-10-08', '2026-09-30', 7500, 'paid', 'apt_bell_1008_0900', 'none'],
  ['chg_claire_deposit', 'pat_claire_donovan', 'cosmetic_deposit', '2026-10-08', '2026-09-29', 7500, 'paid', 'apt_bell_1008_1000', 'none'],
] as const;

// id, patient, generic, display, prescriber, active, last reviewed
const MEDICATIONS = [
  ['med_ruby_isotretinoin', 'pat_ruby_castillo', 'isotretinoin', 'isotretinoin 40 milligram capsules', 'prv_grant', 1, '2026-09-15'], // never by phone
  ['med_iris_tretinoin', 'pat_iris_novak', 'tretinoin', 'tretinoin 0.05 percent cream', 'prv_grant', 1, '2025-10-06'], // exactly 12 months: allowed
  ['med_iris_clindamycin', 'pat_iris_novak', 'clindamycin', 'clindamycin 1 percent gel', 'prv_grant', 0, '2025-04-02'], // stopped: not on the active list
  ['med_paul_clobetasol', 'pat_paul_brennan', 'clobetasol', 'clobetasol 0.05 percent ointment', 'prv_fox', 1, '2025-10-05'], // 12 months and a day: visit needed
  ['med_paul_triamcinolone', 'pat_paul_brennan', 'triamcinolone', 'triamcinolone 0.1 percent cream', 'prv_fox', 1, '2026-04-02'], // recent: allowed
  ['med_adam_fluorouracil', 'pat_adam_foster', 'fluorouracil', 'fluorouracil 5 percent cream', 'prv_grant', 1, '2025-10-07'], // a day inside 12 months
  ['med_ellen_doxycycline', 'pat_ellen_brooks', 'doxycycline', 'doxycycline 100 milligram tablets', 'prv_park', 1, '2026-03-10'],
  ['med_leo_tretinoin', 'pat_leo_marsh', 'tretinoin', 'tretinoin 0.025 percent cream', 'prv_ortiz', 1, '2026-08-19'], // a guardian may ask
] as const;

// id, patient, kind, collected, status, resulted, provider
const RESULTS = [
  ['res_lucy_biopsy', 'pat_lucy_chen', 'biopsy', '2026-10-01', 'pending', null, 'prv_fox'], // still at the lab
  ['res_adam_biopsy', 'pat_adam_foster', 'biopsy', '2026-09-24', 'awaiting_review', '2026-10-05', 'prv_grant'], // back, not yet reviewed
  ['res_jake_blood', 'pat_jake_dalton', 'blood_work', '2026-09-28', 'reviewed', '2026-09-30', 'prv_bell'], // reviewed; never read aloud
  ['res_ruby_blood', 'pat_ruby_castillo', 'blood_work', '2026-09-15', 'reviewed', '2026-09-16', 'prv_grant'],
] as const;

// carrier: offices in network, then copays for specialist visits and for Mohs surgery
const CONTRACTS = [
  ['aetna', ['loc_park_ave', 'loc_cobble_hill', 'loc_white_plains'], 4000, 15000], // everywhere except Stamford
  ['cigna', ['loc_park_ave', 'loc_cobble_hill', 'loc_white_plains', 'loc_stamford'], 5000, 20000],
  ['unitedhealthcare', ['loc_park_ave', 'loc_cobble_hill', 'loc_white_plains', 'loc_stamford'], 4500, 17500],
  ['medicare', ['loc_park_ave', 'loc_cobble_hill', 'loc_white_plains', 'loc_stamford'], 0, 0],
  ['empire_bcbs', ['loc_park_ave', 'loc_cobble_hill', 'loc_white_plains'], 3500, 12500], // New York offices only
  ['connecticare', ['loc_stamford'], 4000, 15000], // Stamford only
  ['healthfirst', ['loc_cobble_hill'], 0, 0], // Medicaid managed plan: Cobble Hill only
] as const; // Oscar, EmblemHealth and anything else have no rows: cannot_confirm.

function weekday(date: string): number {
  return new Date(`${date}T00:00:00Z`).getUTCDay();
}

function nextDay(date: string): string {
  const d = new Date(`${date}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + 1);
  return d.toISOString().slice(0, 10);
}

function gridDates(): string[] {
  const dates: string[] = [];
  for (let d = GRID_FIRST; d <= GRID_LAST; d = nextDay(d)) if (weekday(d) % 6 !== 0 && !CLOSED_DAYS.has(d)) dates.push(d);
  return dates;
}

function openingRows(booked: ReadonlySet<string>): (typeof openings.$inferInsert)[] {
  const rows: (typeof openings.$inferInsert)[] = [];
  for (const date of gridDates()) {
    for (const [providerId, template] of Object.entries(SCHEDULES)) {
      const location = PROVIDERS.find((p) => p[0] === providerId)?.[3] ?? '';
      for (const [time, minutes] of template[weekday(date)] ?? []) {
        const id = `opn_${providerId.slice(4)}_${date.slice(5, 7)}${date.slice(8)}_${time.replace(':', '')}`;
        rows.push({ id, provider_id: providerId, location_id: location, starts_at: `${date}T${time}`, duration_min: minutes, status: booked.has(id) ? 'booked' : 'open' });
      }
    }
  }
  return rows;
}

/** Fills the template database. Deterministic: no clock, no randomness. */
export function seed(db: PackDb): void {
  db.insert(locations).values(LOCATIONS.map(([id, name, state, address, floor, phone, weekday_hours, saturday_hours, parking, transit]) => ({ id, name, state, address, floor, phone, weekday_hours, saturday_hours, parking, transit }))).run();
  db.insert(providers).values(PROVIDERS.map(([id, display_name, title, location_id, does_mohs, does_pediatric, does_patch_testing, does_cosmetic]) => ({ id, display_name, title, location_id, does_mohs, does_pediatric, does_patch_testing, does_cosmetic }))).run();
  db.insert(visitTypes).values(VISIT_TYPES.map(([id, display_name, duration_min, requires, requires_md, min_age_years, max_age_years]) => ({ id, display_name, duration_min, requires, requires_md, min_age_years, max_age_years }))).run();
  db.insert(patients).values(PATIENTS.map(([id, full_name, date_of_birth, zip_code, mobile_phone, email, home_location_id, carrier, member_id, portal_status]) => ({ id, full_name, date_of_birth, zip_code, mobile_phone, email, home_location_id, carrier, member_id, portal_status, created_at: SEEDED_AT }))).run();
  // The parent of the 15-year-old: a guardian caller for Leo verifies; nobody is on file for Jake.
  db.insert(guardians).values({ id: 'gdn_leo_marsh_anna', patient_id: 'pat_leo_marsh', guardian_name: 'Anna Marsh', relationship: 'mother' }).run();
  const visitMinutes = new Map<string, number>(VISIT_TYPES.map((v) => [v[0], v[2]]));
  const appointmentRows = APPOINTMENTS.map(([prov, mmdd, hhmm, patient_id, visit_type]) => {
    const provider = PROVIDERS.find((p) => p[0] === `prv_${prov}`);
    const startsAt = `2026-${mmdd.slice(0, 2)}-${mmdd.slice(2)}T${hhmm.slice(0, 2)}:${hhmm.slice(2)}`;
    return {
      id: `apt_${prov}_${mmdd}_${hhmm}`,
      patient_id,
      opening_id: `opn_${prov}_${mmdd}_${hhmm}`,
      location_id: provider?.[3] ?? '',
      provider_id: `prv_${prov}`,
      visit_type,
      starts_at: startsAt,
      duration_min: visitMinutes.get(visit_type) ?? 15,
      status: 'booked',
      created_at: SEEDED_AT,
    };
  });
  db.insert(appointments).values(appointmentRows).run();
  db.insert(openings).values(openingRows(new Set(appointmentRows.map((a) => a.opening_id)))).run();
  db.insert(charges).values(CHARGES.map(([id, patient_id, kind, service_date, posted_on, amount_cents, status, appointment_id, review_state]) => ({ id, patient_id, kind, service_date, posted_on, amount_cents, status, appointment_id, review_state, created_at: `${posted_on}T09:00` }))).run();
  db.insert(medications).values(MEDICATIONS.map(([id, patient_id, generic, display_name, prescriber_id, active, last_reviewed_on]) => ({ id, patient_id, generic, display_name, prescriber_id, active, last_reviewed_on }))).run();
  db.insert(results).values(RESULTS.map(([id, patient_id, kind, collected_on, status, resulted_on, provider_id]) => ({ id, patient_id, kind, collected_on, status, resulted_on, provider_id }))).run();
  for (const [carrier, offices, specialist, surgery] of CONTRACTS) {
    db.insert(planContracts).values(offices.map((location_id) => ({ carrier, location_id, status: 'in_network' }))).run();
    db.insert(planBenefits)
      .values(
        VISIT_TYPES.map(([visit_type]) => ({
          carrier,
          visit_type,
          covered: visit_type === 'cosmetic_consult' ? 0 : 1, // cosmetic care is never covered
          copay_cents: visit_type === 'cosmetic_consult' ? 0 : visit_type === 'mohs_surgery' ? surgery : visit_type === 'skin_exam' && carrier === 'cigna' ? 0 : specialist, // Cigna: skin exams at no copay
        })),
      )
      .run();
  }
}
