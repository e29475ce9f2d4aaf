import { eq } from 'drizzle-orm';
import { editDistance, foldName, gatedSubject, param, preparedQuery, readCallSession, referenceTable, rowById, type PackClock, type PackDb, type ToolContext } from '../../../src/packs/index.ts';
import { locations, patients, providers, visitTypes } from '../schema.ts';

/** Row shapes and record lookups shared by the Straus tools. */

export type PatientRow = typeof patients.$inferSelect;
export type ProviderRow = typeof providers.$inferSelect;
export type VisitTypeRow = typeof visitTypes.$inferSelect;
export type LocationRow = typeof locations.$inferSelect;

const patientById = rowById(patients);
const patientsBornOn = preparedQuery((db) => db.select().from(patients).where(eq(patients.date_of_birth, param('dob'))).prepare());
const locationRows = referenceTable(locations);
const providerRows = referenceTable(providers);
const visitTypeRows = referenceTable(visitTypes);

/** The patient a tool behind the `verified` gate runs for: opening the gate pins one. */
export function verifiedPatient(ctx: ToolContext): PatientRow {
  return gatedSubject(pinnedPatient(ctx), 'verified');
}

/** The patient pinned on this call (verified or registered), if any. */
export function pinnedPatient(ctx: ToolContext): PatientRow | undefined {
  const session = readCallSession(ctx.db);
  if (session.subjectKind !== 'patient' || !session.subjectId) return undefined;
  return patientById(ctx.db).get({ id: session.subjectId });
}

/** Identity-strict name match (packs.md §2.4): equal after folding, or one edit on six or more letters. */
export function namesMatch(given: string, onFile: string): boolean {
  const a = foldName(given);
  const b = foldName(onFile);
  if (a === b) return true;
  const letters = b.replace(/ /g, '').length;
  return letters >= 6 && editDistance(a, b) <= 1;
}

/** Whole years of age on a date. */
export function ageOn(dateOfBirth: string, date: string): number {
  const [by = 0, bm = 0, bd = 0] = dateOfBirth.split('-').map(Number);
  const [y = 0, m = 0, d = 0] = date.split('-').map(Number);
  return y - by - (m < bm || (m === bm && d < bd) ? 1 : 0);
}

/** A patient id derived from the natural key (name and date of birth). */
export function patientIdFor(fullName: string, dateOfBirth: string): string {
  return `pat_${foldName(fullName).replace(/ /g, '_').slice(0, 40)}_${dateOfBirth.replaceAll('-', '')}`;
}

/** Seeded or registered patients with this name (tolerant) and this exact date of birth. */
export function findPatients(db: PackDb, fullName: string, dateOfBirth: string): PatientRow[] {
  return patientsBornOn(db)
    .all({ dob: dateOfBirth })
    .filter((p) => namesMatch(fullName, p.full_name));
}

/** Display name of an office. */
export function locationName(db: PackDb, id: string | null): string | null {
  if (!id) return null;
  return locationRows(db).byId(id)?.name ?? null;
}

/** Display name of a provider. */
export function providerName(db: PackDb, id: string): string {
  return providerRows(db).byId(id)?.display_name ?? 'your provider';
}

/** Visit type row by id. */
export function visitType(db: PackDb, id: string): VisitTypeRow | undefined {
  return visitTypeRows(db).byId(id);
}

/** Every office, in seed order. */
export function locationsOf(db: PackDb): readonly LocationRow[] {
  return locationRows(db).all;
}

/** Every visit type, in seed order. */
export function visitTypesOf(db: PackDb): readonly VisitTypeRow[] {
  return visitTypeRows(db).all;
}

/** Every provider on staff. */
export function staffOf(db: PackDb): readonly ProviderRow[] {
  return providerRows(db).all;
}

/** True when the provider holds the credential a visit type needs. */
export function providerCanDo(provider: ProviderRow, type: VisitTypeRow): boolean {
  if (type.requires_md === 1 && provider.title !== 'md') return false;
  switch (type.requires) {
    case 'mohs':
      return provider.does_mohs === 1;
    case 'pediatric':
      return provider.does_pediatric === 1;
    case 'patch_testing':
      return provider.does_patch_testing === 1;
    case 'cosmetic':
      return provider.does_cosmetic === 1;
    default:
      // Pediatric dermatologists here see children only.
      return provider.does_pediatric !== 1;
  }
}

/** Providers holding the credential a visit type needs. */
export function qualifiedStaff(db: PackDb, type: VisitTypeRow, staff = staffOf(db)): ProviderRow[] {
  return staff.filter((p) => providerCanDo(p, type));
}

/** Offices where a visit type is offered: those with a provider holding its credential. */
export function officesFor(db: PackDb, type: VisitTypeRow, qualified = qualifiedStaff(db, type)): string[] {
  return [...new Set(qualified.map((p) => p.location_id))].sort();
}

/** True when the patient's age fits the visit type's age band. */
export function ageFits(type: VisitTypeRow, age: number): boolean {
  if (type.min_age_years !== null && age < type.min_age_years) return false;
  if (type.max_age_years !== null && age > type.max_age_years) return false;
  return true;
}

/** Hours (with fraction) from the pack's now until a local datetime. */
export function hoursUntil(clock: PackClock, datetime: string): number {
  return clock.minutesUntil(datetime) / 60;
}

/** Adds minutes to a local datetime string. */
export function addMinutes(clock: PackClock, datetime: string, minutes: number): string {
  const [date = '', time = '00:00'] = datetime.split('T');
  const [hh = 0, mm = 0] = time.split(':').map(Number);
  const total = hh * 60 + mm + minutes;
  const days = Math.floor(total / 1440);
  const rest = total - days * 1440;
  return `${clock.addDays(date, days)}T${String(Math.floor(rest / 60)).padStart(2, '0')}:${String(rest % 60).padStart(2, '0')}`;
}

/** Masks a phone number to its last four digits for speaking. */
export function maskPhone(phone: string | null): string | null {
  return phone ? `ending in ${phone.slice(-4)}` : null;
}
