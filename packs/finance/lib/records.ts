import { and, eq } from 'drizzle-orm';
import { z } from 'zod';
import { dateInWords, editDistance, foldName, gatedSubject, hasGate, moneyInWords, numberInWords, param, preparedQuery, readCallSession, refuse, rowById, type ToolContext, type ToolRefusal } from '../../../src/packs/index.ts';
import { accounts, cards, members, transactions } from '../schema.ts';

/** Row shapes and record lookups shared by the Fennwood tools. */

export type MemberRow = typeof members.$inferSelect;
export type AccountRow = typeof accounts.$inferSelect;
export type CardRow = typeof cards.$inferSelect;
export type TransactionRow = typeof transactions.$inferSelect;

const memberById = rowById(members);
const accountById = rowById(accounts);
const transactionById = rowById(transactions);
const membersBornOn = preparedQuery((db) => db.select().from(members).where(eq(members.date_of_birth, param('dob'))).prepare());
const accountsOfMember = preparedQuery((db) => db.select().from(accounts).where(eq(accounts.member_id, param('member'))).prepare());
const cardsOfMember = preparedQuery((db) => db.select().from(cards).where(eq(cards.member_id, param('member'))).prepare());
const transactionsOfAccountQuery = preparedQuery((db) => db.select().from(transactions).where(eq(transactions.account_id, param('account'))).prepare());
const setCardStatusQuery = preparedQuery((db) => db.update(cards).set({ status: param('status') }).where(eq(cards.id, param('id'))).prepare());
const cardByLast4 = preparedQuery((db) => db.select().from(cards).where(and(eq(cards.member_id, param('member')), eq(cards.last4, param('last4')))).prepare());

/** The member a tool behind the `verified` gate runs for: opening the gate pins one. */
export function verifiedMember(ctx: ToolContext): MemberRow {
  const session = readCallSession(ctx.db);
  const row = session.subjectKind === 'member' && session.subjectId ? memberById(ctx.db).get({ id: session.subjectId }) : undefined;
  return gatedSubject(row, 'verified');
}

/** True once the member read back the one-time code on this call. */
export function steppedUp(ctx: ToolContext): boolean {
  return hasGate(ctx.db, 'stepped_up');
}

/** Identity-strict name match (packs.md §2.4): equal after folding, or one edit on six or more letters. */
export function namesMatch(given: string, onFile: string): boolean {
  const a = foldName(given);
  const b = foldName(onFile);
  if (a === b) return true;
  return b.replace(/ /g, '').length >= 6 && editDistance(a, b) <= 1;
}

/** Members with this name (tolerant) and this exact date of birth. */
export function findMembers(ctx: ToolContext, fullName: string, dateOfBirth: string): MemberRow[] {
  return membersBornOn(ctx.db)
    .all({ dob: dateOfBirth })
    .filter((m) => namesMatch(fullName, m.full_name));
}

/** The member's accounts in seed order. */
export function accountsOf(ctx: ToolContext, memberId: string): AccountRow[] {
  return accountsOfMember(ctx.db).all({ member: memberId });
}

/** One of the member's own accounts, or ACCOUNT_NOT_FOUND. */
export function ownAccount(ctx: ToolContext, memberId: string, accountId: string): AccountRow | ToolRefusal {
  const row = accountById(ctx.db).get({ id: accountId });
  return row && row.member_id === memberId ? row : refuse('ACCOUNT_NOT_FOUND', { recoverable: true });
}

/** The member's account of one kind (each member holds at most one of each), or ACCOUNT_NOT_FOUND. */
export function accountOfKind(ctx: ToolContext, memberId: string, kind: string): AccountRow | ToolRefusal {
  return accountsOf(ctx, memberId).find((a) => a.kind === kind) ?? refuse('ACCOUNT_NOT_FOUND', { recoverable: true });
}

/** The member's cards. */
export function cardsOf(ctx: ToolContext, memberId: string): CardRow[] {
  return cardsOfMember(ctx.db).all({ member: memberId });
}

/** The member's card with these last four digits, or CARD_NOT_FOUND. */
export function ownCard(ctx: ToolContext, memberId: string, last4: string): CardRow | ToolRefusal {
  return cardByLast4(ctx.db).get({ member: memberId, last4 }) ?? refuse('CARD_NOT_FOUND', { recoverable: true });
}

/** A transaction on one of the member's accounts, or TRANSACTION_NOT_FOUND. */
export function ownTransaction(ctx: ToolContext, memberId: string, transactionId: string): TransactionRow | ToolRefusal {
  const row = transactionById(ctx.db).get({ id: transactionId });
  const account = row ? accountById(ctx.db).get({ id: row.account_id }) : undefined;
  return row && account?.member_id === memberId ? row : refuse('TRANSACTION_NOT_FOUND', { recoverable: true });
}

/** Distinguishes a refusal from a row. */
export function isRefusal(v: unknown): v is ToolRefusal {
  return typeof v === 'object' && v !== null && 'ok' in v && (v as { ok: unknown }).ok === false;
}

/** An amount as cents and as said. */
export function money(cents: number): { cents: number; spoken: string } {
  return { cents, spoken: moneyInWords(cents) };
}

/** A date as stored and as said ("Thursday, October fifteenth"). */
export function day(date: string, today: string): { date: string; spoken: string } {
  return { date, spoken: dateInWords(date, today) };
}

/** Whole calendar days from one date to another. */
export function daysBetween(from: string, to: string): number {
  return Math.round((Date.parse(to) - Date.parse(from)) / 86_400_000);
}

/** Output shapes of an amount and a date, each with its spoken form. */
export const amountOut = z.object({ cents: z.number().int(), spoken: z.string() });
export const dayOut = z.object({ date: z.string(), spoken: z.string() });

/** Every transaction on one account, in seed order. */
export function transactionsOfAccount(ctx: ToolContext, accountId: string): TransactionRow[] {
  return transactionsOfAccountQuery(ctx.db).all({ account: accountId });
}

/** Sets a card's status (active, locked or closed). */
export function setCardStatus(ctx: ToolContext, cardId: string, status: string): void {
  setCardStatusQuery(ctx.db).run({ id: cardId, status });
}

/** The last four digits of a phone as said: "ending in one one one". */
export function spokenEnding(phone: string): string {
  return `ending in ${phone.slice(-4).split('').map(Number).map(numberInWords).join(' ')}`;
}
