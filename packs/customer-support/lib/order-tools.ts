import { eq } from 'drizzle-orm';
import { z } from 'zod';
import { checkHold, dateInWords, defineTool, markHoldUsed, moneyInWords, normalizeFields, numberInWords, ok, openHold, param, preparedQuery, refuse, rowById, rowInsert, timeInWords, type ToolContext } from '../../../src/packs/index.ts';
import { deliveryChanges, orderCancellations, orderItems, orders, priceAdjustments, refunds } from '../schema.ts';
import { dateField, itemIdField, moneyDisplay, orderNumberField, readBool, readCode, readDate, readOrderNumber, tokenField } from './fields.ts';
import { CANCEL_REASONS, DELIVERY_SLOTS, policy, SLOT_HOURS, type DeliverySlot } from './policy.ts';
import { idDigits, isRefusal, itemsOf, ownItem, ownOrder, ownOrderById, tierOf, verifiedCustomer, type OrderRow } from './records.ts';
import { daysBetween, deliveryChange, priceProtection } from './rules.ts';

/** The orders desk: order status, cancelling, delivery windows and price protection. */

const setOrderStatus = preparedQuery((db) => db.update(orders).set({ status: param('status') }).where(eq(orders.id, param('id'))).prepare());
const setItemsStatus = preparedQuery((db) => db.update(orderItems).set({ status: param('status') }).where(eq(orderItems.order_id, param('order'))).prepare());
const setWindow = preparedQuery((db) => db.update(orders).set({ delivery_window_start: param('start'), delivery_window_end: param('end') }).where(eq(orders.id, param('id'))).prepare());
const setAdjusted = preparedQuery((db) => db.update(orderItems).set({ price_adjusted: 1 }).where(eq(orderItems.id, param('id'))).prepare());
const cancellationById = rowById(orderCancellations);
const insertCancellation = rowInsert(orderCancellations);
const deliveryChangeById = rowById(deliveryChanges);
const insertDeliveryChange = rowInsert(deliveryChanges);
const adjustmentById = rowById(priceAdjustments);
const insertAdjustment = rowInsert(priceAdjustments);
const insertRefund = rowInsert(refunds);

/** Orders that have not left the warehouse yet. */
const UNSHIPPED = new Set(['processing', 'scheduled']);

/** A delivery window with its spoken form: "Saturday, October 10 at 10 a.m. to 2 p.m.". */
function windowOf(ctx: ToolContext, start: string, end: string) {
  return { starts_at: start, ends_at: end, spoken: `${ctx.clock.spokenDateTime(start)} to ${ctx.clock.spokenDateTime(end).split(' at ')[1] ?? ''}` };
}

function windowOut(ctx: ToolContext, order: OrderRow) {
  if (!order.delivery_window_start || !order.delivery_window_end) return null;
  return windowOf(ctx, order.delivery_window_start, order.delivery_window_end);
}

const windowSchema = z.object({ starts_at: z.string(), ends_at: z.string(), spoken: z.string() });

export const getOrder = defineTool({
  name: 'get_order',
  description:
    'Use when: a verified caller asks about one order: status, items, shipping or the home delivery window. Returns: the status, dates, the delivery window with hours until it starts, and each item with its id, price paid and whether it was opened. Do not use for: return or price decisions. Errors: NOT_VERIFIED, ORDER_NOT_FOUND.',
  input: z.object({ order_number: orderNumberField }),
  output: z.object({
    order_number: z.string(),
    status: z.string(),
    fulfilment: z.string(),
    placed_on: z.string(),
    placed_spoken: z.string(),
    shipped_on: z.string().nullable(),
    shipped_spoken: z.string().nullable(),
    delivered_on: z.string().nullable(),
    delivered_spoken: z.string().nullable(),
    delivery_window: windowSchema.nullable(),
    hours_until_window: z.number().nullable(),
    total_cents: z.number().int(),
    total_display: z.string(),
    items: z.array(z.object({ item_id: z.string(), name: z.string(), price_paid_cents: z.number().int(), price_paid_display: z.string(), opened: z.boolean(), status: z.string() })),
  }),
  effect: 'read',
  writes: ['call_session'],
  gate: 'verified',
  normalize: (raw) => normalizeFields(raw, { order_number: readOrderNumber }),
  run(args, ctx) {
    const c = verifiedCustomer(ctx);
    const order = ownOrder(ctx.db, c.id, args.order_number);
    if (!order) return refuse('ORDER_NOT_FOUND', { recoverable: true });
    const window = windowOut(ctx, order);
    return ok({
      order_number: order.order_number,
      status: order.status,
      fulfilment: order.fulfilment,
      placed_on: order.placed_on,
      placed_spoken: ctx.clock.spokenDate(order.placed_on),
      shipped_on: order.shipped_on,
      shipped_spoken: order.shipped_on ? ctx.clock.spokenDate(order.shipped_on) : null,
      delivered_on: order.delivered_on,
      delivered_spoken: order.delivered_on ? ctx.clock.spokenDate(order.delivered_on) : null,
      delivery_window: window,
      hours_until_window: window && order.status !== 'delivered' ? ctx.clock.minutesUntil(window.starts_at) / 60 : null,
      total_cents: order.total_cents,
      total_display: moneyDisplay(order.total_cents),
      items: itemsOf(ctx.db, order.id).map((i) => {
        const owned = ownItem(ctx.db, c.id, i.id);
        return { item_id: i.id, name: owned?.product.name ?? i.sku, price_paid_cents: i.unit_price_cents, price_paid_display: moneyDisplay(i.unit_price_cents), opened: i.opened === 1, status: i.status };
      }),
    });
  },
});

export const cancelOrder = defineTool({
  name: 'cancel_order',
  description:
    'Use when: a verified caller wants to cancel an order that has not shipped; one step and free. Returns: the cancelled order and the card hold released; idempotent on repeats. Do not use for: shipped or delivered orders, which are returned after they arrive. Errors: NOT_VERIFIED, ORDER_NOT_FOUND, ORDER_ALREADY_SHIPPED, ORDER_CANCELLED.',
  input: z.object({ order_number: orderNumberField, reason: z.enum(CANCEL_REASONS) }),
  output: z.object({ order_number: z.string(), status: z.literal('cancelled'), released_cents: z.number().int(), released_display: z.string(), idempotent: z.boolean(), script: z.string() }),
  effect: 'write',
  writes: ['orders', 'order_items', 'order_cancellations', 'call_session'],
  gate: 'verified',
  normalize: (raw) => normalizeFields(raw, { order_number: readOrderNumber, reason: readCode }),
  run(args, ctx) {
    const c = verifiedCustomer(ctx);
    const order = ownOrder(ctx.db, c.id, args.order_number);
    if (!order) return refuse('ORDER_NOT_FOUND', { recoverable: true });
    const id = `ocx_${idDigits(order.id)}`;
    const existing = cancellationById(ctx.db).get({ id });
    if (!existing && order.status === 'cancelled') return refuse('ORDER_CANCELLED', { recoverable: false });
    if (!existing && !UNSHIPPED.has(order.status)) return refuse('ORDER_ALREADY_SHIPPED', { recoverable: false, status: order.status });
    if (!existing) {
      setOrderStatus(ctx.db).run({ status: 'cancelled', id: order.id });
      setItemsStatus(ctx.db).run({ status: 'cancelled', order: order.id });
      insertCancellation(ctx.db).run({ id, order_id: order.id, customer_id: c.id, reason: args.reason, released_cents: order.total_cents, created_at: ctx.clock.now() });
    }
    const released = existing?.released_cents ?? order.total_cents;
    return ok({
      order_number: order.order_number,
      status: 'cancelled' as const,
      released_cents: released,
      released_display: moneyDisplay(released),
      idempotent: existing !== undefined,
      script: `Your order is cancelled. The hold of ${moneyInWords(released)} on your card is released and can take up to ${numberInWords(policy.refund_business_days)} business days to disappear from your statement.`,
    });
  },
});

const changePayload = z.object({ customer_id: z.string(), order_id: z.string(), old_start: z.string(), new_start: z.string(), new_end: z.string(), slot: z.enum(DELIVERY_SLOTS), fee_cents: z.number().int() });
type ChangePayload = z.infer<typeof changePayload>;

/** The last day a delivery can move to: the horizon, or the Saturday before it when it falls on a Sunday. */
function lastDeliveryDay(ctx: ToolContext): string {
  const last = ctx.clock.addDays(ctx.clock.today(), policy.delivery_reschedule_max_days);
  return ctx.clock.weekday(last) === 0 ? ctx.clock.addDays(last, -1) : last;
}

function changeScript(p: ChangePayload): string | null {
  if (p.fee_cents === 0) return null;
  const window = `${dateInWords(p.new_start)} from ${timeInWords(p.new_start.slice(11, 16))} to ${timeInWords(p.new_end.slice(11, 16))}`;
  return `Because this change is ${numberInWords(policy.delivery_fee_within_hours)} hours or less before your delivery window, there is a fee of ${moneyInWords(p.fee_cents)}, charged to the card on your order. Your new window is ${window}. Do you accept the fee?`;
}

/** The order's reschedulable state, or the refusal that stops a change. */
function reschedulable(ctx: ToolContext, order: OrderRow) {
  if (order.status === 'cancelled') return refuse('ORDER_CANCELLED', { recoverable: false });
  if (order.status === 'delivered') return refuse('DELIVERY_COMPLETED', { recoverable: false });
  if (order.fulfilment !== 'home_delivery' || !order.delivery_window_start || !order.delivery_window_end) return refuse('NOT_HOME_DELIVERY', { recoverable: false });
  if (order.delivery_window_start.slice(0, 10) === ctx.clock.today()) return refuse('DELIVERY_DAY_LOCKED', { recoverable: false });
  return { start: order.delivery_window_start };
}

export const quoteDeliveryReschedule = defineTool({
  name: 'quote_delivery_reschedule',
  description:
    'Use when: a verified caller wants to move a home delivery to another day and slot. Returns: a token, the hours until the current window, the fee with its reason (free beyond 48 hours, a fee within, no change on the day) and a script. Writes nothing. Do not use for: parcel shipments. Errors: NOT_VERIFIED, ORDER_NOT_FOUND, ORDER_CANCELLED, DELIVERY_COMPLETED, NOT_HOME_DELIVERY, DELIVERY_DAY_LOCKED, DATE_NOT_AVAILABLE, SAME_WINDOW.',
  input: z.object({ order_number: orderNumberField, new_date: dateField.describe('The new delivery day, YYYY-MM-DD.'), slot: z.enum(DELIVERY_SLOTS).describe('morning is 8 to 12, afternoon 12 to 4, evening 4 to 8.') }),
  output: z.object({
    token: z.string(),
    current_window: windowSchema,
    new_window: windowSchema,
    hours_until_window: z.number(),
    threshold_hours: z.number(),
    fee_cents: z.number().int(),
    fee_display: z.string(),
    fee_reason: z.string(),
    requires_acknowledgement: z.boolean(),
    script: z.string().nullable(),
  }),
  effect: 'read',
  writes: ['holds', 'call_session'],
  gate: 'verified',
  normalize: (raw) => normalizeFields(raw, { order_number: readOrderNumber, new_date: readDate, slot: readCode }),
  run(args, ctx) {
    const c = verifiedCustomer(ctx);
    const order = ownOrder(ctx.db, c.id, args.order_number);
    if (!order) return refuse('ORDER_NOT_FOUND', { recoverable: true });
    const state = reschedulable(ctx, order);
    if (isRefusal(state)) return state;
    const ahead = daysBetween(ctx.clock.today(), args.new_date);
    if (ahead < 1 || ahead > policy.delivery_reschedule_max_days || ctx.clock.weekday(args.new_date) === 0) return refuse('DATE_NOT_AVAILABLE', { recoverable: true, max_days: policy.delivery_reschedule_max_days, last_day_spoken: ctx.clock.spokenDate(lastDeliveryDay(ctx)) });
    const [from, to] = SLOT_HOURS[args.slot as DeliverySlot];
    const newStart = `${args.new_date}T${from}`;
    if (newStart === state.start) return refuse('SAME_WINDOW', { recoverable: true });
    const hours = ctx.clock.minutesUntil(state.start) / 60;
    const fee = deliveryChange(hours, false);
    const payload: ChangePayload = { customer_id: c.id, order_id: order.id, old_start: state.start, new_start: newStart, new_end: `${args.new_date}T${to}`, slot: args.slot, fee_cents: fee.fee_cents };
    const token = openHold(ctx, { kind: 'delivery_change', target: order.id, payload });
    const current = windowOut(ctx, order);
    const next = windowOf(ctx, payload.new_start, payload.new_end);
    const script = changeScript(payload);
    return ok({
      token,
      current_window: current ?? next,
      new_window: next,
      hours_until_window: hours,
      threshold_hours: policy.delivery_fee_within_hours,
      fee_cents: fee.fee_cents,
      fee_display: moneyDisplay(fee.fee_cents),
      fee_reason: fee.fee_reason,
      requires_acknowledgement: script !== null,
      script,
    });
  },
});

export const confirmDeliveryReschedule = defineTool({
  name: 'confirm_delivery_reschedule',
  description:
    'Use when: the caller agreed to the delivery change you quoted; pass fee_acknowledged true only after they accept a quoted fee. Returns: the new window and the fee charged. Do not use for: a change you have not quoted. Errors: NOT_VERIFIED, TOKEN_UNKNOWN, TOKEN_WRONG_KIND, TOKEN_WRONG_OWNER, TOKEN_USED, TOKEN_SUPERSEDED, ACK_REQUIRED, ORDER_CANCELLED, DELIVERY_COMPLETED, NOT_HOME_DELIVERY, DELIVERY_DAY_LOCKED.',
  input: z.object({ token: tokenField, fee_acknowledged: z.boolean().optional().describe('True once the caller accepted the quoted fee.') }),
  output: z.object({ order_number: z.string(), new_window: windowSchema, fee_charged_cents: z.number().int(), fee_display: z.string(), change_id: z.string() }),
  effect: 'write',
  writes: ['orders', 'delivery_changes', 'holds', 'call_session'],
  gate: 'verified',
  confirms: 'quote_delivery_reschedule',
  normalize: (raw) => normalizeFields(raw, { fee_acknowledged: readBool }),
  run(args, ctx) {
    const held = checkHold(ctx, args.token, 'delivery_change', changePayload);
    if (isRefusal(held)) return held;
    const p = held.payload;
    const c = verifiedCustomer(ctx);
    const next = windowOf(ctx, p.new_start, p.new_end);
    const script = changeScript(p);
    if (script && args.fee_acknowledged !== true) return refuse('ACK_REQUIRED', { recoverable: true, script });
    const order = ownOrderById(ctx.db, c.id, p.order_id);
    if (!order) return refuse('ORDER_CANCELLED', { recoverable: false });
    const state = reschedulable(ctx, order);
    if (isRefusal(state)) return state;
    const id = `dlv_${idDigits(order.id)}_${p.new_start.slice(5, 7)}${p.new_start.slice(8, 10)}_${p.slot}`;
    setWindow(ctx.db).run({ start: p.new_start, end: p.new_end, id: order.id });
    if (!deliveryChangeById(ctx.db).get({ id })) {
      insertDeliveryChange(ctx.db).run({ id, order_id: order.id, customer_id: c.id, old_window_start: p.old_start, new_window_start: p.new_start, new_window_end: p.new_end, fee_cents: p.fee_cents, created_at: ctx.clock.now() });
    }
    markHoldUsed(ctx.db, held.token);
    return ok({ order_number: order.order_number, new_window: next, fee_charged_cents: p.fee_cents, fee_display: moneyDisplay(p.fee_cents), change_id: id });
  },
});

/** Why an item is excluded from price protection, if it is. */
function exclusionOf(product: { open_box: number; clearance: number; marketplace_seller: string | null }): string | null {
  if (product.open_box === 1) return 'open box';
  if (product.clearance === 1) return 'clearance';
  if (product.marketplace_seller) return 'marketplace';
  return null;
}

function protectionOf(ctx: ToolContext, customerId: string, itemId: string) {
  const owned = ownItem(ctx.db, customerId, itemId);
  if (!owned) return refuse('ITEM_NOT_FOUND', { recoverable: true });
  const { item, order, product } = owned;
  if (!order.delivered_on) return refuse('ORDER_NOT_DELIVERED', { recoverable: false });
  const days = daysBetween(order.delivered_on, ctx.clock.today());
  const verdict = priceProtection({ tier: tierOf(ctx.db, customerId), daysSinceDelivery: days, paidCents: item.unit_price_cents, currentCents: product.price_cents, excluded: exclusionOf(product), alreadyAdjusted: item.price_adjusted === 1 });
  return { item, product, days, verdict };
}

export const checkPriceProtection = defineTool({
  name: 'check_price_protection',
  description:
    'Use when: a verified caller says an item they bought is now cheaper at Kestrel. Returns: price paid, current price, the difference, days since delivery against the window, eligible and the reason. Do not use for: competitor prices, which Kestrel does not match. Errors: NOT_VERIFIED, ITEM_NOT_FOUND, ORDER_NOT_DELIVERED.',
  input: z.object({ item_id: itemIdField }),
  output: z.object({
    item_id: z.string(),
    name: z.string(),
    price_paid_cents: z.number().int(),
    current_price_cents: z.number().int(),
    difference_cents: z.number().int(),
    difference_display: z.string(),
    days_since_delivery: z.number().int(),
    window_days: z.number().int(),
    eligible: z.boolean(),
    reason: z.string(),
  }),
  effect: 'read',
  writes: ['call_session'],
  gate: 'verified',
  normalize: (raw) => normalizeFields(raw, { item_id: readCode }),
  run(args, ctx) {
    const c = verifiedCustomer(ctx);
    const found = protectionOf(ctx, c.id, args.item_id);
    if (isRefusal(found)) return found;
    const { item, product, days, verdict } = found;
    return ok({
      item_id: item.id,
      name: product.name,
      price_paid_cents: item.unit_price_cents,
      current_price_cents: product.price_cents,
      difference_cents: verdict.difference_cents,
      difference_display: moneyDisplay(verdict.difference_cents),
      days_since_delivery: days,
      window_days: verdict.window_days,
      eligible: verdict.eligible,
      reason: verdict.reason,
    });
  },
});

export const requestPriceAdjustment = defineTool({
  name: 'request_price_adjustment',
  description:
    'Use when: check_price_protection said eligible and the caller wants the difference back; one step, once per item. Returns: the amount refunded to the card and when it posts; idempotent on repeats. Do not use for: items the check found ineligible. Errors: NOT_VERIFIED, ITEM_NOT_FOUND, ORDER_NOT_DELIVERED, PRICE_PROTECTION_EXCLUDED, PRICE_ADJUSTMENT_USED, NO_PRICE_DROP, PRICE_PROTECTION_WINDOW_CLOSED.',
  input: z.object({ item_id: itemIdField }),
  output: z.object({ adjustment_id: z.string(), amount_cents: z.number().int(), amount_display: z.string(), posts_by: z.string(), posts_by_spoken: z.string(), idempotent: z.boolean() }),
  effect: 'write',
  writes: ['price_adjustments', 'order_items', 'refunds', 'call_session'],
  gate: 'verified',
  normalize: (raw) => normalizeFields(raw, { item_id: readCode }),
  run(args, ctx) {
    const c = verifiedCustomer(ctx);
    const id = `padj_${idDigits(args.item_id)}`;
    const existing = adjustmentById(ctx.db).get({ id });
    const postsBy = ctx.clock.addBusinessDays(ctx.clock.today(), policy.refund_business_days);
    if (existing && existing.customer_id === c.id) {
      return ok({ adjustment_id: id, amount_cents: existing.amount_cents, amount_display: moneyDisplay(existing.amount_cents), posts_by: postsBy, posts_by_spoken: ctx.clock.spokenDate(postsBy), idempotent: true });
    }
    const found = protectionOf(ctx, c.id, args.item_id);
    if (isRefusal(found)) return found;
    const { item, verdict } = found;
    if (verdict.code === 'PRICE_PROTECTION_EXCLUDED') return refuse('PRICE_PROTECTION_EXCLUDED', { recoverable: false });
    if (verdict.code === 'PRICE_ADJUSTMENT_USED') return refuse('PRICE_ADJUSTMENT_USED', { recoverable: false });
    if (verdict.code === 'NO_PRICE_DROP') return refuse('NO_PRICE_DROP', { recoverable: false });
    if (verdict.code === 'PRICE_PROTECTION_WINDOW_CLOSED') return refuse('PRICE_PROTECTION_WINDOW_CLOSED', { recoverable: false, days_since_delivery: found.days, window_days: verdict.window_days });
    insertAdjustment(ctx.db).run({ id, order_item_id: item.id, customer_id: c.id, amount_cents: verdict.difference_cents, created_at: ctx.clock.now() });
    setAdjusted(ctx.db).run({ id: item.id });
    insertRefund(ctx.db).run({ id: `rfd_${id}`, customer_id: c.id, source: 'price_adjustment', source_id: id, amount_cents: verdict.difference_cents, status: 'issued', expected_by: postsBy, created_at: ctx.clock.now() });
    return ok({ adjustment_id: id, amount_cents: verdict.difference_cents, amount_display: moneyDisplay(verdict.difference_cents), posts_by: postsBy, posts_by_spoken: ctx.clock.spokenDate(postsBy), idempotent: false });
  },
});
