import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';

export { callSession, escalations, holds } from '../../src/packs/session-tables.ts';

// Reference tables: seeded, never written by a tool (consult_openings excepted: booking consumes them).

/** The three offices, with the public facts reception may read out. */
export const offices = sqliteTable('offices', {
  id: text('id').primaryKey(),
  name: text('name').notNull(),
  state: text('state').notNull(),
  address: text('address').notNull(),
  suite: text('suite').notNull(),
  phone: text('phone').notNull(),
  weekday_hours: text('weekday_hours').notNull(),
  saturday_hours: text('saturday_hours'),
  parking: text('parking').notNull(),
  languages: text('languages').notNull(),
});

/** Attorneys: one office and one practice group each; each leads a team with a paralegal. */
export const attorneys = sqliteTable('attorneys', {
  id: text('id').primaryKey(),
  display_name: text('display_name').notNull(),
  office_id: text('office_id').notNull(),
  practice_group: text('practice_group').notNull(),
  paralegal_name: text('paralegal_name').notNull(),
  team_name: text('team_name').notNull(),
});

/** Whether the firm takes an area in a licensed state, and which fee plan applies; a missing row means not handled. */
export const practiceRules = sqliteTable('practice_rules', {
  id: text('id').primaryKey(),
  area: text('area').notNull(),
  state: text('state').notNull(),
  accepted: integer('accepted').notNull(),
  fee_plan: text('fee_plan').notNull(),
  practice_group: text('practice_group').notNull(),
});

/** Which screening window applies to an area and what starts its clock. */
export const filingRules = sqliteTable('filing_rules', {
  id: text('id').primaryKey(),
  area: text('area').notNull(),
  window_rule: text('window_rule').notNull(),
  starts_from: text('starts_from').notNull(),
});

/** Parties the firm cannot act against (current clients) or must review first (former clients); one row per name or alias. */
export const adverseParties = sqliteTable('adverse_parties', {
  id: text('id').primaryKey(),
  party_key: text('party_key').notNull(),
  name: text('name').notNull(),
  kind: text('kind').notNull(),
  status: text('status').notNull(),
});

/** The firm's matters for existing clients: stage, next step and team, never advice or value. */
export const matters = sqliteTable('matters', {
  id: text('id').primaryKey(),
  matter_number: text('matter_number').notNull(),
  client_id: text('client_id').notNull(),
  area: text('area').notNull(),
  state: text('state').notNull(),
  office_id: text('office_id').notNull(),
  lead_attorney_id: text('lead_attorney_id').notNull(),
  stage: text('stage').notNull(),
  next_step: text('next_step'),
  opened_on: text('opened_on').notNull(),
  last_update_on: text('last_update_on').notNull(),
  closed_on: text('closed_on'),
});

/** The consultation grid: one row per free block; booking marks it booked, cancelling reopens it. */
export const consultOpenings = sqliteTable(
  'consult_openings',
  {
    id: text('id').primaryKey(),
    attorney_id: text('attorney_id').notNull(),
    location: text('location').notNull(),
    starts_at: text('starts_at').notNull(),
    duration_min: integer('duration_min').notNull(),
    status: text('status').notNull(),
  },
  // find_consult_times walks one location's blocks in time order and stops at the first few that fit.
  (t) => [index('consult_openings_by_location_time').on(t.location, t.starts_at, t.id)],
);

// Business table: scored.

/** Existing clients; update_contact_details changes their contact columns. */
export const clients = sqliteTable('clients', {
  id: text('id').primaryKey(),
  full_name: text('full_name').notNull(),
  date_of_birth: text('date_of_birth').notNull(),
  phone: text('phone').notNull(),
  email: text('email'),
  street: text('street').notNull(),
  city: text('city').notNull(),
  state: text('state').notNull(),
  zip: text('zip').notNull(),
  created_at: text('created_at').notNull(),
});

// Artifact tables: start empty, scored.

/** A prospective client's intake, written only after a clear conflict check and an accepted case fit. */
export const intakes = sqliteTable('intakes', {
  id: text('id').primaryKey(),
  caller_name: text('caller_name').notNull(),
  phone: text('phone').notNull(),
  email: text('email'),
  area: text('area').notNull(),
  state: text('state').notNull(),
  incident_date: text('incident_date').notNull(),
  opposing_party: text('opposing_party').notNull(),
  deadline: text('deadline').notNull(),
  window_status: text('window_status').notNull(),
  priority: text('priority').notNull(),
  fee_plan: text('fee_plan').notNull(),
  summary: text('summary').notNull(),
  status: text('status').notNull(),
  created_at: text('created_at').notNull(),
});

export const caseNotes = sqliteTable('case_notes', {
  id: text('id').primaryKey(),
  intake_id: text('intake_id').notNull(),
  topic: text('topic').notNull(),
  note: text('note').notNull(),
  created_at: text('created_at').notNull(),
});

export const formSends = sqliteTable('form_sends', {
  id: text('id').primaryKey(),
  intake_id: text('intake_id').notNull(),
  channel: text('channel').notNull(),
  sent_to: text('sent_to').notNull(),
  form_set: text('form_set').notNull(),
  created_at: text('created_at').notNull(),
});

export const recordsRequests = sqliteTable('records_requests', {
  id: text('id').primaryKey(),
  intake_id: text('intake_id').notNull(),
  record_type: text('record_type').notNull(),
  provider: text('provider').notNull(),
  authorization_sent_to: text('authorization_sent_to').notNull(),
  status: text('status').notNull(),
  created_at: text('created_at').notNull(),
});

/** Booked consultations: a prospect's (intake_id) or a verified client's meeting (client_id). */
export const consults = sqliteTable('consults', {
  id: text('id').primaryKey(),
  opening_id: text('opening_id').notNull(),
  intake_id: text('intake_id'),
  client_id: text('client_id'),
  attorney_id: text('attorney_id').notNull(),
  location: text('location').notNull(),
  starts_at: text('starts_at').notNull(),
  area: text('area').notNull(),
  fee_cents: integer('fee_cents').notNull(),
  fee_status: text('fee_status').notNull(),
  status: text('status').notNull(),
  created_at: text('created_at').notNull(),
});

export const messages = sqliteTable('messages', {
  id: text('id').primaryKey(),
  recipient: text('recipient').notNull(),
  client_id: text('client_id'),
  caller_name: text('caller_name').notNull(),
  callback_phone: text('callback_phone').notNull(),
  message: text('message').notNull(),
  reply_by: text('reply_by').notNull(),
  created_at: text('created_at').notNull(),
});

/** One row per contact field a verified client changed on the call. */
export const contactUpdates = sqliteTable('contact_updates', {
  id: text('id').primaryKey(),
  client_id: text('client_id').notNull(),
  field: text('field').notNull(),
  old_value: text('old_value'),
  new_value: text('new_value').notNull(),
  created_at: text('created_at').notNull(),
});

