import { integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';

/**
 * The two unscored per-call tables every pack declares (packs.md §1.5): the call's session state
 * and its two-step tokens. Each pack's schema.ts re-exports them so its migrations create them.
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
