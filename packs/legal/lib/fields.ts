import { z } from 'zod';
import { normalizeAlias, normalizeCode, normalizeDate, normalizePhone } from '../../../src/packs/index.ts';
import {
  AREA_ALIASES,
  AREAS,
  CONSULT_LOCATIONS,
  clock,
  LOCATION_ALIASES,
  OFFICE_IDS,
  RECIPIENT_ALIASES,
  STATE_CODES,
} from './policy.ts';

/** Closed input fields shared by the Halverson & Reed tools (packs.md §1.4) and their tolerant readers (§2.4). */

const REFERENCE_YEAR = Number(clock.now.slice(0, 4));

export const dateField = z.string().regex(/^\d{4}-\d{2}-\d{2}$/);
export const phoneField = z.string().regex(/^\+[1-9]\d{7,14}$/);
export const emailField = z.string().regex(/^[^\s@]{1,40}@[A-Za-z0-9.-]{1,40}\.[A-Za-z]{2,10}$/);
export const personNameField = z.string().regex(/^[A-Za-z][A-Za-z .'-]{1,59}$/);
export const partyNameField = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9 .,'&()-]{1,79}$/);
export const providerNameField = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9 .,'&()-]{1,79}$/);
export const matterNumberField = z.string().regex(/^\d{2}-\d{4}$/).describe('Matter number as two digits, a dash and four digits, such as 25-0318.');
export const stateField = z.string().regex(/^[A-Z]{2}$/).describe('Two letter US state code: "Pennsylvania" is PA, "Ohio" is OH, "West Virginia" is WV.');
export const streetField = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9 .,'#-]{2,79}$/);
export const cityField = z.string().regex(/^[A-Za-z][A-Za-z .'-]{1,39}$/);
export const zipField = z.string().regex(/^\d{5}$/);
export const openingIdField = z.string().regex(/^cop_[a-z0-9_]{3,40}$/);
export const tokenField = z.string().regex(/^[a-z][a-z0-9_-]{2,40}$/).describe('The token from hold_consult; never spoken.');
export const proseField = (max: number) => z.string().min(1).max(max);

export const areaField = z
  .enum(AREAS)
  .describe(
    'Practice area: "car crash" is car_accident; "slip and fall" is premises_injury; "defective product" is product_injury; "hurt at work" or "workers comp" is workplace_injury; "fired for my age" or "harassment" is employment_discrimination; "unpaid overtime" is wage_claim; divorce or custody is family.',
  );
export const officeOrAllField = z
  .enum([...OFFICE_IDS, 'all'])
  .describe('Office: "Pittsburgh" is off_pittsburgh; "Columbus" is off_columbus; "Wheeling" is off_wheeling; all for every office.');
export const consultLocationField = z
  .enum(CONSULT_LOCATIONS)
  .describe('Where the consultation happens: an office id, or video for a video call ("Zoom", "online").');

/** Money in cents with its display string. */
export function moneyDisplay(cents: number): string {
  const dollars = Math.floor(Math.abs(cents) / 100).toLocaleString('en-US');
  return `${cents < 0 ? '-' : ''}$${dollars}.${String(Math.abs(cents) % 100).padStart(2, '0')}`;
}

/** Spoken dates need the reference year to read "October 7th". */
export const readDate = (v: unknown): unknown => normalizeDate(v, REFERENCE_YEAR);
export const readPhone = (v: unknown): unknown => normalizePhone(v);
export const readCode = (v: unknown): unknown => normalizeCode(v);
export const readEnum = (aliases: Readonly<Record<string, string>>) => (v: unknown): unknown => normalizeAlias(v, aliases);
/**
 * "car crash" → car_accident. A phrase that is neither an area nor an alias passes through for the
 * strict parse (INVALID_ARGUMENTS with the list), never silently to `other`: "age discrimination"
 * read as `other` was declined with the referral script, though the firm takes it.
 */
export const readArea = (v: unknown): unknown => {
  const code = normalizeAlias(v, AREA_ALIASES);
  return typeof code === 'string' && (AREAS as readonly string[]).includes(code) ? code : v;
};
export const readRecipient = readEnum(RECIPIENT_ALIASES);
export const readName = (v: unknown): unknown => (typeof v === 'string' ? v.trim().replace(/\s+/g, ' ') : v);
export const readBool = (v: unknown): unknown => (v === 'true' || v === 'yes' ? true : v === 'false' || v === 'no' ? false : v);
export const readEmail = (v: unknown): unknown => (typeof v === 'string' ? v.trim().toLowerCase() : v);
export const readZip = (v: unknown): unknown => (typeof v === 'string' ? v.trim().replace(/-\d{4}$/, '') : typeof v === 'number' ? String(v).padStart(5, '0') : v);

/** "Pennsylvania", "pa", "Penn." → "PA"; anything unreadable passes through for the strict parse. */
export const readState = (v: unknown): unknown => {
  if (typeof v !== 'string') return v;
  const text = v.trim().replace(/\.$/, '');
  if (/^[a-z]{2}$/i.test(text)) return text.toUpperCase();
  const code = normalizeCode(text);
  return typeof code === 'string' ? (STATE_CODES[code] ?? v) : v;
};

/** "25 0318", "250318", "25-0318", "matter 25-0318" → "25-0318". */
export const readMatterNumber = (v: unknown): unknown => {
  if (typeof v !== 'string') return v;
  const digits = v.replace(/\D/g, '');
  return digits.length === 6 ? `${digits.slice(0, 2)}-${digits.slice(2)}` : v;
};

const ALL_OFFICES = new Set(['all', 'all_offices', 'every_office', 'any', 'any_office', 'offices']);

/** "Pittsburgh", "the Columbus office", "video call", "all offices" → an office or consult location id, or all. */
export const readLocation = (v: unknown): unknown => {
  const code = normalizeCode(v);
  if (typeof code !== 'string') return v;
  const bare = code.replace(/^(the_)/, '').replace(/_(office|location)$/, '').replace(/^off_/, '');
  if (bare === 'video') return 'video';
  if (ALL_OFFICES.has(bare)) return 'all';
  return LOCATION_ALIASES[bare] ?? ((OFFICE_IDS as readonly string[]).includes(`off_${bare}`) ? `off_${bare}` : code);
};

const PARTY_SUFFIX = /,?\s+(inc|incorporated|llc|l\.l\.c|corp|corporation|co|ltd)\.?$/i;

/** "Brightwell Foods, Inc." → "Brightwell Foods": spaces collapsed, a trailing legal suffix and period dropped. */
export const readParty = (v: unknown): unknown => {
  if (typeof v !== 'string') return v;
  const name = v.trim().replace(/\s+/g, ' ').replace(PARTY_SUFFIX, '').replace(/[.,]+$/, '');
  return name.length >= 2 ? name : v;
};
