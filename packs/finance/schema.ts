import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';

export { callSession, escalations, holds } from '../../src/packs/session-tables.ts';

// Reference table: seeded, never written by a tool.

/** The three branches, with the public facts reception may read out. */
export const branches = sqliteTable('branches', {
  id: text('id').primaryKey(),
  name: text('name').notNull(),
  address: text('address').notNull(),
  weekday_hours: text('weekday_hours').notNull(),
  saturday_hours: text('saturday_hours'),
  drive_through: text('drive_through').notNull(),
  has_notary: integer('has_notary').notNull(),
});

/** Members: the people identity checks run against. */
export const members = sqliteTable('members', {
  id: text('id').primaryKey(),
  full_name: text('full_name').notNull(),
  date_of_birth: text('date_of_birth').notNull(),
  zip_code: text('zip_code').notNull(),
  mobile_phone: text('mobile_phone'),
  member_since: text('member_since').notNull(),
});

/** Deposit accounts; balances move when a transfer between a member's own accounts posts. */
export const accounts = sqliteTable('accounts', {
  id: text('id').primaryKey(),
  member_id: text('member_id').notNull(),
  kind: text('kind').notNull(),
  nickname: text('nickname').notNull(),
  last4: text('last4').notNull(),
  balance_cents: integer('balance_cents').notNull(),
  available_cents: integer('available_cents').notNull(),
});

/** Posted and pending transactions; a provisional credit or fee refund posts a new row. */
export const transactions = sqliteTable(
  'transactions',
  {
    id: text('id').primaryKey(),
    account_id: text('account_id').notNull(),
    posted_on: text('posted_on').notNull(),
    description: text('description').notNull(),
    kind: text('kind').notNull(),
    amount_cents: integer('amount_cents').notNull(),
    card_id: text('card_id'),
    status: text('status').notNull(),
  },
  (t) => [index('transactions_by_account_date').on(t.account_id, t.posted_on, t.id)],
);

/** Debit and credit cards, shown only by their last four digits. */
export const cards = sqliteTable('cards', {
  id: text('id').primaryKey(),
  member_id: text('member_id').notNull(),
  account_id: text('account_id').notNull(),
  kind: text('kind').notNull(),
  last4: text('last4').notNull(),
  status: text('status').notNull(),
});

/** Saved payees: billers and people. */
export const payees = sqliteTable('payees', {
  id: text('id').primaryKey(),
  member_id: text('member_id').notNull(),
  name: text('name').notNull(),
  kind: text('kind').notNull(),
  account_last4: text('account_last4').notNull(),
  added_on: text('added_on').notNull(),
});

/** Scheduled, sent and cancelled payments and transfers. */
export const payments = sqliteTable('payments', {
  id: text('id').primaryKey(),
  member_id: text('member_id').notNull(),
  from_account_id: text('from_account_id').notNull(),
  kind: text('kind').notNull(),
  payee_id: text('payee_id'),
  to_account_id: text('to_account_id'),
  amount_cents: integer('amount_cents').notNull(),
  send_on: text('send_on').notNull(),
  status: text('status').notNull(),
  created_at: text('created_at').notNull(),
});

/** Courtesy refunds of fees. */
export const feeRefunds = sqliteTable('fee_refunds', {
  id: text('id').primaryKey(),
  member_id: text('member_id').notNull(),
  fee_transaction_id: text('fee_transaction_id').notNull(),
  amount_cents: integer('amount_cents').notNull(),
  created_at: text('created_at').notNull(),
});

/** Card replacements ordered on a call. */
export const cardReplacements = sqliteTable('card_replacements', {
  id: text('id').primaryKey(),
  card_id: text('card_id').notNull(),
  reason: text('reason').notNull(),
  delivery: text('delivery').notNull(),
  fee_cents: integer('fee_cents').notNull(),
  arrives_by: text('arrives_by').notNull(),
  created_at: text('created_at').notNull(),
});

/** Travel notices on a member's cards. */
export const travelNotices = sqliteTable('travel_notices', {
  id: text('id').primaryKey(),
  member_id: text('member_id').notNull(),
  destination: text('destination').notNull(),
  start_date: text('start_date').notNull(),
  end_date: text('end_date').notNull(),
  created_at: text('created_at').notNull(),
});

/** PIN reset links texted to the mobile on file. */
export const pinResets = sqliteTable('pin_resets', {
  id: text('id').primaryKey(),
  card_id: text('card_id').notNull(),
  sent_to: text('sent_to').notNull(),
  created_at: text('created_at').notNull(),
});

/** One-time codes texted for step-up. */
export const oneTimeCodes = sqliteTable('one_time_codes', {
  id: text('id').primaryKey(),
  member_id: text('member_id').notNull(),
  sent_to: text('sent_to').notNull(),
  code: text('code').notNull(),
  created_at: text('created_at').notNull(),
});

/** Card disputes and fraud claims, with the provisional credit the bank's rule gives. */
export const disputes = sqliteTable('disputes', {
  id: text('id').primaryKey(),
  member_id: text('member_id').notNull(),
  transaction_id: text('transaction_id').notNull(),
  reason: text('reason').notNull(),
  amount_cents: integer('amount_cents').notNull(),
  provisional_credit_on: text('provisional_credit_on').notNull(),
  decide_by: text('decide_by').notNull(),
  status: text('status').notNull(),
  created_at: text('created_at').notNull(),
});

/** Reports of calls, texts or emails pretending to be the credit union. */
export const scamReports = sqliteTable('scam_reports', {
  id: text('id').primaryKey(),
  channel: text('channel').notNull(),
  asked_for: text('asked_for').notNull(),
  money_sent: integer('money_sent').notNull(),
  created_at: text('created_at').notNull(),
});
