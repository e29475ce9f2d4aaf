import { z } from 'zod';
import { normalizeAlias, normalizeCode, normalizeDate, normalizeMoneyCents, normalizePhone } from '../../../src/packs/index.ts';
import { ACCOUNT_KINDS, BRANCH_ALIASES, BRANCH_IDS, clock } from './policy.ts';

/** Closed input fields shared by the Fennwood tools (packs.md §1.4) and their tolerant readers (§2.4). */

const REFERENCE_YEAR = Number(clock.now.slice(0, 4));

export const dateField = z.string().regex(/^\d{4}-\d{2}-\d{2}$/);
export const zipField = z.string().regex(/^\d{5}$/);
export const personNameField = z.string().regex(/^[A-Za-z][A-Za-z .'-]{1,59}$/);
export const moneyField = z.number().int().min(1).max(100_000_000);
export const accountIdField = z.string().regex(/^acc_[a-z0-9_]{3,40}$/);
export const cardIdField = z.string().regex(/^crd_[a-z0-9_]{3,40}$/);
export const payeeIdField = z.string().regex(/^pay_[a-z0-9_]{3,40}$/);
export const paymentIdField = z.string().regex(/^pmt_[a-z0-9_]{3,40}$/);
export const transactionIdField = z.string().regex(/^txn_[a-z0-9_]{3,40}$/);
export const last4Field = z.string().regex(/^\d{4}$/);
export const codeField = z.string().regex(/^\d{4,8}$/);
export const tokenField = z.string().regex(/^[a-z][a-z0-9_-]{2,40}$/).describe('The token from the quote; never spoken.');
export const accountKindField = z.enum(ACCOUNT_KINDS);
export const branchField = z.enum(BRANCH_IDS).describe('Branch: "Downtown" or "Main Street" is br_downtown; "Oakwood" is br_oakwood; "Kettering" is br_kettering.');

/** Money in cents with its spoken form. */
export const readDate = (v: unknown): unknown => normalizeDate(v, REFERENCE_YEAR);
export const readPhone = (v: unknown): unknown => normalizePhone(v);
export const readMoney = (v: unknown): unknown => normalizeMoneyCents(v);
export const readCode = (v: unknown): unknown => normalizeCode(v);
export const readBranch = (v: unknown): unknown => {
  const code = normalizeCode(v);
  if (typeof code !== 'string') return v;
  const bare = code.replace(/^(the_)?/, '').replace(/_(branch|office)$/, '').replace(/^br_/, '');
  return BRANCH_ALIASES[bare] ?? ((BRANCH_IDS as readonly string[]).includes(`br_${bare}`) ? `br_${bare}` : code);
};
export const readEnum = (aliases: Readonly<Record<string, string>>) => (v: unknown): unknown => normalizeAlias(v, aliases);
export const readZip = (v: unknown): unknown => (typeof v === 'string' ? v.trim().replace(/-\d{4}$/, '') : typeof v === 'number' ? String(v).padStart(5, '0') : v);
export const readName = (v: unknown): unknown => (typeof v === 'string' ? v.trim().replace(/\s+/g, ' ') : v);
export const readBool = (v: unknown): unknown => (v === 'true' || v === 'yes' ? true : v === 'false' || v === 'no' ? false : v);
/** Digits said with spaces or dashes ("4 8 2 9 1 3", "3391"). */
export const readDigits = (v: unknown): unknown => (typeof v === 'string' ? v.replace(/[\s-]/g, '') : typeof v === 'number' ? String(v) : v);
/** "my checking account", "the savings" or "money market" as an account kind. */
export const readAccountKind = (v: unknown): unknown => {
  const code = normalizeCode(v);
  if (typeof code !== 'string') return v;
  const bare = code.replace(/^(my_|the_)/, '').replace(/_account$/, '').replace(/^everyday_/, '');
  return bare === 'mm' ? 'money_market' : bare;
};
