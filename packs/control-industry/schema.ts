import { sqliteTable, text } from 'drizzle-orm/sqlite-core';

export { callSession, escalations, holds } from '../../src/packs/session-tables.ts';

/** Repair visits booked during the call. */
export const appointments = sqliteTable('appointments', {
  id: text('id').primaryKey(),
  date: text('date').notNull().unique(),
  created_at: text('created_at').notNull(),
});
