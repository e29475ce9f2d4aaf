/**
 * Kestrel Electronics' fixed clock, policy numbers and closed vocabularies. Every number a tool
 * reads lives here (packs.md §1.4); the README's policy block is generated from `policy`.
 */

/** Thursday 2026-10-08 11:00 in Chicago; Thanksgiving and Christmas are closed. */
export const clock = {
  now: '2026-10-08T11:00',
  timezone: 'America/Chicago',
  holidays: ['2026-11-26', '2026-12-25'],
} as const;

/** Every fee, window, threshold and price the tools apply. Boundaries are stated beside each. */
export const policy = {
  /** Return windows count whole days from delivery; the last day is inside (days used ≤ window). */
  return_window_standard_days: 21,
  return_window_circle_days: 30,
  return_window_elite_days: 45,
  /** Phones, cellular tablets and watches, whatever the tier. */
  return_window_activatable_days: 14,
  /** Opened activatable device, outside a defect report and below Elite. */
  restocking_activatable_fee_cents: 4000,
  /** Opened drones, cameras, projectors and special orders: this share of the price paid, rounded half up. */
  restocking_percent: 12,
  /** A delivery change this many hours or fewer before the window starts costs the fee (exactly 48 pays). */
  delivery_fee_within_hours: 48,
  delivery_change_fee_cents: 2499,
  /** A new delivery date is at most this many days ahead. */
  delivery_reschedule_max_days: 14,
  /** Own-price drops within this many days of delivery (the last day is inside). */
  price_protection_standard_days: 14,
  price_protection_elite_days: 30,
  /** Manufacturer warranty from delivery; the anniversary itself is still covered. */
  warranty_months: 12,
  shield_plan_years: [2, 3],
  bench_diagnostic_fee_cents: 4999,
  bench_slots_per_search: 3,
  bench_search_horizon_days: 14,
  circle_price_cents: 3999,
  elite_price_cents: 17999,
  /** A cancellation this many days or fewer after joining refunds the full price. */
  membership_full_refund_days: 14,
  save_offer_months_free: 2,
  verification_lock_after_failures: 2,
  refund_business_days: 5,
  return_label_valid_days: 14,
} as const;

/** Stores by id. */
export const STORE_IDS = ['st_lakeview', 'st_naperville', 'st_evanston', 'st_oak_park'] as const;
export type StoreId = (typeof STORE_IDS)[number];

/** What callers say for each store. */
export const STORE_ALIASES: Readonly<Record<string, StoreId>> = {
  lakeview: 'st_lakeview',
  lake_view: 'st_lakeview',
  chicago: 'st_lakeview',
  naperville: 'st_naperville',
  naper: 'st_naperville',
  evanston: 'st_evanston',
  oak_park: 'st_oak_park',
  oakpark: 'st_oak_park',
};

export const TIERS = ['standard', 'circle', 'elite'] as const;
export type Tier = (typeof TIERS)[number];
export const TIER_NAMES: Readonly<Record<Tier, string>> = { standard: 'standard', circle: 'Kestrel Circle', elite: 'Circle Elite' };

/** Topics explain_policy knows; the last four are not Kestrel policies and answer NOT_ON_FILE. */
export const POLICY_TOPICS = [
  'returns',
  'restocking',
  'delivery_changes',
  'order_cancellation',
  'price_protection',
  'repairs_and_warranty',
  'kestrel_shield',
  'membership',
  'marketplace_items',
  'battery_safety',
  'scam_warning',
  'competitor_price_match',
  'trade_in',
  'layaway',
  'international_shipping',
] as const;
export type PolicyTopic = (typeof POLICY_TOPICS)[number];

export const POLICY_TOPIC_ALIASES: Readonly<Record<string, PolicyTopic>> = {
  return: 'returns',
  return_policy: 'returns',
  restocking_fee: 'restocking',
  delivery: 'delivery_changes',
  reschedule: 'delivery_changes',
  cancellation: 'order_cancellation',
  cancel: 'order_cancellation',
  price_drop: 'price_protection',
  price_adjustment: 'price_protection',
  warranty: 'repairs_and_warranty',
  repair: 'repairs_and_warranty',
  repairs: 'repairs_and_warranty',
  tech_bench: 'repairs_and_warranty',
  shield: 'kestrel_shield',
  protection_plan: 'kestrel_shield',
  circle: 'membership',
  kestrel_circle: 'membership',
  elite: 'membership',
  marketplace: 'marketplace_items',
  battery: 'battery_safety',
  scam: 'scam_warning',
  scams: 'scam_warning',
  price_match: 'competitor_price_match',
  trade_ins: 'trade_in',
};

export const CANCEL_REASONS = ['changed_mind', 'found_better_price', 'ordered_by_mistake', 'delivery_too_slow', 'other'] as const;
export const DELIVERY_SLOTS = ['morning', 'afternoon', 'evening'] as const;
export type DeliverySlot = (typeof DELIVERY_SLOTS)[number];
/** Each delivery slot's local start and end. */
export const SLOT_HOURS: Readonly<Record<DeliverySlot, readonly [string, string]>> = {
  morning: ['08:00', '12:00'],
  afternoon: ['12:00', '16:00'],
  evening: ['16:00', '20:00'],
};

export const ITEM_CONDITIONS = ['unopened', 'opened', 'defective'] as const;
export type ItemCondition = (typeof ITEM_CONDITIONS)[number];
export const RETURN_REASONS = ['changed_mind', 'defective', 'damaged_in_delivery', 'wrong_item', 'other'] as const;

/** Issues the service ladder understands; accidental ones need a plan level with accidental cover. */
export const ISSUES = ['wont_power_on', 'wont_charge', 'battery_swelling', 'cracked_screen', 'liquid_damage', 'drop_damage', 'overheating', 'no_sound', 'connectivity', 'other'] as const;
export type Issue = (typeof ISSUES)[number];
export const ACCIDENTAL_ISSUES: readonly Issue[] = ['cracked_screen', 'liquid_damage', 'drop_damage'];
export const ISSUE_ALIASES: Readonly<Record<string, Issue>> = {
  not_charging: 'wont_charge',
  will_not_charge: 'wont_charge',
  no_charge: 'wont_charge',
  dead: 'wont_power_on',
  no_power: 'wont_power_on',
  will_not_turn_on: 'wont_power_on',
  swollen_battery: 'battery_swelling',
  battery_swollen: 'battery_swelling',
  bulging_battery: 'battery_swelling',
  cracked: 'cracked_screen',
  broken_screen: 'cracked_screen',
  water_damage: 'liquid_damage',
  spill: 'liquid_damage',
  dropped: 'drop_damage',
  hot: 'overheating',
  no_audio: 'no_sound',
  wifi: 'connectivity',
  bluetooth: 'connectivity',
};

export const MEMBERSHIP_ACTIONS = ['upgrade', 'cancel'] as const;
export const MEMBERSHIP_DECISIONS = ['proceed', 'accept_save_offer'] as const;

export const SCAM_CHANNELS = ['phone_call', 'text_message', 'email', 'website'] as const;
export const CLAIMED_TO_BE = ['kestrel_support', 'kestrel_fraud_team', 'kestrel_delivery', 'kestrel_tech_bench', 'bank', 'other'] as const;
/** Reasons a contact claimed; Kestrel only ever calls about the first two. */
export const CONTACT_REASONS = [
  'delivery_scheduling',
  'repair_ready',
  'refund_or_overpayment',
  'account_locked',
  'suspicious_order',
  'gift_card_payment',
  'remote_access',
  'prize_or_survey',
  'other',
] as const;
export type ContactReason = (typeof CONTACT_REASONS)[number];
export const GENUINE_CONTACT_REASONS: readonly ContactReason[] = ['delivery_scheduling', 'repair_ready'];
