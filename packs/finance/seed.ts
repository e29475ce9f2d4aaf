import type { PackDb } from '../../src/packs/index.ts';
import { accounts, branches, cards, disputes, feeRefunds, members, payees, payments, transactions } from './schema.ts';

/**
 * Fennwood Credit Union's seed: the branches, and the members whose records set each policy trap.
 * Each row's comment names the trap and its side of the threshold. The clock is Tuesday
 * 2026-10-13 at 3:40 p.m. (America/New_York), after the bill-pay cut-off and before the external
 * transfer cut-off. Self-contained on purpose: the template hash covers this file and the migrations.
 */

const SEEDED_AT = '2026-01-05T09:00';

const BRANCHES = [
  // The only branch open on Saturday and the only one with a notary.
  ['br_downtown', 'Downtown', '220 East Third Street, Dayton, Ohio', 'nine a.m. to five p.m.', 'nine a.m. to noon', 'Drive-through lanes open eight a.m. to six p.m. on weekdays.', 1],
  ['br_oakwood', 'Oakwood', '31 Park Avenue, Oakwood, Ohio', 'nine a.m. to five p.m.', null, 'No drive-through.', 0],
  ['br_kettering', 'Kettering', '1800 Wilmington Pike, Kettering, Ohio', 'nine a.m. to six p.m.', null, 'Drive-through lanes open eight a.m. to six p.m. on weekdays.', 0],
] as const;

// id, name, date of birth, ZIP, mobile, member since
const MEMBERS = [
  ['mem_hannah_whitaker', 'Hannah Whitaker', '1984-03-22', '45409', '+19375550111', '2012-06-01'], // everyday member: balances, bills, a new payee, an eligible fee
  ['mem_samuel_price', 'Samuel Price', '1958-07-04', '45419', '+19375550122', '1990-09-15'], // fee refund refused: one granted within the year; a payment already processing
  ['mem_maya_collins', 'Maya Collins', '1991-11-30', '45429', '+19375550133', '2019-02-20'], // disputes on both sides of the window and the provisional-credit line
  ['mem_daniel_moss_a', 'Daniel Moss', '1975-05-05', '45402', '+19375550144', '2001-04-10'], // same name and birth date as the next row: ZIP decides
  ['mem_daniel_moss_b', 'Daniel Moss', '1975-05-05', '45440', '+19375550155', '2015-08-03'],
  ['mem_walter_finch', 'Walter Finch', '1949-02-11', '45459', null, '1982-01-12'], // no mobile on file: no codes, no PIN reset texts
] as const;

// id, member, kind, nickname, last four, balance, available
const ACCOUNTS = [
  ['acc_hannah_chk', 'mem_hannah_whitaker', 'checking', 'everyday checking', '4417', 234018, 229418],
  ['acc_hannah_sav', 'mem_hannah_whitaker', 'savings', 'savings', '8802', 1250000, 1250000],
  ['acc_samuel_chk', 'mem_samuel_price', 'checking', 'checking', '5530', 18250, 18250],
  ['acc_samuel_mm', 'mem_samuel_price', 'money_market', 'money market', '6604', 4210077, 4210077],
  ['acc_maya_chk', 'mem_maya_collins', 'checking', 'checking', '7125', 91233, 91233],
  ['acc_moss_a_chk', 'mem_daniel_moss_a', 'checking', 'checking', '2208', 51000, 51000],
  ['acc_moss_b_chk', 'mem_daniel_moss_b', 'checking', 'checking', '9914', 7300, 7300],
  ['acc_walter_sav', 'mem_walter_finch', 'savings', 'savings', '3377', 880000, 880000],
] as const;

// id, member, account, kind, last four, status
const CARDS = [
  ['crd_hannah_debit', 'mem_hannah_whitaker', 'acc_hannah_chk', 'debit', '3391', 'active'],
  ['crd_samuel_debit', 'mem_samuel_price', 'acc_samuel_chk', 'debit', '1186', 'active'],
  ['crd_maya_debit', 'mem_maya_collins', 'acc_maya_chk', 'debit', '6048', 'active'],
  ['crd_moss_a_debit', 'mem_daniel_moss_a', 'acc_moss_a_chk', 'debit', '4470', 'active'],
  ['crd_moss_b_debit', 'mem_daniel_moss_b', 'acc_moss_b_chk', 'debit', '5002', 'locked'], // already locked: unlocking needs the one-time code
  ['crd_walter_debit', 'mem_walter_finch', 'acc_walter_sav', 'debit', '8815', 'active'],
] as const;

// id, account, posted on, description, kind, amount, card, status
const TRANSACTIONS = [
  ['txn_hannah_1010_grocer', 'acc_hannah_chk', '2026-10-10', 'Riverside Grocers', 'purchase', -8640, 'crd_hannah_debit', 'posted'],
  ['txn_hannah_1013_fuel', 'acc_hannah_chk', '2026-10-13', 'Fairway Fuel', 'purchase', -4600, 'crd_hannah_debit', 'pending'], // pending: balance and available differ by it
  ['txn_hannah_1009_books_a', 'acc_hannah_chk', '2026-10-09', 'Corner Books', 'purchase', -4215, 'crd_hannah_debit', 'posted'], // charged twice: a duplicate dispute
  ['txn_hannah_1009_books_b', 'acc_hannah_chk', '2026-10-09', 'Corner Books', 'purchase', -4215, 'crd_hannah_debit', 'posted'],
  ['txn_hannah_1001_payroll', 'acc_hannah_chk', '2026-10-01', 'Payroll deposit, Brightline Health', 'deposit', 215000, null, 'posted'],
  ['txn_hannah_0930_odfee', 'acc_hannah_chk', '2026-09-30', 'Overdraft fee', 'overdraft_fee', -3200, null, 'posted'], // 13 days old, first in a year: refundable
  ['txn_samuel_0914_odfee', 'acc_samuel_chk', '2026-09-14', 'Overdraft fee', 'overdraft_fee', -3200, null, 'posted'], // 29 days old, inside the window, but a refund was granted within the year
  ['txn_samuel_0908_rifee', 'acc_samuel_chk', '2026-09-08', 'Returned item fee', 'returned_item_fee', -3200, null, 'posted'], // 35 days old: outside the thirty-day window
  ['txn_samuel_1002_pharm', 'acc_samuel_chk', '2026-10-02', 'Elm Street Pharmacy', 'purchase', -2318, 'crd_samuel_debit', 'posted'], // disputed last week: the dispute is open
  ['txn_samuel_1005_credit', 'acc_samuel_chk', '2026-10-05', 'Provisional dispute credit', 'provisional_credit', 2318, null, 'posted'],
  ['txn_maya_0814_lakeview', 'acc_maya_chk', '2026-08-14', 'Lakeview Electronics', 'purchase', -61200, 'crd_maya_debit', 'posted'], // exactly 60 days: the last day to dispute, inside
  ['txn_maya_0813_tidewater', 'acc_maya_chk', '2026-08-13', 'Tidewater Outfitters', 'purchase', -7500, 'crd_maya_debit', 'posted'], // 61 days: one day outside the window
  ['txn_maya_1011_sunrise', 'acc_maya_chk', '2026-10-11', 'Sunrise Travel Online', 'purchase', -9450, 'crd_maya_debit', 'posted'], // under one hundred dollars: same-day provisional credit
  ['txn_maya_1012_nimbus', 'acc_maya_chk', '2026-10-12', 'Nimbus Digital Store', 'purchase', -64000, 'crd_maya_debit', 'posted'], // over one hundred dollars: credit by the tenth business day
  ['txn_maya_1008_cafe', 'acc_maya_chk', '2026-10-08', 'Bluebird Cafe', 'purchase', -1000, 'crd_maya_debit', 'posted'], // a small purchase the member made: not a dispute
  ['txn_moss_a_1005_hardware', 'acc_moss_a_chk', '2026-10-05', 'Gem City Hardware', 'purchase', -5425, 'crd_moss_a_debit', 'posted'],
  ['txn_walter_1001_interest', 'acc_walter_sav', '2026-10-01', 'Interest paid', 'interest', 1833, null, 'posted'],
] as const;

// id, member, name, kind, account last four, added on
const PAYEES = [
  ['pay_hannah_power', 'mem_hannah_whitaker', 'Miami Valley Power', 'biller', '0912', '2019-03-04'],
  ['pay_hannah_brandt', 'mem_hannah_whitaker', 'Leo Brandt', 'person', '6120', '2026-10-12'], // added yesterday: new payee, five hundred dollar limit
  ['pay_hannah_landlord', 'mem_hannah_whitaker', 'Oak Terrace Apartments', 'biller', '7731', '2021-07-01'],
  ['pay_samuel_water', 'mem_samuel_price', 'Dayton Water Works', 'biller', '4480', '2010-05-12'],
  ['pay_samuel_daughter', 'mem_samuel_price', 'Ruth Price', 'person', '2290', '2026-10-10'], // added three days ago: exactly three days is no longer new
] as const;

// id, member, from account, kind, payee, to account, amount, send on, status
const PAYMENTS = [
  ['pmt_hannah_power_1015', 'mem_hannah_whitaker', 'acc_hannah_chk', 'bill', 'pay_hannah_power', null, 14260, '2026-10-15', 'scheduled'], // can still be changed or cancelled
  ['pmt_hannah_rent_1101', 'mem_hannah_whitaker', 'acc_hannah_chk', 'bill', 'pay_hannah_landlord', null, 118500, '2026-11-01', 'scheduled'], // over one thousand dollars
  ['pmt_samuel_water_1013', 'mem_samuel_price', 'acc_samuel_chk', 'bill', 'pay_samuel_water', null, 6412, '2026-10-13', 'processing'], // today, past the cut-off: too late to change
  ['pmt_samuel_water_1113', 'mem_samuel_price', 'acc_samuel_chk', 'bill', 'pay_samuel_water', null, 6412, '2026-11-13', 'scheduled'],
] as const;

// id, member, fee transaction, amount, created at
const FEE_REFUNDS = [
  ['rfd_samuel_2025_1120', 'mem_samuel_price', 'txn_samuel_2025_1118_odfee', 3200, '2025-11-20T11:00'], // 327 days ago: inside the once-a-year limit
] as const;

// id, member, transaction, reason, amount, provisional credit on, decide by, status, created at
const DISPUTES = [
  ['dsp_samuel_1002_pharm', 'mem_samuel_price', 'txn_samuel_1002_pharm', 'wrong_amount', 2318, '2026-10-05', '2026-11-19', 'open', '2026-10-05T14:20'], // opened last week: under one hundred dollars, credited the same day
] as const;

/** Loads the seed rows into a fresh template database. */
export function seed(db: PackDb): void {
  db.insert(branches).values(BRANCHES.map(([id, name, address, weekday_hours, saturday_hours, drive_through, has_notary]) => ({ id, name, address, weekday_hours, saturday_hours, drive_through, has_notary }))).run();
  db.insert(members).values(MEMBERS.map(([id, full_name, date_of_birth, zip_code, mobile_phone, member_since]) => ({ id, full_name, date_of_birth, zip_code, mobile_phone, member_since }))).run();
  db.insert(accounts).values(ACCOUNTS.map(([id, member_id, kind, nickname, last4, balance_cents, available_cents]) => ({ id, member_id, kind, nickname, last4, balance_cents, available_cents }))).run();
  db.insert(cards).values(CARDS.map(([id, member_id, account_id, kind, last4, status]) => ({ id, member_id, account_id, kind, last4, status }))).run();
  db.insert(transactions).values(TRANSACTIONS.map(([id, account_id, posted_on, description, kind, amount_cents, card_id, status]) => ({ id, account_id, posted_on, description, kind, amount_cents, card_id, status }))).run();
  db.insert(payees).values(PAYEES.map(([id, member_id, name, kind, account_last4, added_on]) => ({ id, member_id, name, kind, account_last4, added_on }))).run();
  db.insert(payments).values(PAYMENTS.map(([id, member_id, from_account_id, kind, payee_id, to_account_id, amount_cents, send_on, status]) => ({ id, member_id, from_account_id, kind, payee_id, to_account_id, amount_cents, send_on, status, created_at: SEEDED_AT }))).run();
  db.insert(disputes).values(DISPUTES.map(([id, member_id, transaction_id, reason, amount_cents, provisional_credit_on, decide_by, status, created_at]) => ({ id, member_id, transaction_id, reason, amount_cents, provisional_credit_on, decide_by, status, created_at }))).run();
  db.insert(feeRefunds).values(FEE_REFUNDS.map(([id, member_id, fee_transaction_id, amount_cents, created_at]) => ({ id, member_id, fee_transaction_id, amount_cents, created_at }))).run();
}
