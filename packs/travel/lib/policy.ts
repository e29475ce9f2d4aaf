/**
 * Bluestem Air's fixed clock, policy numbers and closed vocabularies. Every number a tool reads
 * lives here (packs.md §1.4); the README's policy block is generated from `policy`.
 */

/** Thursday 2026-10-08 09:00 in Kansas City, the hub. */
export const clock = {
  now: '2026-10-08T09:00',
  timezone: 'America/Chicago',
  holidays: [],
} as const;

/** Every fee, window, threshold and price the tools apply. Boundaries are stated beside each. */
export const policy = {
  /** A delay of this many minutes or more (inclusive) is a significant delay: refund or free rebooking. */
  significant_delay_minutes: 180,
  /** A delay of this many minutes or more (inclusive), caused by the airline, earns a meal voucher per passenger. */
  meal_voucher_delay_minutes: 120,
  meal_voucher_cents: 1500,
  /** Free rebooking after a disruption: same route, departing up to this many days after the original date (inclusive). */
  rebooking_window_days: 3,
  /** A refund taken as travel credit instead of money gets this bonus, in percent. */
  credit_bonus_percent: 10,
  travel_credit_valid_months: 12,
  /** Voluntary change fee on a main cabin fare; flex pays none; basic cannot change. */
  main_change_fee_cents: 7500,
  /** A move to another flight on the same departure date costs this flat fee on main (flex free), no fare difference. */
  same_day_change_fee_cents: 5000,
  /** Booked this many hours ago or less (inclusive) and departing far enough ahead: any change or cancellation is free. */
  free_cancel_booking_hours: 24,
  /** The free 24-hour rule needs departure this many days or more (inclusive) after the booking. */
  free_cancel_min_days_before_departure: 7,
  seat_extra_legroom_cents: 4500,
  seat_preferred_cents: 2000,
  /** Basic fares pay this for any standard seat; main and flex choose standard seats free. */
  seat_standard_basic_cents: 1200,
  first_bag_cents: 3500,
  second_bag_cents: 4500,
  /** Most checked bags a passenger may add by phone per flight (inclusive). */
  max_bags_per_passenger: 2,
  pet_in_cabin_cents: 9500,
  /** A child aged from this (inclusive) travels alone only with the unaccompanied minor service. */
  minor_service_min_age: 5,
  /** Up to this age (inclusive) the unaccompanied minor service is required. */
  minor_service_required_max_age: 14,
  booking_lookup_lock_after_failures: 3,
  refund_business_days: 7,
} as const;

export const AIRPORTS = ['MCI', 'DEN', 'ORD', 'DFW', 'MSP', 'BNA', 'PHX'] as const;
export type Airport = (typeof AIRPORTS)[number];

/** The airport a tool takes, by the city callers name; the stored code is the value. */
export const AIRPORT_KEYS = ['kansas_city', 'denver', 'chicago_ohare', 'dallas_fort_worth', 'minneapolis', 'nashville', 'phoenix'] as const;
export type AirportKey = (typeof AIRPORT_KEYS)[number];
export const AIRPORT_CODE: Readonly<Record<AirportKey, Airport>> = {
  kansas_city: 'MCI',
  denver: 'DEN',
  chicago_ohare: 'ORD',
  dallas_fort_worth: 'DFW',
  minneapolis: 'MSP',
  nashville: 'BNA',
  phoenix: 'PHX',
};

/** What callers and speech recognisers produce for each airport. */
export const AIRPORT_ALIASES: Readonly<Record<string, AirportKey>> = {
  mci: 'kansas_city',
  kc: 'kansas_city',
  den: 'denver',
  ord: 'chicago_ohare',
  chicago: 'chicago_ohare',
  o_hare: 'chicago_ohare',
  ohare: 'chicago_ohare',
  dfw: 'dallas_fort_worth',
  dallas: 'dallas_fort_worth',
  msp: 'minneapolis',
  twin_cities: 'minneapolis',
  minneapolis_saint_paul: 'minneapolis',
  bna: 'nashville',
  phx: 'phoenix',
};

export const AIRPORT_NAMES: Readonly<Record<Airport, string>> = {
  MCI: 'Kansas City',
  DEN: 'Denver',
  ORD: "Chicago O'Hare",
  DFW: 'Dallas Fort Worth',
  MSP: 'Minneapolis',
  BNA: 'Nashville',
  PHX: 'Phoenix',
};

export const FARE_FAMILIES = ['basic', 'main', 'flex'] as const;
export type FareFamily = (typeof FARE_FAMILIES)[number];

export const ASSISTANCE_KINDS = ['wheelchair_to_gate', 'wheelchair_to_seat', 'blind_or_low_vision', 'deaf_or_hard_of_hearing', 'extra_time_boarding'] as const;
export const PET_KINDS = ['dog', 'cat'] as const;
export const SEAT_KINDS = ['extra_legroom', 'preferred', 'standard'] as const;
export type SeatKind = (typeof SEAT_KINDS)[number];
