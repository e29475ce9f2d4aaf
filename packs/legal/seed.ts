import type { PackDb } from '../../src/packs/index.ts';
import { adverseParties, attorneys, clients, consultOpenings, filingRules, matters, offices, practiceRules } from './schema.ts';

/**
 * Halverson & Reed's seed: reference tables, the clients and parties whose rows set each policy
 * trap, and a small deterministic consultation grid. Each row's comment names the trap it sets and
 * its side of the threshold. The clock is Wednesday 2026-10-07 09:30 (America/New_York). Artifact
 * tables start empty. Self-contained on purpose: the template hash covers this file and the
 * migrations only. Filing-window traps (61, 60 and 0 days left, one day past) are caller personas
 * with incident dates, listed in the README, because intakes start empty.
 */

const SEEDED_AT = '2025-01-06T09:00';
const GRID_FIRST = '2026-10-07';
const GRID_LAST = '2026-10-23';
const CONSULT_MINUTES = 45;

// id, name, state, address, suite, phone, weekday hours, Saturday hours, parking, languages
const OFFICES = [
  ['off_pittsburgh', 'Pittsburgh', 'PA', '412 Grant Street, Pittsburgh, Pennsylvania 15219', 'Twelfth floor, suite 1200', '+14125550160', '8:30 a.m. to 5:30 p.m.', '9 a.m. to noon, consultations by appointment', 'Validated parking in the garage next door on Oliver Avenue.', 'English, Spanish'], // main office; the only Saturday hours
  ['off_columbus', 'Columbus', 'OH', '75 East Broad Street, Columbus, Ohio 43215', 'Ninth floor', '+16145550160', '8:30 a.m. to 5 p.m.', null, 'Metered street parking; a public garage is one block north on Third Street.', 'English, Spanish, Somali'], // the only Somali speakers
  ['off_wheeling', 'Wheeling', 'WV', '1200 Market Street, Wheeling, West Virginia 26003', 'Second floor', '+13045550160', '9 a.m. to 5 p.m.', null, 'Free parking in the lot behind the building.', 'English'], // West Virginia: no workplace injury, no malpractice
] as const;

// id, name, office, practice group, paralegal, team name
const ATTORNEYS = [
  ['atty_margaret_halverson', 'Margaret Halverson', 'off_pittsburgh', 'injury', 'Lucas Bennett', "Margaret Halverson's team"],
  ['atty_carla_jennings', 'Carla Jennings', 'off_pittsburgh', 'employment', 'Nate Fischer', "Carla Jennings's team"],
  ['atty_james_reed', 'James Reed', 'off_columbus', 'employment', 'Hannah Cole', "James Reed's team"],
  ['atty_elena_ruiz', 'Elena Ruiz', 'off_columbus', 'injury', 'Ray Simmons', "Elena Ruiz's team"],
  ['atty_daniel_price', 'Daniel Price', 'off_wheeling', 'injury', 'Mia Torres', "Daniel Price's team"],
] as const;

// area, fee plan, practice group, states accepted (a missing licensed state is a declined row)
const PRACTICE = [
  ['car_accident', 'injury', 'injury', ['PA', 'OH', 'WV']],
  ['truck_accident', 'injury', 'injury', ['PA', 'OH', 'WV']],
  ['premises_injury', 'injury', 'injury', ['PA', 'OH', 'WV']],
  ['product_injury', 'injury', 'injury', ['PA', 'OH', 'WV']],
  ['medical_malpractice', 'injury', 'injury', ['PA']], // malpractice in Ohio or West Virginia: declined
  ['workplace_injury', 'workplace_injury', 'injury', ['PA', 'OH']], // workplace injury in West Virginia: declined
  ['employment_discrimination', 'employment', 'employment', ['PA', 'OH', 'WV']], // $150 consult
  ['wage_claim', 'employment', 'employment', ['OH']], // wage claims in Ohio only
] as const;

// area, window rule, what starts the clock
const FILING = [
  ['car_accident', 'injury', 'incident_date'], // two years
  ['truck_accident', 'injury', 'incident_date'],
  ['premises_injury', 'injury', 'incident_date'],
  ['product_injury', 'product', 'incident_date'],
  ['medical_malpractice', 'injury', 'incident_date'],
  ['workplace_injury', 'workplace_injury', 'incident_date'], // one year
  ['employment_discrimination', 'employment', 'last_discriminatory_act'], // 240 days
  ['wage_claim', 'wages', 'last_unpaid_paycheck'], // three years
] as const;

// id, party key, name as said, kind, status
const PARTIES = [
  ['ap_brightwater_freight', 'brightwater_freight', 'Brightwater Freight', 'name', 'current_client'], // current client: conflict
  ['ap_brightwater_freight_lines', 'brightwater_freight', 'Brightwater Freight Lines', 'alias', 'current_client'], // alias: conflict
  ['ap_brightwater_logistics', 'brightwater_freight', 'Brightwater Logistics', 'alias', 'current_client'], // alias: conflict
  ['ap_allegheny_mutual', 'allegheny_mutual', 'Allegheny Mutual Insurance', 'name', 'current_client'], // current client: conflict
  ['ap_allegheny_mutual_short', 'allegheny_mutual', 'Allegheny Mutual', 'alias', 'current_client'], // alias: conflict
  ['ap_allegheny_mutual_casualty', 'allegheny_mutual', 'Allegheny Mutual Casualty Company', 'alias', 'current_client'], // alias: conflict
  ['ap_summit_ridge', 'summit_ridge', 'Summit Ridge Apartments', 'name', 'former_client'], // former client: review
  ['ap_summit_ridge_management', 'summit_ridge', 'Summit Ridge Property Management', 'alias', 'former_client'], // alias: review
  ['ap_ohio_valley', 'ohio_valley_medical', 'Ohio Valley Medical Center', 'name', 'former_client'], // former client: review
  ['ap_ohio_valley_health', 'ohio_valley_medical', 'Ohio Valley Health System', 'alias', 'former_client'], // alias: review
  ['ap_ovmc', 'ohio_valley_medical', 'OVMC', 'alias', 'former_client'], // initials: review
] as const; // "Brightwell Foods" has no row and is no near miss: clear.

// id, name, birth date, phone, email, street, city, state, ZIP
const CLIENTS = [
  ['cli_denise_kowalski', 'Denise Kowalski', '1979-05-14', '+14125550187', 'denise.kowalski@example.com', '18 Sycamore Street', 'Pittsburgh', 'PA', '15211'], // case in discovery
  ['cli_gerald_finch', 'Gerald Finch', '1968-11-02', '+16145550143', null, '240 Oak Hollow Drive', 'Columbus', 'OH', '43214'], // closed matter; no email on file
  ['cli_priya_raman', 'Priya Raman', '1985-07-21', '+14125550122', 'priya.raman@example.com', '9 Linden Avenue', 'Pittsburgh', 'PA', '15206'], // her husband Arjun calls: not the client
  ['cli_walter_brandt', 'Walter Brandt', '1961-02-27', '+16145550176', 'walter.brandt@example.com', '55 Riverside Court', 'Dublin', 'OH', '43017'], // verification lock persona
  ['cli_angela_moretti', 'Angela Moretti', '1990-09-09', '+13045550131', 'angela.moretti@example.com', '310 Fulton Street', 'Wheeling', 'WV', '26003'], // moved: contact update
  ['cli_samuel_greer', 'Samuel Greer', '1974-12-03', '+16145550119', 'sam.greer@example.com', '87 Maple Grove Road', 'Westerville', 'OH', '43081'], // open matter: client meeting, no fee
] as const;

// number, client, area, state, office, lead attorney, stage, next step, opened, last update, closed
const MATTERS = [
  ['24-0917', 'cli_denise_kowalski', 'car_accident', 'PA', 'off_pittsburgh', 'atty_margaret_halverson', 'discovery', "The answers to the other side's written questions went out on October second. Your deposition is being scheduled for November, and Lucas Bennett will call you with dates.", '2024-11-04', '2026-10-02', null], // in discovery
  ['25-0112', 'cli_gerald_finch', 'wage_claim', 'OH', 'off_columbus', 'atty_james_reed', 'closed', null, '2025-01-21', '2026-06-30', '2026-06-30'], // closed: no meeting, no next step
  ['25-0604', 'cli_priya_raman', 'employment_discrimination', 'PA', 'off_pittsburgh', 'atty_carla_jennings', 'negotiation', 'Your team is waiting for a written response from the employer, expected by October twentieth. Nate Fischer will call you when it arrives.', '2025-06-16', '2026-09-29', null], // spouse calls
  ['25-0833', 'cli_walter_brandt', 'workplace_injury', 'OH', 'off_columbus', 'atty_elena_ruiz', 'investigation', 'Your team has asked your employer for your personnel and injury records and is waiting for them.', '2025-08-25', '2026-09-18', null], // lock persona
  ['24-0611', 'cli_angela_moretti', 'premises_injury', 'WV', 'off_wheeling', 'atty_daniel_price', 'lawsuit_filed', 'The court has set a scheduling conference for November twelfth. You do not need to attend; Mia Torres will send you a summary afterward.', '2024-08-19', '2026-09-30', null], // lawsuit filed; the oldest matter, first in id order
  ['26-0341', 'cli_samuel_greer', 'product_injury', 'OH', 'off_columbus', 'atty_elena_ruiz', 'demand', "A demand package went to the manufacturer's insurer on September twenty-fourth. A reply usually takes thirty to forty five days.", '2026-03-30', '2026-09-24', null], // open matter: meeting allowed
] as const;

type Block = readonly [string, string]; // time, location ('office' means the attorney's own office)
/** Weekly consultation templates by weekday (1 = Monday). */
const SCHEDULES: Readonly<Record<string, Readonly<Record<number, readonly Block[]>>>> = {
  atty_margaret_halverson: { 1: [['11:00', 'video']], 2: [['10:00', 'office']], 4: [['10:00', 'office'], ['14:00', 'office']] },
  atty_carla_jennings: { 2: [['15:00', 'video']], 3: [['10:00', 'office']], 5: [['13:00', 'office']] },
  atty_james_reed: { 2: [['14:00', 'office']], 4: [['11:00', 'office']], 5: [['10:00', 'video']] },
  atty_elena_ruiz: { 1: [['10:00', 'office']], 3: [['14:00', 'office']], 4: [['15:00', 'video']] },
  atty_daniel_price: { 2: [['11:00', 'office']], 3: [['10:00', 'video']], 4: [['11:00', 'office']] },
};

/** Blocks already taken by consultations booked before this call. */
const BOOKED = new Set(['cop_halverson_1008_1000']); // the first Pittsburgh injury block: OPENING_TAKEN

function weekday(date: string): number {
  return new Date(`${date}T00:00:00Z`).getUTCDay();
}

function nextDay(date: string): string {
  const d = new Date(`${date}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + 1);
  return d.toISOString().slice(0, 10);
}

function openingRows(): (typeof consultOpenings.$inferInsert)[] {
  const rows: (typeof consultOpenings.$inferInsert)[] = [];
  for (let date = GRID_FIRST; date <= GRID_LAST; date = nextDay(date)) {
    for (const [attorneyId, template] of Object.entries(SCHEDULES)) {
      const office = ATTORNEYS.find((a) => a[0] === attorneyId)?.[2] ?? '';
      for (const [time, where] of template[weekday(date)] ?? []) {
        const id = `cop_${attorneyId.split('_').pop() ?? ''}_${date.slice(5, 7)}${date.slice(8)}_${time.replace(':', '')}`;
        rows.push({ id, attorney_id: attorneyId, location: where === 'office' ? office : 'video', starts_at: `${date}T${time}`, duration_min: CONSULT_MINUTES, status: BOOKED.has(id) ? 'booked' : 'open' });
      }
    }
  }
  return rows;
}

/** Fills the template database. Deterministic: no clock, no randomness. */
export function seed(db: PackDb): void {
  db.insert(offices).values(OFFICES.map(([id, name, state, address, suite, phone, weekday_hours, saturday_hours, parking, languages]) => ({ id, name, state, address, suite, phone, weekday_hours, saturday_hours, parking, languages }))).run();
  db.insert(attorneys).values(ATTORNEYS.map(([id, display_name, office_id, practice_group, paralegal_name, team_name]) => ({ id, display_name, office_id, practice_group, paralegal_name, team_name }))).run();
  db.insert(practiceRules)
    .values(
      PRACTICE.flatMap(([area, fee_plan, practice_group, accepted]) =>
        (['PA', 'OH', 'WV'] as const).map((state) => ({ id: `pr_${area}_${state.toLowerCase()}`, area, state, accepted: (accepted as readonly string[]).includes(state) ? 1 : 0, fee_plan, practice_group })),
      ),
    )
    .run();
  db.insert(filingRules).values(FILING.map(([area, window_rule, starts_from]) => ({ id: `fr_${area}`, area, window_rule, starts_from }))).run();
  db.insert(adverseParties).values(PARTIES.map(([id, party_key, name, kind, status]) => ({ id, party_key, name, kind, status }))).run();
  db.insert(clients).values(CLIENTS.map(([id, full_name, date_of_birth, phone, email, street, city, state, zip]) => ({ id, full_name, date_of_birth, phone, email, street, city, state, zip, created_at: SEEDED_AT }))).run();
  db.insert(matters)
    .values(
      MATTERS.map(([matter_number, client_id, area, state, office_id, lead_attorney_id, stage, next_step, opened_on, last_update_on, closed_on]) => ({
        id: `mat_${matter_number.replace('-', '_')}`,
        matter_number,
        client_id,
        area,
        state,
        office_id,
        lead_attorney_id,
        stage,
        next_step,
        opened_on,
        last_update_on,
        closed_on,
      })),
    )
    .run();
  db.insert(consultOpenings).values(openingRows()).run();
}
