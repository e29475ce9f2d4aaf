import { z } from 'zod';
import { normalizeAlias, normalizeCode, normalizeDate, normalizeDateTime, normalizeMoneyCents, normalizePhone } from '../../../src/packs/index.ts';
import { CARRIER_ALIASES, CARRIERS, clock, LOCATION_ALIASES, LOCATION_IDS, VISIT_TYPES } from './policy.ts';

/** Closed input fields shared by the Straus tools (packs.md §1.4) and their tolerant readers (§2.4). */

const REFERENCE_YEAR = Number(clock.now.slice(0, 4));

export const dateField = z.string().regex(/^\d{4}-\d{2}-\d{2}$/);
export const datetimeField = z.string().regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}$/);
export const phoneField = z.string().regex(/^\+[1-9]\d{7,14}$/);
export const zipField = z.string().regex(/^\d{5}$/);
export const personNameField = z.string().regex(/^[A-Za-z][A-Za-z .'-]{1,59}$/);
export const emailField = z.string().regex(/^[^\s@]{1,40}@[A-Za-z0-9.-]{1,40}\.[A-Za-z]{2,10}$/);
export const memberIdField = z.string().regex(/^[A-Z0-9]{5,20}$/);
export const openingIdField = z.string().regex(/^opn_[a-z0-9_]{3,40}$/);
export const appointmentIdField = z.string().regex(/^apt_[a-z0-9_]{3,40}$/);
export const chargeIdField = z.string().regex(/^chg_[a-z0-9_]{3,40}$/);
export const tokenField = z.string().regex(/^[a-z][a-z0-9_-]{2,40}$/).describe('The token from the quote or hold; never spoken.');
export const proseField = (max: number) => z.string().min(1).max(max);

export const locationField = z
  .enum(LOCATION_IDS)
  .describe('Office: "Park Avenue" or "Manhattan" is loc_park_ave; "Cobble Hill" or "Brooklyn" is loc_cobble_hill; "White Plains" is loc_white_plains; "Stamford" or "Connecticut" is loc_stamford.');
export const carrierField = z
  .enum(CARRIERS)
  .describe('Insurance carrier: "Blue Cross" or "Empire" is empire_bcbs; "United" or "UHC" is unitedhealthcare; "Medicaid" is healthfirst; any plan not listed is other.');
const OFFICE = `(${LOCATION_IDS.join('|')})`;
/** One to four office ids joined by commas, sorted (a closed string, so a task can state it as one literal). */
export const locationListField = z
  .string()
  .regex(new RegExp(`^${OFFICE}(,${OFFICE}){0,3}$`))
  .describe('Office ids joined by commas, such as "loc_park_ave,loc_stamford".');
export const visitTypeField = z.enum(VISIT_TYPES).describe('Visit type, as classify_visit names it: new_patient, follow_up, skin_exam and so on.');

/** Money in cents with its display string. */
export const moneyOut = { cents: z.number().int(), display: z.string() };

/** Spoken dates need the reference year to read "October 7th". */
export const readDate = (v: unknown): unknown => normalizeDate(v, REFERENCE_YEAR);
export const readDateTime = (v: unknown): unknown => normalizeDateTime(v);
export const readPhone = (v: unknown): unknown => normalizePhone(v);
export const readMoney = (v: unknown): unknown => normalizeMoneyCents(v);
export const readLocation = (v: unknown): unknown => {
  const code = normalizeCode(v);
  if (typeof code !== 'string') return v;
  const bare = code.replace(/^(the_)?/, '').replace(/_(office|location)$/, '').replace(/^loc_/, '');
  return LOCATION_ALIASES[bare] ?? ((LOCATION_IDS as readonly string[]).includes(`loc_${bare}`) ? `loc_${bare}` : code);
};
/** A list of offices (an array, a JSON array string or "Park Avenue, Stamford") as sorted ids joined by commas. */
export const readLocationList = (v: unknown): unknown => {
  const list = locationItems(v);
  return Array.isArray(list) && list.every((x) => typeof x === 'string') ? [...new Set(list)].sort().join(',') : v;
};

function locationItems(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(readLocation);
  if (typeof v !== 'string') return v;
  const text = v.trim();
  if (text.startsWith('[')) {
    try {
      const list: unknown = JSON.parse(text);
      return Array.isArray(list) ? list.map(readLocation) : v;
    } catch {
      return v;
    }
  }
  return text.split(/\s*(?:,|\band\b)\s*/).filter(Boolean).map(readLocation);
};
export const readCarrier = (v: unknown): unknown => {
  const code = normalizeAlias(v, CARRIER_ALIASES);
  if (typeof code !== 'string') return code;
  return (CARRIERS as readonly string[]).includes(code) ? code : 'other';
};
export const readEnum = (aliases: Readonly<Record<string, string>>) => (v: unknown): unknown => normalizeAlias(v, aliases);
export const readCode = (v: unknown): unknown => normalizeCode(v);
export const readMemberId = (v: unknown): unknown => (typeof v === 'string' ? v.replace(/[\s-]/g, '').toUpperCase() : v);
export const readZip = (v: unknown): unknown => (typeof v === 'string' ? v.trim().replace(/-\d{4}$/, '') : typeof v === 'number' ? String(v).padStart(5, '0') : v);
export const readName = (v: unknown): unknown => (typeof v === 'string' ? v.trim().replace(/\s+/g, ' ') : v);
export const readBool = (v: unknown): unknown => (v === 'true' || v === 'yes' ? true : v === 'false' || v === 'no' ? false : v);
export const readInt = (v: unknown): unknown => (typeof v === 'string' && /^\d+$/.test(v.trim()) ? Number(v.trim()) : v);
export const readLower = (v: unknown): unknown => (typeof v === 'string' ? v.trim().toLowerCase() : v);

/** "$40.00" style display for cents. */
export function moneyDisplay(cents: number): string {
  const sign = cents < 0 ? '-' : '';
  const abs = Math.abs(cents);
  const dollars = Math.floor(abs / 100).toLocaleString('en-US');
  return `${sign}$${dollars}.${String(abs % 100).padStart(2, '0')}`;
}
