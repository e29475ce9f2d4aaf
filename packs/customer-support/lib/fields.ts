import { z } from 'zod';
import { normalizeAlias, normalizeCode, normalizeDate, normalizeMoneyCents, normalizePhone } from '../../../src/packs/index.ts';
import { clock, STORE_ALIASES, STORE_IDS } from './policy.ts';

/** Closed input fields shared by the Kestrel tools (packs.md §1.4) and their tolerant readers (§2.4). */

const REFERENCE_YEAR = Number(clock.now.slice(0, 4));

export const dateField = z.string().regex(/^\d{4}-\d{2}-\d{2}$/);
export const phoneField = z.string().regex(/^\+[1-9]\d{7,14}$/);
export const zipField = z.string().regex(/^\d{5}$/);
export const last4Field = z.string().regex(/^\d{4}$/);
export const orderNumberField = z.string().regex(/^KE-\d{6}$/).describe('Order number as KE- and six digits: "K E four eight zero one one two" is KE-480112.');
export const itemIdField = z.string().regex(/^itm_\d{6}_\d{1,2}$/).describe('Item id from get_order, get_account_overview or list_item_plans.');
export const rmaIdField = z
  .string()
  .regex(/^(rma|itm)_\d{6}_\d{1,2}$/)
  .describe('Return id from confirm_return_request; the returned item id names the same return.');
export const slotIdField = z.string().regex(/^bs_[a-z_]{3,20}_\d{4}_\d{4}$/).describe('Slot id from find_bench_slots.');
export const appointmentIdField = z
  .string()
  .regex(/^(svc|bs)_[a-z_]{3,20}_\d{4}_\d{4}$/)
  .describe('Repair appointment id from book_service_appointment or get_account_overview; the slot id it was booked in names the same appointment.');
export const tokenField = z.string().regex(/^[a-z][a-z0-9_-]{2,40}$/).describe('The token from the quote; never spoken.');
export const proseField = (max: number) => z.string().min(1).max(max);
export const storeField = z
  .enum(STORE_IDS)
  .describe('Store: "Lakeview" or "Chicago" is st_lakeview; "Naperville" is st_naperville; "Evanston" is st_evanston; "Oak Park" is st_oak_park.');

/** Money in cents with its display string. */
export function moneyDisplay(cents: number): string {
  const sign = cents < 0 ? '-' : '';
  const abs = Math.abs(cents);
  return `${sign}$${Math.floor(abs / 100).toLocaleString('en-US')}.${String(abs % 100).padStart(2, '0')}`;
}

/** Spoken dates need the reference year to read "October 7th". */
export const readDate = (v: unknown): unknown => normalizeDate(v, REFERENCE_YEAR);
export const readPhone = (v: unknown): unknown => normalizePhone(v);
export const readMoney = (v: unknown): unknown => normalizeMoneyCents(v);
export const readCode = (v: unknown): unknown => normalizeCode(v);
export const readEnum = (aliases: Readonly<Record<string, string>>) => (v: unknown): unknown => normalizeAlias(v, aliases);
export const readBool = (v: unknown): unknown => (v === 'true' || v === 'yes' ? true : v === 'false' || v === 'no' ? false : v);
export const readDigits = (v: unknown): unknown => (typeof v === 'number' ? String(v).padStart(4, '0') : typeof v === 'string' ? v.replace(/[\s-]/g, '') : v);
export const readZip = (v: unknown): unknown => (typeof v === 'string' ? v.trim().replace(/-\d{4}$/, '') : typeof v === 'number' ? String(v).padStart(5, '0') : v);
export const readStore = (v: unknown): unknown => {
  const code = normalizeCode(v);
  if (typeof code !== 'string') return v;
  const bare = code.replace(/^(the_)?/, '').replace(/_(store|location)$/, '').replace(/^st_/, '');
  return STORE_ALIASES[bare] ?? ((STORE_IDS as readonly string[]).includes(`st_${bare}`) ? `st_${bare}` : code);
};
/** A return is one-to-one with its item, so an item id reads as that item's return id. */
export const readRmaId = (v: unknown): unknown => {
  const code = normalizeCode(v);
  return typeof code === 'string' ? code.replace(/^itm_/, 'rma_') : v;
};
/** An appointment is one-to-one with its slot, so a slot id reads as the appointment booked in it. */
export const readAppointmentId = (v: unknown): unknown => {
  const code = normalizeCode(v);
  return typeof code === 'string' ? code.replace(/^bs_/, 'svc_') : v;
};
/** "ke 480112", "KE480112", "480112" → "KE-480112". */
export const readOrderNumber = (v: unknown): unknown => {
  if (typeof v !== 'string') return typeof v === 'number' ? readOrderNumber(String(v)) : v;
  const m = /^(?:ke)?[\s-]*(\d{6})$/i.exec(v.trim());
  return m ? `KE-${m[1]}` : v;
};
