import { integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';

/**
 * The runtime's per-call tables (packs.md §1.5), declared once here. Each pack's schema.ts
 * re-exports all three so its migrations create them:
 *
 *   export { callSession, escalations, holds } from '../../src/packs/session-tables.ts';
 *
 * `call_session` and `holds` are never scored. `escalations` is the record of the runtime's human
 * transfer (src/packs/human-transfer.ts); a pack whose agents opt into transfer_to_human scores it
 * in compare.json.
 */
export const callSession = sqliteTable('call_session', {
  id: integer('id').primaryKey(),
  subject_kind: text('subject_kind'),
  subject_id: text('subject_id'),
  verified_by: text('verified_by'),
  failures: integer('failures').notNull().default(0),
  locked: integer('locked').notNull().default(0),
  flags: text('flags').notNull().default('{}'),
});

/** Two-step tokens: a quote writes here; its confirm consumes it (packs.md §2.3). */
export const holds = sqliteTable('holds', {
  token: text('token').primaryKey(),
  kind: text('kind').notNull(),
  subject: text('subject'),
  target: text('target').notNull(),
  payload: text('payload').notNull(),
  payload_hash: text('payload_hash').notNull(),
  status: text('status').notNull(),
  created_at: text('created_at').notNull(),
});

/**
 * The human transfer's record: at most one row per call, id `esc_call` (the call ends when the
 * transfer fires, so a repeat writes nothing). The subject is whatever the call had pinned in
 * `call_session` (a patient, a client, a prospect, a customer), or null before identification.
 */
export const escalations = sqliteTable('escalations', {
  id: text('id').primaryKey(),
  reason: text('reason').notNull(),
  subject_kind: text('subject_kind'),
  subject_id: text('subject_id'),
  agent: text('agent').notNull(),
  summary: text('summary'),
  created_at: text('created_at').notNull(),
});
