import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';

export { callSession, escalations, holds } from '../../src/packs/session-tables.ts';

// Reference tables: seeded, never written by a tool (bench_slots excepted: booking consumes them).

/** Stores, with the public facts reception may read out and whether the store has a Tech Bench. */
export const stores = sqliteTable('stores', {
  id: text('id').primaryKey(),
  name: text('name').notNull(),
  address: text('address').notNull(),
  store_phone: text('store_phone').notNull(),
  weekday_hours: text('weekday_hours').notNull(),
  weekend_hours: text('weekend_hours').notNull(),
  has_bench: integer('has_bench').notNull(),
});

/** The catalogue: current price and the flags the return, price and service rules read. */
export const products = sqliteTable('products', {
  sku: text('sku').primaryKey(),
  name: text('name').notNull(),
  category: text('category').notNull(),
  activatable: integer('activatable').notNull(),
  hazardous: integer('hazardous').notNull(),
  recalled: integer('recalled').notNull(),
  restock_class: text('restock_class').notNull(),
  price_cents: integer('price_cents').notNull(),
  open_box: integer('open_box').notNull(),
  clearance: integer('clearance').notNull(),
  marketplace_seller: text('marketplace_seller'),
});

/** Which policy topics are on file; explain_policy renders the words from the policy numbers. */
export const policies = sqliteTable('policies', {
  topic: text('topic').primaryKey(),
  status: text('status').notNull(),
  desk: text('desk'),
});

/** The Tech Bench appointment grid: one row per slot; booking marks it booked, cancelling reopens it. */
export const benchSlots = sqliteTable(
  'bench_slots',
  {
    id: text('id').primaryKey(),
    store_id: text('store_id').notNull(),
    starts_at: text('starts_at').notNull(),
    status: text('status').notNull(),
  },
  // find_bench_slots walks one store's slots in time order and stops at the first few open ones.
  (t) => [index('bench_slots_by_store_time').on(t.store_id, t.starts_at, t.id)],
);

/** Kestrel's own outbound calls and texts: the only reasons it ever contacts a customer. */
export const outboundContacts = sqliteTable('outbound_contacts', {
  id: text('id').primaryKey(),
  from_number: text('from_number').notNull(),
  purpose: text('purpose').notNull(),
  contacted_on: text('contacted_on').notNull(),
});

/** Card charges Kestrel actually made, as a statement shows them. */
export const charges = sqliteTable('charges', {
  id: text('id').primaryKey(),
  descriptor: text('descriptor').notNull(),
  amount_cents: integer('amount_cents').notNull(),
  posted_on: text('posted_on').notNull(),
  card_ending: text('card_ending').notNull(),
  order_id: text('order_id'),
});

// Business tables.

/** Customers: verified by the ZIP and the last four digits of the card on file. */
export const customers = sqliteTable('customers', {
  id: text('id').primaryKey(),
  full_name: text('full_name').notNull(),
  phone: text('phone').notNull(),
  email: text('email'),
  zip_code: text('zip_code').notNull(),
  card_last4: text('card_last4').notNull(),
  home_store_id: text('home_store_id').notNull(),
  created_at: text('created_at').notNull(),
});

/** Orders: status, fulfilment and, for home delivery, the delivery window. */
export const orders = sqliteTable('orders', {
  id: text('id').primaryKey(),
  order_number: text('order_number').notNull().unique(),
  customer_id: text('customer_id').notNull(),
  placed_on: text('placed_on').notNull(),
  status: text('status').notNull(),
  fulfilment: text('fulfilment').notNull(),
  shipped_on: text('shipped_on'),
  delivered_on: text('delivered_on'),
  delivery_window_start: text('delivery_window_start'),
  delivery_window_end: text('delivery_window_end'),
  total_cents: integer('total_cents').notNull(),
});

/** One row per item bought: the price paid, whether it was opened, and its return history. */
export const orderItems = sqliteTable('order_items', {
  id: text('id').primaryKey(),
  order_id: text('order_id').notNull(),
  sku: text('sku').notNull(),
  unit_price_cents: integer('unit_price_cents').notNull(),
  opened: integer('opened').notNull(),
  status: text('status').notNull(),
  price_adjusted: integer('price_adjusted').notNull(),
  returned_on: text('returned_on'),
  refund_cents: integer('refund_cents'),
  refund_issued_on: text('refund_issued_on'),
});

/** Kestrel Circle and Circle Elite memberships. */
export const memberships = sqliteTable('memberships', {
  id: text('id').primaryKey(),
  customer_id: text('customer_id').notNull(),
  tier: text('tier').notNull(),
  joined_on: text('joined_on').notNull(),
  paid_cents: integer('paid_cents').notNull(),
  renews_on: text('renews_on').notNull(),
  status: text('status').notNull(),
});

/** Kestrel Shield protection plans on single items. */
export const protectionPlans = sqliteTable('protection_plans', {
  id: text('id').primaryKey(),
  customer_id: text('customer_id').notNull(),
  order_item_id: text('order_item_id').notNull(),
  level: text('level').notNull(),
  years: integer('years').notNull(),
  accidental: integer('accidental').notNull(),
  starts_on: text('starts_on').notNull(),
  ends_on: text('ends_on').notNull(),
});

// Artifact tables: empty in the seed, written by the tools.

export const orderCancellations = sqliteTable('order_cancellations', {
  id: text('id').primaryKey(),
  order_id: text('order_id').notNull(),
  customer_id: text('customer_id').notNull(),
  reason: text('reason').notNull(),
  released_cents: integer('released_cents').notNull(),
  created_at: text('created_at').notNull(),
});

export const refunds = sqliteTable('refunds', {
  id: text('id').primaryKey(),
  customer_id: text('customer_id').notNull(),
  source: text('source').notNull(),
  source_id: text('source_id').notNull(),
  amount_cents: integer('amount_cents').notNull(),
  status: text('status').notNull(),
  expected_by: text('expected_by'),
  created_at: text('created_at').notNull(),
});

export const deliveryChanges = sqliteTable('delivery_changes', {
  id: text('id').primaryKey(),
  order_id: text('order_id').notNull(),
  customer_id: text('customer_id').notNull(),
  old_window_start: text('old_window_start').notNull(),
  new_window_start: text('new_window_start').notNull(),
  new_window_end: text('new_window_end').notNull(),
  fee_cents: integer('fee_cents').notNull(),
  created_at: text('created_at').notNull(),
});

export const priceAdjustments = sqliteTable('price_adjustments', {
  id: text('id').primaryKey(),
  order_item_id: text('order_item_id').notNull(),
  customer_id: text('customer_id').notNull(),
  amount_cents: integer('amount_cents').notNull(),
  created_at: text('created_at').notNull(),
});

export const rmas = sqliteTable('rmas', {
  id: text('id').primaryKey(),
  order_item_id: text('order_item_id').notNull(),
  customer_id: text('customer_id').notNull(),
  reason: text('reason').notNull(),
  item_condition: text('item_condition').notNull(),
  fee_cents: integer('fee_cents').notNull(),
  refund_cents: integer('refund_cents').notNull(),
  status: text('status').notNull(),
  created_at: text('created_at').notNull(),
});

export const returnLabels = sqliteTable('return_labels', {
  id: text('id').primaryKey(),
  rma_id: text('rma_id').notNull(),
  sent_to: text('sent_to').notNull(),
  expires_on: text('expires_on').notNull(),
  created_at: text('created_at').notNull(),
});

export const serviceAppointments = sqliteTable('service_appointments', {
  id: text('id').primaryKey(),
  customer_id: text('customer_id').notNull(),
  order_item_id: text('order_item_id').notNull(),
  store_id: text('store_id').notNull(),
  slot_id: text('slot_id').notNull(),
  starts_at: text('starts_at').notNull(),
  issue: text('issue').notNull(),
  coverage: text('coverage').notNull(),
  diagnostic_fee_cents: integer('diagnostic_fee_cents').notNull(),
  status: text('status').notNull(),
  created_at: text('created_at').notNull(),
});

export const membershipChanges = sqliteTable('membership_changes', {
  id: text('id').primaryKey(),
  membership_id: text('membership_id').notNull(),
  customer_id: text('customer_id').notNull(),
  action: text('action').notNull(),
  amount_cents: integer('amount_cents').notNull(),
  new_tier: text('new_tier'),
  created_at: text('created_at').notNull(),
});

/** Scam reports: how the caller was contacted and what was lost; never card or bank details. */
export const scamReports = sqliteTable('scam_reports', {
  id: text('id').primaryKey(),
  channel: text('channel').notNull(),
  calling_number: text('calling_number'),
  claimed_to_be: text('claimed_to_be').notNull(),
  money_lost_cents: integer('money_lost_cents').notNull(),
  summary: text('summary').notNull(),
  created_at: text('created_at').notNull(),
});

