/**
 * Straus Dermatology's fixed clock, policy numbers and closed vocabularies. Every number a tool
 * reads lives here (packs.md §1.4); the README's policy block is generated from `policy`.
 */

/** Tuesday 2026-10-06 10:00 in New York; Columbus Day and the late-year holidays are closed. */
export const clock = {
  now: '2026-10-06T10:00',
  timezone: 'America/New_York',
  holidays: ['2026-10-12', '2026-11-26', '2026-12-25'],
} as const;

/** Every fee, window, threshold and price the tools apply. Boundaries are stated beside each. */
export const policy = {
  /** A change with fewer minutes of notice than this (strictly less) costs the late fee. */
  late_change_notice_hours: 24,
  late_change_fee_cents: 4000,
  fee_review_decision_business_days: 3,
  cosmetic_deposit_cents: 7500,
  /** A cosmetic consult cancelled with strictly less notice forfeits the deposit. */
  cosmetic_forfeit_notice_hours: 48,
  /** Wrinkle relaxer and filler consults need this age or older (inclusive). */
  cosmetic_injectable_min_age_years: 18,
  wrinkle_relaxer_low_cents: 35000,
  wrinkle_relaxer_high_cents: 65000,
  filler_low_cents: 70000,
  filler_high_cents: 130000,
  chemical_peel_low_cents: 17500,
  chemical_peel_high_cents: 37500,
  laser_hair_removal_low_cents: 25000,
  laser_hair_removal_high_cents: 50000,
  microneedling_low_cents: 30000,
  microneedling_high_cents: 60000,
  /** Payment plans from this balance, inclusive. */
  payment_plan_min_balance_cents: 30000,
  payment_plan_min_months: 3,
  payment_plan_max_months: 6,
  payment_plan_min_monthly_cents: 5000,
  /** Payment links from this amount, inclusive, up to the balance, inclusive. */
  payment_link_min_cents: 1000,
  payment_link_valid_hours: 24,
  office_open_hour: 8,
  office_close_hour: 17,
  urgent_reply_hours: 2,
  urgent_after_hours_reply_time: '10:00',
  routine_reply_business_days: 2,
  refill_decision_business_days: 2,
  /** A medication last reviewed more than this many months ago needs a visit (exactly 12 is fine). */
  medication_review_months: 12,
  callback_business_days: 1,
  result_turnaround_business_days: 7,
  result_review_business_days: 2,
  payment_plan_first_payment_days: 30,
  identity_lock_after_failures: 3,
  portal_invite_valid_days: 7,
  waitlist_max_offices: 3,
  /** Days from earliest to latest date, inclusive of the edge. */
  waitlist_max_span_days: 30,
  openings_per_search: 3,
  booking_horizon_days: 30,
} as const;

/** Offices by id. */
export const LOCATION_IDS = ['loc_park_ave', 'loc_cobble_hill', 'loc_white_plains', 'loc_stamford'] as const;
export type LocationId = (typeof LOCATION_IDS)[number];

/** What callers say for each office. */
export const LOCATION_ALIASES: Readonly<Record<string, LocationId>> = {
  park_ave: 'loc_park_ave',
  park_avenue: 'loc_park_ave',
  park: 'loc_park_ave',
  manhattan: 'loc_park_ave',
  cobble_hill: 'loc_cobble_hill',
  cobble: 'loc_cobble_hill',
  brooklyn: 'loc_cobble_hill',
  white_plains: 'loc_white_plains',
  westchester: 'loc_white_plains',
  stamford: 'loc_stamford',
  connecticut: 'loc_stamford',
};

/** Carriers a caller may name; anything else becomes `other`. */
export const CARRIERS = ['aetna', 'cigna', 'unitedhealthcare', 'medicare', 'empire_bcbs', 'connecticare', 'healthfirst', 'oscar', 'emblemhealth', 'other'] as const;
export type Carrier = (typeof CARRIERS)[number];

export const CARRIER_NAMES: Readonly<Record<Carrier, string>> = {
  aetna: 'Aetna',
  cigna: 'Cigna',
  unitedhealthcare: 'UnitedHealthcare',
  medicare: 'Medicare',
  empire_bcbs: 'Empire Blue Cross',
  connecticare: 'ConnectiCare',
  healthfirst: 'Healthfirst Medicaid',
  oscar: 'Oscar',
  emblemhealth: 'EmblemHealth',
  other: 'that plan',
};

export const CARRIER_ALIASES: Readonly<Record<string, Carrier>> = {
  aetna_ppo: 'aetna',
  aetna_hmo: 'aetna',
  cigna_ppo: 'cigna',
  united: 'unitedhealthcare',
  united_healthcare: 'unitedhealthcare',
  uhc: 'unitedhealthcare',
  medicare_part_b: 'medicare',
  blue_cross: 'empire_bcbs',
  blue_cross_blue_shield: 'empire_bcbs',
  bcbs: 'empire_bcbs',
  empire: 'empire_bcbs',
  empire_blue_cross: 'empire_bcbs',
  connecticare_choice: 'connecticare',
  connecti_care: 'connecticare',
  medicaid: 'healthfirst',
  healthfirst_medicaid: 'healthfirst',
  health_first: 'healthfirst',
  oscar_health: 'oscar',
  emblem: 'emblemhealth',
  emblem_health: 'emblemhealth',
};

/** Visit types by id. */
export const VISIT_TYPES = ['new_patient', 'follow_up', 'skin_exam', 'mohs_surgery', 'patch_test', 'pediatric_visit', 'cosmetic_consult'] as const;
export type VisitType = (typeof VISIT_TYPES)[number];

/** Reasons classify_visit understands. */
export const VISIT_REASONS = [
  'rash',
  'acne',
  'eczema',
  'psoriasis',
  'hair_loss',
  'wart',
  'new_or_changing_mole',
  'full_skin_check',
  'skin_cancer_surgery',
  'allergy_patch_test',
  'follow_up',
] as const;
export type VisitReason = (typeof VISIT_REASONS)[number];

export const VISIT_REASON_ALIASES: Readonly<Record<string, VisitReason>> = {
  skin_check: 'full_skin_check',
  full_body_skin_check: 'full_skin_check',
  full_body_exam: 'full_skin_check',
  mole_check: 'new_or_changing_mole',
  mole: 'new_or_changing_mole',
  mohs: 'skin_cancer_surgery',
  mohs_surgery: 'skin_cancer_surgery',
  patch_test: 'allergy_patch_test',
  patch_testing: 'allergy_patch_test',
  followup: 'follow_up',
};

/** Generic names of medications a refill may be asked for. */
export const MEDICATIONS = [
  'tretinoin',
  'clindamycin',
  'doxycycline',
  'isotretinoin',
  'spironolactone',
  'clobetasol',
  'triamcinolone',
  'tacrolimus',
  'minoxidil',
  'fluorouracil',
  'ketoconazole',
] as const;

export const MEDICATION_ALIASES: Readonly<Record<string, (typeof MEDICATIONS)[number]>> = {
  retin_a: 'tretinoin',
  retina: 'tretinoin',
  cleocin: 'clindamycin',
  accutane: 'isotretinoin',
  absorica: 'isotretinoin',
  claravis: 'isotretinoin',
  aldactone: 'spironolactone',
  temovate: 'clobetasol',
  kenalog: 'triamcinolone',
  protopic: 'tacrolimus',
  rogaine: 'minoxidil',
  efudex: 'fluorouracil',
  nizoral: 'ketoconazole',
};

/** Cosmetic services with a published price range. */
export const COSMETIC_SERVICES = ['wrinkle_relaxer', 'filler', 'chemical_peel', 'laser_hair_removal', 'microneedling'] as const;
export type CosmeticService = (typeof COSMETIC_SERVICES)[number];

export const COSMETIC_ALIASES: Readonly<Record<string, CosmeticService>> = {
  botox: 'wrinkle_relaxer',
  dysport: 'wrinkle_relaxer',
  xeomin: 'wrinkle_relaxer',
  neuromodulator: 'wrinkle_relaxer',
  wrinkle_relaxers: 'wrinkle_relaxer',
  fillers: 'filler',
  dermal_filler: 'filler',
  lip_filler: 'filler',
  juvederm: 'filler',
  restylane: 'filler',
  peel: 'chemical_peel',
  laser_hair: 'laser_hair_removal',
  hair_removal: 'laser_hair_removal',
  micro_needling: 'microneedling',
};

export const COSMETIC_NAMES: Readonly<Record<CosmeticService, string>> = {
  wrinkle_relaxer: 'wrinkle relaxer',
  filler: 'dermal filler',
  chemical_peel: 'chemical peel',
  laser_hair_removal: 'laser hair removal',
  microneedling: 'microneedling',
};

/** Services that need the injectable age limit. */
export const AGE_LIMITED_SERVICES: readonly CosmeticService[] = ['wrinkle_relaxer', 'filler'];

export const CARE_TOPICS = ['post_procedure', 'wound_concern', 'rash_or_reaction', 'medication_side_effect', 'new_or_changing_spot', 'other'] as const;

export const CALLBACK_TOPICS = ['statement_question', 'insurance_claim', 'payment_arrangement', 'procedure_prep', 'treatment_question', 'medication_question'] as const;
export type CallbackTopic = (typeof CALLBACK_TOPICS)[number];
export const CLINICAL_CALLBACK_TOPICS: readonly CallbackTopic[] = ['procedure_prep', 'treatment_question', 'medication_question'];

export const FEE_REVIEW_REASONS = ['medical_emergency', 'transportation', 'weather', 'scheduling_error', 'other'] as const;

export const RESULT_KINDS = ['biopsy', 'blood_work', 'culture', 'patch_test'] as const;
