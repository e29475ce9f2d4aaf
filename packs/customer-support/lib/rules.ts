import { numberInWords } from '../../../src/packs/index.ts';
import { ACCIDENTAL_ISSUES, policy, type ItemCondition, type Issue, type Tier } from './policy.ts';

/**
 * Kestrel's policy arithmetic as pure functions of dates, flags and cents, so every edge can be
 * tested without a database. Dates are local YYYY-MM-DD strings; money is integer cents.
 */

/** numerator / denominator rounded half up to a whole cent (both non-negative). */
export function roundHalfUp(numerator: number, denominator: number): number {
  return Math.floor((2 * numerator + denominator) / (2 * denominator));
}

function utc(date: string): number {
  const [y = 1970, m = 1, d = 1] = date.split('-').map(Number);
  return Date.UTC(y, m - 1, d);
}

/** Whole calendar days from one date to another (negative when `to` is earlier). */
export function daysBetween(from: string, to: string): number {
  return Math.round((utc(to) - utc(from)) / 86_400_000);
}

/** Adds calendar months; a day past the end of the target month becomes its last day. */
export function addMonths(date: string, months: number): string {
  const [y = 1970, m = 1, d = 1] = date.split('-').map(Number);
  const target = new Date(Date.UTC(y, m - 1 + months, 1));
  const last = new Date(Date.UTC(target.getUTCFullYear(), target.getUTCMonth() + 1, 0)).getUTCDate();
  target.setUTCDate(Math.min(d, last));
  return target.toISOString().slice(0, 10);
}

/** Whole months from `from` until `to`: the largest n with addMonths(from, n) ≤ to. */
export function wholeMonthsBetween(from: string, to: string): number {
  let n = 0;
  while (addMonths(from, n + 1) <= to) n++;
  return n;
}

/** The return window that applies to an item, and why. */
export function returnWindowDays(tier: Tier, activatable: boolean): { window_days: number; basis: string } {
  if (activatable) return { window_days: policy.return_window_activatable_days, basis: 'phones, cellular tablets and watches: the same window for every customer' };
  if (tier === 'elite') return { window_days: policy.return_window_elite_days, basis: 'Circle Elite member window' };
  if (tier === 'circle') return { window_days: policy.return_window_circle_days, basis: 'Kestrel Circle member window' };
  return { window_days: policy.return_window_standard_days, basis: 'standard window' };
}

/** The restocking fee on a return inside its window, with its reason. */
export function restockingFee(input: { condition: ItemCondition; restockClass: string; tier: Tier; pricePaidCents: number }): { fee_cents: number; fee_reason: string } {
  if (input.condition === 'defective') return { fee_cents: 0, fee_reason: 'reported defective inside the return window: no restocking fee' };
  if (input.condition === 'unopened') return { fee_cents: 0, fee_reason: 'unopened: no restocking fee' };
  if (input.tier === 'elite') return { fee_cents: 0, fee_reason: 'Circle Elite members pay no restocking fees' };
  if (input.restockClass === 'activation') return { fee_cents: policy.restocking_activatable_fee_cents, fee_reason: 'opened phone, cellular tablet or watch' };
  if (input.restockClass === 'percent') {
    return { fee_cents: roundHalfUp(input.pricePaidCents * policy.restocking_percent, 100), fee_reason: `opened drone, camera, projector or special order, at ${numberInWords(policy.restocking_percent)} percent of the price paid` };
  }
  return { fee_cents: 0, fee_reason: 'no restocking fee for this kind of item' };
}

/** Whether a delivery window can move, and the fee: free beyond 48 hours, the fee within, never on the day. */
export function deliveryChange(hoursUntilStart: number, windowIsToday: boolean): { allowed: boolean; fee_cents: number; fee_reason: string } {
  if (windowIsToday || hoursUntilStart <= 0) return { allowed: false, fee_cents: 0, fee_reason: 'the delivery is today: no changes' };
  if (hoursUntilStart <= policy.delivery_fee_within_hours) return { allowed: true, fee_cents: policy.delivery_change_fee_cents, fee_reason: `${policy.delivery_fee_within_hours} hours or less before the window starts` };
  return { allowed: true, fee_cents: 0, fee_reason: `more than ${policy.delivery_fee_within_hours} hours before the window starts: free` };
}

/** Price protection eligibility for one item. */
export function priceProtection(input: {
  tier: Tier;
  daysSinceDelivery: number;
  paidCents: number;
  currentCents: number;
  excluded: string | null;
  alreadyAdjusted: boolean;
}): { eligible: boolean; window_days: number; difference_cents: number; reason: string; code: string | null } {
  const window = input.tier === 'elite' ? policy.price_protection_elite_days : policy.price_protection_standard_days;
  const difference = Math.max(0, input.paidCents - input.currentCents);
  const result = (eligible: boolean, reason: string, code: string | null) => ({ eligible, window_days: window, difference_cents: difference, reason, code });
  if (input.excluded) return result(false, `${input.excluded} items are excluded from price protection`, 'PRICE_PROTECTION_EXCLUDED');
  if (input.alreadyAdjusted) return result(false, 'this item already had its one price adjustment', 'PRICE_ADJUSTMENT_USED');
  if (difference === 0) return result(false, 'the current price is not lower than the price paid', 'NO_PRICE_DROP');
  if (input.daysSinceDelivery > window) return result(false, `delivered ${input.daysSinceDelivery} days ago, past the ${window} day window`, 'PRICE_PROTECTION_WINDOW_CLOSED');
  return result(true, `delivered ${input.daysSinceDelivery} days ago, inside the ${window} day window`, null);
}

/** One rung of the service ladder. */
export type CoverageKind = 'recall_stop' | 'battery_hazard_stop' | 'manufacturer_warranty' | 'kestrel_shield' | 'elite_diagnostic' | 'paid_diagnostic';

/** The protection plan on an item, as the ladder reads it. */
export interface PlanFacts {
  readonly level: string;
  readonly accidental: boolean;
  readonly endsOn: string;
}

/** Walks the service ladder: recall, battery hazard, warranty, Shield, Elite, then the paid diagnostic. */
export function serviceLadder(input: {
  recalled: boolean;
  issue: Issue;
  deliveredOn: string;
  today: string;
  plan: PlanFacts | null;
  tier: Tier;
}): { coverage: CoverageKind; diagnostic_fee_cents: number; reason: string; warranty_ends_on: string } {
  const warrantyEnds = addMonths(input.deliveredOn, policy.warranty_months);
  const accidental = ACCIDENTAL_ISSUES.includes(input.issue);
  const rung = (coverage: CoverageKind, reason: string, fee = 0) => ({ coverage, diagnostic_fee_cents: fee, reason, warranty_ends_on: warrantyEnds });
  if (input.recalled) return rung('recall_stop', 'the product is under a safety recall');
  if (input.issue === 'battery_swelling') return rung('battery_hazard_stop', 'a swelling battery is a fire hazard');
  if (!accidental && input.today <= warrantyEnds) return rung('manufacturer_warranty', 'inside the one year manufacturer warranty');
  const plan = input.plan;
  if (plan && input.today <= plan.endsOn && (!accidental || plan.accidental)) return rung('kestrel_shield', accidental ? 'accidental damage on a Shield plan that includes it' : 'covered by the Kestrel Shield plan');
  const because = accidental ? 'accidental damage is not covered by the warranty or this plan' : 'outside the warranty with no active plan';
  if (input.tier === 'elite') return rung('elite_diagnostic', `${because}; Circle Elite members get a free diagnostic`);
  return rung('paid_diagnostic', `${because}; the bench diagnostic fee applies`, policy.bench_diagnostic_fee_cents);
}

/** Upgrade charge and cancellation refund for a membership on a date. */
export function membershipMoney(input: { tier: Tier; paidCents: number; joinedOn: string; renewsOn: string; today: string }): {
  months_left: number;
  days_since_joining: number;
  upgrade_cents: number;
  refund_cents: number;
  refund_reason: string;
} {
  const monthsLeft = wholeMonthsBetween(input.today, input.renewsOn);
  const days = daysBetween(input.joinedOn, input.today);
  const upgrade = input.tier === 'circle' ? roundHalfUp((policy.elite_price_cents - policy.circle_price_cents) * monthsLeft, 12) : 0;
  const full = days <= policy.membership_full_refund_days;
  const refund = full ? input.paidCents : roundHalfUp(input.paidCents * monthsLeft, 12);
  const reason = full
    ? `joined ${days} days ago, within ${policy.membership_full_refund_days} days: full refund`
    : `${monthsLeft} unused whole months of 12, rounded half up to the cent`;
  return { months_left: monthsLeft, days_since_joining: days, upgrade_cents: upgrade, refund_cents: refund, refund_reason: reason };
}
