import { z } from 'zod';
import { isCalendarDate, normalizeAlias, normalizeCode, normalizeDate, normalizePhone } from '../../../src/packs/index.ts';
import { AIRPORT_ALIASES, AIRPORT_KEYS, clock } from './policy.ts';

/** Closed input fields shared by the Bluestem tools (packs.md §1.4) and their tolerant readers (§2.4). */

const REFERENCE_YEAR = Number(clock.now.slice(0, 4));

// A shape-valid day that is not on the calendar is refused as invalid arguments, before a tool does date arithmetic with it.
export const dateField = z.string().regex(/^\d{4}-\d{2}-\d{2}$/).refine(isCalendarDate, 'not a day on the calendar');
export const phoneField = z.string().regex(/^\+[1-9]\d{7,14}$/);
export const lastNameField = z.string().regex(/^[A-Za-z][A-Za-z '-]{0,39}$/);
export const personNameField = z.string().regex(/^[A-Za-z][A-Za-z .'-]{1,59}$/);
export const recordLocatorField = z.string().regex(/^[A-Z0-9]{6}$/).describe('The six character confirmation code, letters and digits, such as "HKWQRZ".');
export const flightNumberField = z.string().regex(/^BS\d{3,4}$/).describe('Bluestem flight number such as "BS210"; "flight two ten" is BS210.');
export const flightIdField = z.string().regex(/^flt_[a-z0-9_]{3,40}$/);
export const segmentIdField = z.string().regex(/^seg_[a-z0-9_]{3,40}$/);
export const passengerIdField = z.string().regex(/^pax_[a-z0-9_]{3,40}$/);
export const seatField = z.string().regex(/^([1-9]|1\d|20)[A-F]$/).describe('Seat such as "4C": row one to twenty, letter A to F.');
export const tokenField = z.string().regex(/^[a-z][a-z0-9_-]{2,40}$/).describe('The token from the quote; never spoken.');
export const airportField = z.enum(AIRPORT_KEYS).describe('Airport by city: "Chicago" or "O\'Hare" is chicago_ohare, "Dallas" is dallas_fort_worth, "Twin Cities" is minneapolis.');

export const readDate = (v: unknown): unknown => normalizeDate(v, REFERENCE_YEAR);
export const readPhone = (v: unknown): unknown => normalizePhone(v);
export const readCode = (v: unknown): unknown => normalizeCode(v);
export const readName = (v: unknown): unknown => (typeof v === 'string' ? v.trim().replace(/\s+/g, ' ') : v);
export const readBool = (v: unknown): unknown => (v === 'true' || v === 'yes' ? true : v === 'false' || v === 'no' ? false : v);
export const readInt = (v: unknown): unknown => (typeof v === 'string' && /^\d+$/.test(v.trim()) ? Number(v.trim()) : v);
/** "hk wq rz", "HK-WQRZ" → "HKWQRZ". */
export const readLocator = (v: unknown): unknown => (typeof v === 'string' ? v.replace(/[\s.-]/g, '').toUpperCase() : v);
/** "bs 210", "210", "Bluestem 210" → "BS210". */
export const readFlightNumber = (v: unknown): unknown => {
  if (typeof v === 'number') return `BS${v}`;
  if (typeof v !== 'string') return v;
  const digits = /(\d{3,4})/.exec(v)?.[1];
  return digits ? `BS${digits}` : v;
};
export const readSeat = (v: unknown): unknown => (typeof v === 'string' ? v.replace(/\s+/g, '').toUpperCase() : v);
export const readAirport = (v: unknown): unknown => normalizeAlias(v, AIRPORT_ALIASES);

/** "$40.00" style display for cents. */
export function moneyDisplay(cents: number): string {
  const abs = Math.abs(cents);
  return `${cents < 0 ? '-' : ''}$${Math.floor(abs / 100).toLocaleString('en-US')}.${String(abs % 100).padStart(2, '0')}`;
}
