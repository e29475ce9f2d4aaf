/**
 * Fennwood Credit Union's fixed clock, policy numbers and closed vocabularies. Every number a tool
 * reads lives here (packs.md §1.4); the README's policy block is generated from `policy`.
 */

/** Tuesday 2026-10-13 at 3:40 p.m. in Dayton; Columbus Day (the day before) and the late-year holidays are closed. */
export const clock = {
  now: '2026-10-13T15:40',
  timezone: 'America/New_York',
  holidays: ['2026-10-12', '2026-11-11', '2026-11-26', '2026-12-25'],
} as const;

/** Every fee, window, threshold and cut-off the tools apply. Boundaries are stated beside each. */
export const policy = {
  identity_lock_after_failures: 3,
  /** A payment or transfer strictly above this needs the one-time code on this call; exactly this does not. */
  step_up_above_cents: 100000,
  /** A bill payment for today requested at or after this local time goes out on the next business day. */
  bill_pay_cutoff_hour: 15,
  /** An external transfer for today requested at or after this local time goes out on the next business day. */
  external_transfer_cutoff_hour: 17,
  /** Payments can be scheduled up to this many days ahead, inclusive. */
  payment_horizon_days: 90,
  /** A payee added fewer than this many days ago (strictly) is new. */
  new_payee_days: 3,
  /** A payment to a new payee may be at most this much, inclusive. */
  new_payee_limit_cents: 50000,
  /** A card purchase can be disputed up to this many days after it posted, the last day inclusive. */
  dispute_window_days: 60,
  /** A dispute up to this amount, inclusive, gets its provisional credit the same day. */
  provisional_credit_same_day_max_cents: 10000,
  /** Larger disputes get their provisional credit by this many business days after the claim. */
  provisional_credit_business_days: 10,
  /** Every dispute is decided within this many calendar days of the claim. */
  dispute_decision_days: 45,
  /** One courtesy refund of an overdraft or returned item fee in this many days. */
  fee_refund_once_per_days: 365,
  /** Only a fee that posted within this many days, inclusive, can be refunded. */
  fee_refund_max_age_days: 30,
  /** Expedited card delivery costs this, unless the card was stolen or used for fraud. */
  expedited_card_fee_cents: 2500,
  standard_card_business_days: 7,
  expedited_card_business_days: 2,
  /** A travel notice can cover at most this many days, first and last inclusive. */
  travel_notice_max_days: 90,
  one_time_code_valid_minutes: 10,
} as const;

/** Branches by id. */
export const BRANCH_IDS = ['br_downtown', 'br_oakwood', 'br_kettering'] as const;

/** What callers say for each branch. */
export const BRANCH_ALIASES: Readonly<Record<string, (typeof BRANCH_IDS)[number]>> = {
  downtown: 'br_downtown',
  main: 'br_downtown',
  main_street: 'br_downtown',
  oakwood: 'br_oakwood',
  kettering: 'br_kettering',
};

export const ACCOUNT_KINDS = ['checking', 'savings', 'money_market'] as const;
export const DISPUTE_REASONS = ['unauthorized', 'duplicate', 'not_received', 'wrong_amount'] as const;
export const REPLACEMENT_REASONS = ['lost', 'stolen', 'damaged', 'fraud'] as const;
export const SCAM_CHANNELS = ['phone_call', 'text', 'email'] as const;
