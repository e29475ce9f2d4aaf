import { index, integer, primaryKey, sqliteTable, text } from 'drizzle-orm/sqlite-core';

export { callSession, escalations, holds } from '../../src/packs/session-tables.ts';

// Reference tables: seeded, never written by a tool (openings excepted: booking consumes them).

/** The four offices, with the public facts reception may read out. */
export const locations = sqliteTable('locations', {
  id: text('id').primaryKey(),
  name: text('name').notNull(),
  state: text('state').notNull(),
  address: text('address').notNull(),
  floor: text('floor').notNull(),
  phone: text('phone').notNull(),
  weekday_hours: text('weekday_hours').notNull(),
  saturday_hours: text('saturday_hours'),
  parking: text('parking').notNull(),
  transit: text('transit').notNull(),
});

/** Clinicians: one home office each, with the credentials that decide which visits they take. */
export const providers = sqliteTable('providers', {
  id: text('id').primaryKey(),
  display_name: text('display_name').notNull(),
  title: text('title').notNull(),
  location_id: text('location_id').notNull(),
  does_mohs: integer('does_mohs').notNull(),
  does_pediatric: integer('does_pediatric').notNull(),
  does_patch_testing: integer('does_patch_testing').notNull(),
  does_cosmetic: integer('does_cosmetic').notNull(),
});

/** Visit types with their length and the credential they need. */
export const visitTypes = sqliteTable('visit_types', {
  id: text('id').primaryKey(),
  display_name: text('display_name').notNull(),
  duration_min: integer('duration_min').notNull(),
  requires: text('requires').notNull(),
  requires_md: integer('requires_md').notNull(),
  min_age_years: integer('min_age_years'),
  max_age_years: integer('max_age_years'),
});

/** The bookable grid: one row per free block; booking marks it booked, cancelling reopens it. */
export const openings = sqliteTable(
  'openings',
  {
    id: text('id').primaryKey(),
    provider_id: text('provider_id').notNull(),
    location_id: text('location_id').notNull(),
    starts_at: text('starts_at').notNull(),
    duration_min: integer('duration_min').notNull(),
    status: text('status').notNull(),
  },
  // find_openings walks one office's blocks in time order and stops at the first few that fit.
  (t) => [index('openings_by_location_time').on(t.location_id, t.starts_at, t.id)],
);

/** Which carriers each office takes; a missing row means not accepted there. */
export const planContracts = sqliteTable(
  'plan_contracts',
  {
    carrier: text('carrier').notNull(),
    location_id: text('location_id').notNull(),
    status: text('status').notNull(),
  },
  (t) => [primaryKey({ columns: [t.carrier, t.location_id] })],
);

/** Copays per carrier and visit type. */
export const planBenefits = sqliteTable(
  'plan_benefits',
  {
    carrier: text('carrier').notNull(),
    visit_type: text('visit_type').notNull(),
    covered: integer('covered').notNull(),
    copay_cents: integer('copay_cents').notNull(),
  },
  (t) => [primaryKey({ columns: [t.carrier, t.visit_type] })],
);

/** Adults allowed to act for a patient; registering a minor adds one. */
export const guardians = sqliteTable('guardians', {
  id: text('id').primaryKey(),
  patient_id: text('patient_id').notNull(),
  guardian_name: text('guardian_name').notNull(),
  relationship: text('relationship').notNull(),
});

/** Each patient's medication list. */
export const medications = sqliteTable('medications', {
  id: text('id').primaryKey(),
  patient_id: text('patient_id').notNull(),
  generic: text('generic').notNull(),
  display_name: text('display_name').notNull(),
  prescriber_id: text('prescriber_id').notNull(),
  active: integer('active').notNull(),
  last_reviewed_on: text('last_reviewed_on').notNull(),
});

/** Lab and pathology results: status only is ever spoken. */
export const results = sqliteTable('results', {
  id: text('id').primaryKey(),
  patient_id: text('patient_id').notNull(),
  kind: text('kind').notNull(),
  collected_on: text('collected_on').notNull(),
  status: text('status').notNull(),
  resulted_on: text('resulted_on'),
  provider_id: text('provider_id').notNull(),
});

// Business tables.

/** Patients: seeded, created by registration, insurance changed by update_insurance. */
export const patients = sqliteTable('patients', {
  id: text('id').primaryKey(),
  full_name: text('full_name').notNull(),
  date_of_birth: text('date_of_birth').notNull(),
  zip_code: text('zip_code'),
  mobile_phone: text('mobile_phone'),
  email: text('email'),
  home_location_id: text('home_location_id'),
  carrier: text('carrier'),
  member_id: text('member_id'),
  portal_status: text('portal_status').notNull(),
  created_at: text('created_at').notNull(),
});

/** Visits: ids derive from the opening (apt_<opening>). */
export const appointments = sqliteTable('appointments', {
  id: text('id').primaryKey(),
  patient_id: text('patient_id').notNull(),
  opening_id: text('opening_id').notNull(),
  location_id: text('location_id').notNull(),
  provider_id: text('provider_id').notNull(),
  visit_type: text('visit_type').notNull(),
  starts_at: text('starts_at').notNull(),
  duration_min: integer('duration_min').notNull(),
  status: text('status').notNull(),
  created_at: text('created_at').notNull(),
});

/** Money owed or paid, in cents. */
export const charges = sqliteTable('charges', {
  id: text('id').primaryKey(),
  patient_id: text('patient_id').notNull(),
  kind: text('kind').notNull(),
  service_date: text('service_date').notNull(),
  posted_on: text('posted_on').notNull(),
  amount_cents: integer('amount_cents').notNull(),
  status: text('status').notNull(),
  appointment_id: text('appointment_id'),
  review_state: text('review_state').notNull(),
  created_at: text('created_at').notNull(),
});

// Artifact tables: empty in the seed, one per kind of write.

export const waitlistEntries = sqliteTable('waitlist_entries', {
  id: text('id').primaryKey(),
  patient_id: text('patient_id').notNull(),
  visit_type: text('visit_type').notNull(),
  earliest_date: text('earliest_date').notNull(),
  latest_date: text('latest_date').notNull(),
  status: text('status').notNull(),
  created_at: text('created_at').notNull(),
});

/** The offices of a waitlist entry, one row each. */
export const waitlistOffices = sqliteTable(
  'waitlist_offices',
  {
    entry_id: text('entry_id').notNull(),
    location_id: text('location_id').notNull(),
  },
  (t) => [primaryKey({ columns: [t.entry_id, t.location_id] })],
);

export const paymentLinks = sqliteTable('payment_links', {
  id: text('id').primaryKey(),
  patient_id: text('patient_id').notNull(),
  purpose: text('purpose').notNull(),
  amount_cents: integer('amount_cents').notNull(),
  sent_to: text('sent_to').notNull(),
  expires_at: text('expires_at').notNull(),
  created_at: text('created_at').notNull(),
});

export const paymentPlans = sqliteTable('payment_plans', {
  id: text('id').primaryKey(),
  patient_id: text('patient_id').notNull(),
  balance_cents: integer('balance_cents').notNull(),
  months: integer('months').notNull(),
  monthly_cents: integer('monthly_cents').notNull(),
  first_payment_on: text('first_payment_on').notNull(),
  status: text('status').notNull(),
  created_at: text('created_at').notNull(),
});

export const feeReviews = sqliteTable('fee_reviews', {
  id: text('id').primaryKey(),
  patient_id: text('patient_id').notNull(),
  charge_id: text('charge_id').notNull(),
  reason: text('reason').notNull(),
  status: text('status').notNull(),
  decide_by: text('decide_by').notNull(),
  created_at: text('created_at').notNull(),
});

export const refillRequests = sqliteTable('refill_requests', {
  id: text('id').primaryKey(),
  patient_id: text('patient_id').notNull(),
  medication_id: text('medication_id').notNull(),
  prescriber_id: text('prescriber_id').notNull(),
  status: text('status').notNull(),
  decide_by: text('decide_by').notNull(),
  created_at: text('created_at').notNull(),
});

export const careMessages = sqliteTable('care_messages', {
  id: text('id').primaryKey(),
  patient_id: text('patient_id').notNull(),
  priority: text('priority').notNull(),
  topic: text('topic').notNull(),
  message: text('message').notNull(),
  respond_by: text('respond_by').notNull(),
  created_at: text('created_at').notNull(),
});

export const portalInvites = sqliteTable('portal_invites', {
  id: text('id').primaryKey(),
  patient_id: text('patient_id').notNull(),
  email: text('email').notNull(),
  expires_on: text('expires_on').notNull(),
  created_at: text('created_at').notNull(),
});

export const texts = sqliteTable('texts', {
  id: text('id').primaryKey(),
  patient_id: text('patient_id').notNull(),
  appointment_id: text('appointment_id').notNull(),
  to_phone: text('to_phone').notNull(),
  kind: text('kind').notNull(),
  created_at: text('created_at').notNull(),
});

export const callbacks = sqliteTable('callbacks', {
  id: text('id').primaryKey(),
  patient_id: text('patient_id').notNull(),
  team: text('team').notNull(),
  topic: text('topic').notNull(),
  best_time: text('best_time').notNull(),
  phone: text('phone').notNull(),
  due_by: text('due_by').notNull(),
  created_at: text('created_at').notNull(),
});

