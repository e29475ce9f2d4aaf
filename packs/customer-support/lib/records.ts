import { and, eq } from 'drizzle-orm';
import { gatedSubject, param, preparedQuery, readCallSession, rowById, type PackDb, type ToolContext } from '../../../src/packs/index.ts';
import { customers, memberships, orderItems, orders, products, protectionPlans, stores } from '../schema.ts';
import type { Tier } from './policy.ts';

/** Row shapes and record lookups shared by the Kestrel tools. */

export type CustomerRow = typeof customers.$inferSelect;
export type OrderRow = typeof orders.$inferSelect;
export type ItemRow = typeof orderItems.$inferSelect;
export type ProductRow = typeof products.$inferSelect;
export type MembershipRow = typeof memberships.$inferSelect;
export type PlanRow = typeof protectionPlans.$inferSelect;

const customerById = rowById(customers);
const orderByNumber = preparedQuery((db) => db.select().from(orders).where(eq(orders.order_number, param('number'))).prepare());
const orderById = rowById(orders);
const ordersOf = preparedQuery((db) => db.select().from(orders).where(eq(orders.customer_id, param('customer'))).orderBy(orders.placed_on, orders.id).prepare());
const itemById = rowById(orderItems);
const itemsOfOrder = preparedQuery((db) => db.select().from(orderItems).where(eq(orderItems.order_id, param('order'))).orderBy(orderItems.id).prepare());
const productBySku = preparedQuery((db) => db.select().from(products).where(eq(products.sku, param('sku'))).prepare());
const activeMembershipOf = preparedQuery((db) =>
  db.select().from(memberships).where(and(eq(memberships.customer_id, param('customer')), eq(memberships.status, 'active'))).prepare(),
);
const planOfItem = preparedQuery((db) => db.select().from(protectionPlans).where(eq(protectionPlans.order_item_id, param('item'))).prepare());
const storeName = preparedQuery((db) => db.select({ name: stores.name }).from(stores).where(eq(stores.id, param('id'))).prepare());

/** The customer a tool behind the `verified` gate runs for: opening the gate pins one. */
export function verifiedCustomer(ctx: ToolContext): CustomerRow {
  return gatedSubject(pinnedCustomer(ctx), 'verified');
}

/** The customer pinned on this call by verify_customer, if any. */
export function pinnedCustomer(ctx: ToolContext): CustomerRow | undefined {
  const session = readCallSession(ctx.db);
  if (session.subjectKind !== 'customer' || !session.subjectId) return undefined;
  return customerById(ctx.db).get({ id: session.subjectId });
}

/** A customer by id. */
export function customer(db: PackDb, id: string): CustomerRow | undefined {
  return customerById(db).get({ id });
}

/** An order by its spoken number. */
export function orderNumbered(db: PackDb, orderNumber: string): OrderRow | undefined {
  return orderByNumber(db).get({ number: orderNumber });
}

/** The pinned customer's own order by number; another customer's order is "not found". */
export function ownOrder(db: PackDb, customerId: string, orderNumber: string): OrderRow | undefined {
  const order = orderByNumber(db).get({ number: orderNumber });
  return order?.customer_id === customerId ? order : undefined;
}

/** The pinned customer's own order by id. */
export function ownOrderById(db: PackDb, customerId: string, orderId: string): OrderRow | undefined {
  const order = orderById(db).get({ id: orderId });
  return order?.customer_id === customerId ? order : undefined;
}

/** A customer's orders, oldest first. */
export function ordersOfCustomer(db: PackDb, customerId: string): OrderRow[] {
  return ordersOf(db).all({ customer: customerId });
}

/** Items of an order in id order. */
export function itemsOf(db: PackDb, orderId: string): ItemRow[] {
  return itemsOfOrder(db).all({ order: orderId });
}

/** The pinned customer's own item by id, with its order and product. */
export function ownItem(db: PackDb, customerId: string, itemId: string): { item: ItemRow; order: OrderRow; product: ProductRow } | undefined {
  const item = itemById(db).get({ id: itemId });
  const order = item ? orderById(db).get({ id: item.order_id }) : undefined;
  const product = item ? productBySku(db).get({ sku: item.sku }) : undefined;
  return item && order && product && order.customer_id === customerId ? { item, order, product } : undefined;
}

/** A product by sku. */
export function product(db: PackDb, sku: string): ProductRow | undefined {
  return productBySku(db).get({ sku });
}

/** The customer's active membership, if any. */
export function activeMembership(db: PackDb, customerId: string): MembershipRow | undefined {
  return activeMembershipOf(db).get({ customer: customerId });
}

/** The customer's tier: their active membership's tier, else standard. */
export function tierOf(db: PackDb, customerId: string): Tier {
  const tier = activeMembership(db, customerId)?.tier;
  return tier === 'circle' || tier === 'elite' ? tier : 'standard';
}

/** The protection plan on an item, if any. */
export function planOf(db: PackDb, itemId: string): PlanRow | undefined {
  return planOfItem(db).get({ item: itemId });
}

/** Display name of a store. */
export function storeNamed(db: PackDb, id: string): string {
  return storeName(db).get({ id })?.name ?? 'the store';
}

/** The customer's first name for speaking. */
export function firstName(c: CustomerRow): string {
  return c.full_name.split(' ')[0] ?? c.full_name;
}

/** Masks a phone number to its last four digits for speaking. */
export function maskPhone(phone: string | null): string | null {
  return phone ? `ending in ${phone.slice(-4)}` : null;
}

/** Masks an email address to its first letter and domain. */
export function maskEmail(email: string): string {
  const [user = '', domain = ''] = email.split('@');
  return `${user.slice(0, 1)}***@${domain}`;
}

/** The part of an id after its prefix: "ord_480112" → "480112", "itm_480112_1" → "480112_1". */
export function idDigits(id: string): string {
  return id.replace(/^[a-z]+_/, '');
}

/** True when a returned refusal-like value is a refusal. */
export function isRefusal(v: unknown): v is { ok: false; error_code: string } {
  return typeof v === 'object' && v !== null && 'ok' in v && (v as { ok: unknown }).ok === false;
}
