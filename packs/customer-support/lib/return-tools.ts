import { and, eq } from 'drizzle-orm';
import { z } from 'zod';
import { checkHold, dateInWords, defineTool, markHoldUsed, moneyInWords, normalizeFields, numberInWords, ok, openHold, param, preparedQuery, refuse, rowById, rowInsert, type ToolContext } from '../../../src/packs/index.ts';
import { orderItems, priceAdjustments, refunds, returnLabels, rmas } from '../schema.ts';
import { itemIdField, moneyDisplay, orderNumberField, readBool, readCode, readOrderNumber, readRmaId, rmaIdField, tokenField } from './fields.ts';
import { ITEM_CONDITIONS, policy, RETURN_REASONS } from './policy.ts';
import { idDigits, isRefusal, itemsOf, maskEmail, ownItem, ownOrder, product, tierOf, verifiedCustomer } from './records.ts';
import { daysBetween, restockingFee, returnWindowDays } from './rules.ts';

/** The returns desk: windows, restocking fees, return requests, labels and refund status. */

const setItemStatus = preparedQuery((db) => db.update(orderItems).set({ status: param('status') }).where(eq(orderItems.id, param('id'))).prepare());
const rmaById = rowById(rmas);
const insertRma = rowInsert(rmas);
const insertRefund = rowInsert(refunds);
const adjustmentsOfItem = preparedQuery((db) => db.select({ amount_cents: priceAdjustments.amount_cents }).from(priceAdjustments).where(eq(priceAdjustments.order_item_id, param('item'))).prepare());

/** What the customer paid for an item net of any price adjustment already refunded on it. */
function netPaidCents(ctx: ToolContext, item: { id: string; unit_price_cents: number }): number {
  return adjustmentsOfItem(ctx.db).all({ item: item.id }).reduce((paid, a) => paid - a.amount_cents, item.unit_price_cents);
}
const labelById = rowById(returnLabels);
const insertLabel = rowInsert(returnLabels);
const refundsFromSource = preparedQuery((db) =>
  db.select().from(refunds).where(and(eq(refunds.customer_id, param('customer')), eq(refunds.source_id, param('source')))).prepare(),
);

type Condition = (typeof ITEM_CONDITIONS)[number];

/** The return decision for one of the customer's items: window, days, fee and refund, or a refusal. */
function returnDecision(ctx: ToolContext, customerId: string, itemId: string, condition: Condition) {
  const owned = ownItem(ctx.db, customerId, itemId);
  if (!owned) return refuse('ITEM_NOT_FOUND', { recoverable: true });
  const { item, order, product: prod } = owned;
  if (!order.delivered_on || item.status === 'cancelled') return refuse('ORDER_NOT_DELIVERED', { recoverable: false });
  if (item.status !== 'active') return refuse('ITEM_ALREADY_RETURNED', { recoverable: false });
  const tier = tierOf(ctx.db, customerId);
  const { window_days, basis } = returnWindowDays(tier, prod.activatable === 1);
  const used = daysBetween(order.delivered_on, ctx.clock.today());
  const inside = used <= window_days;
  // A price adjustment already refunded part of the price; the return refunds only the rest.
  const paidCents = netPaidCents(ctx, item);
  const fee = inside ? restockingFee({ condition, restockClass: prod.restock_class, tier, pricePaidCents: paidCents }) : { fee_cents: 0, fee_reason: 'outside the return window' };
  return { item, order, product: prod, tier, window_days, basis, used, inside, fee, paidCents };
}

function marketplaceScript(seller: string): string {
  return `This item was sold by ${seller}, a marketplace seller on our site. Its return follows ${seller}'s own policy and goes through them, from the order page under "Contact seller".`;
}

export const checkReturnWindow = defineTool({
  name: 'check_return_window',
  description:
    'Use when: a verified caller asks whether an item can still be returned and what it would cost; pass the condition they describe. Returns: the window and its basis, days used, days left or days over, any restocking fee with its reason, and the refund. Do not use for: starting the return. Errors: NOT_VERIFIED, ITEM_NOT_FOUND, ORDER_NOT_DELIVERED, ITEM_ALREADY_RETURNED.',
  input: z.object({ item_id: itemIdField, condition: z.enum(ITEM_CONDITIONS).describe('unopened, opened (used but working) or defective.') }),
  output: z.object({
    item_id: z.string(),
    name: z.string(),
    returnable: z.boolean(),
    sold_by: z.string(),
    window_days: z.number().int(),
    window_basis: z.string(),
    days_used: z.number().int(),
    days_left: z.number().int(),
    days_over: z.number().int(),
    fee_cents: z.number().int(),
    fee_display: z.string(),
    fee_reason: z.string(),
    refund_cents: z.number().int(),
    refund_display: z.string(),
    script: z.string().nullable(),
  }),
  effect: 'read',
  writes: ['call_session'],
  gate: 'verified',
  normalize: (raw) => normalizeFields(raw, { item_id: readCode, condition: readCode }),
  run(args, ctx) {
    const c = verifiedCustomer(ctx);
    const d = returnDecision(ctx, c.id, args.item_id, args.condition);
    if (isRefusal(d)) return d;
    const seller = d.product.marketplace_seller;
    const returnable = d.inside && !seller;
    const refund = returnable ? d.paidCents - d.fee.fee_cents : 0;
    const over = Math.max(0, d.used - d.window_days);
    const script = seller
      ? marketplaceScript(seller)
      : d.inside
        ? null
        : `This item was delivered ${numberInWords(d.used)} days ago. The return window for it is ${numberInWords(d.window_days)} days, so it is ${numberInWords(over)} ${over === 1 ? 'day' : 'days'} past. If it has a fault, our Tech Bench can check the warranty.`;
    return ok({
      item_id: d.item.id,
      name: d.product.name,
      returnable,
      sold_by: seller ?? 'Kestrel',
      window_days: d.window_days,
      window_basis: seller ? 'marketplace items follow the seller' : d.basis,
      days_used: d.used,
      days_left: Math.max(0, d.window_days - d.used),
      days_over: over,
      fee_cents: returnable ? d.fee.fee_cents : 0,
      fee_display: moneyDisplay(returnable ? d.fee.fee_cents : 0),
      fee_reason: seller ? 'the seller sets any fee' : d.fee.fee_reason,
      refund_cents: refund,
      refund_display: moneyDisplay(refund),
      script,
    });
  },
});

const returnPayload = z.object({
  customer_id: z.string(),
  item_id: z.string(),
  condition: z.enum(ITEM_CONDITIONS),
  reason: z.enum(RETURN_REASONS),
  fee_cents: z.number().int(),
  fee_reason: z.string(),
  refund_cents: z.number().int(),
  store_drop_off: z.boolean(),
});
type ReturnPayload = z.infer<typeof returnPayload>;

function feeScript(p: ReturnPayload): string | null {
  if (p.fee_cents === 0) return null;
  return `This return has a restocking fee of ${moneyInWords(p.fee_cents)}, for an ${p.fee_reason}. Your refund would be ${moneyInWords(p.refund_cents)} to the original card. Do you accept the fee?`;
}

export const quoteReturnRequest = defineTool({
  name: 'quote_return_request',
  description:
    'Use when: a verified caller wants to return an item inside its window. Returns: a token, the refund, any restocking fee with its reason and a script, and whether it goes back by mail or at a store. Writes nothing. Do not use for: items past the window or sold by marketplace sellers. Errors: NOT_VERIFIED, ITEM_NOT_FOUND, ORDER_NOT_DELIVERED, ITEM_ALREADY_RETURNED, MARKETPLACE_SELLER_ITEM, RETURN_WINDOW_CLOSED.',
  input: z.object({ item_id: itemIdField, condition: z.enum(ITEM_CONDITIONS), reason: z.enum(RETURN_REASONS) }),
  output: z.object({
    token: z.string(),
    item_id: z.string(),
    name: z.string(),
    refund_cents: z.number().int(),
    refund_display: z.string(),
    fee_cents: z.number().int(),
    fee_display: z.string(),
    fee_reason: z.string(),
    return_method: z.enum(['mail_label', 'store_drop_off']),
    requires_acknowledgement: z.boolean(),
    script: z.string().nullable(),
  }),
  effect: 'read',
  writes: ['holds', 'call_session'],
  gate: 'verified',
  normalize: (raw) => normalizeFields(raw, { item_id: readCode, condition: readCode, reason: readCode }),
  run(args, ctx) {
    const c = verifiedCustomer(ctx);
    const d = returnDecision(ctx, c.id, args.item_id, args.condition);
    if (isRefusal(d)) return d;
    if (d.product.marketplace_seller) return refuse('MARKETPLACE_SELLER_ITEM', { recoverable: false, script: marketplaceScript(d.product.marketplace_seller) });
    if (!d.inside) return refuse('RETURN_WINDOW_CLOSED', { recoverable: false, days_used: d.used, window_days: d.window_days, days_over: d.used - d.window_days });
    const payload: ReturnPayload = {
      customer_id: c.id,
      item_id: d.item.id,
      condition: args.condition,
      reason: args.reason,
      fee_cents: d.fee.fee_cents,
      fee_reason: d.fee.fee_reason,
      refund_cents: d.paidCents - d.fee.fee_cents,
      store_drop_off: d.product.hazardous === 1,
    };
    const token = openHold(ctx, { kind: 'return_request', target: d.item.id, payload });
    const script = feeScript(payload);
    return ok({
      token,
      item_id: d.item.id,
      name: d.product.name,
      refund_cents: payload.refund_cents,
      refund_display: moneyDisplay(payload.refund_cents),
      fee_cents: payload.fee_cents,
      fee_display: moneyDisplay(payload.fee_cents),
      fee_reason: d.fee.fee_reason,
      return_method: payload.store_drop_off ? ('store_drop_off' as const) : ('mail_label' as const),
      requires_acknowledgement: script !== null,
      script,
    });
  },
});

export const confirmReturnRequest = defineTool({
  name: 'confirm_return_request',
  description:
    'Use when: the caller agreed to the return you quoted; pass fee_acknowledged true only after they accept a quoted restocking fee. Returns: the return id, the refund and the next step. Do not use for: a return you have not quoted. Errors: NOT_VERIFIED, TOKEN_UNKNOWN, TOKEN_WRONG_KIND, TOKEN_WRONG_OWNER, TOKEN_USED, TOKEN_SUPERSEDED, ACK_REQUIRED, ITEM_ALREADY_RETURNED.',
  input: z.object({ token: tokenField, fee_acknowledged: z.boolean().optional().describe('True once the caller accepted the quoted restocking fee.') }),
  output: z.object({ rma_id: z.string(), refund_cents: z.number().int(), refund_display: z.string(), fee_charged_cents: z.number().int(), return_method: z.enum(['mail_label', 'store_drop_off']), next_step: z.string() }),
  effect: 'write',
  writes: ['rmas', 'refunds', 'order_items', 'holds', 'call_session'],
  gate: 'verified',
  confirms: 'quote_return_request',
  carryForward: ['rma_id'],
  normalize: (raw) => normalizeFields(raw, { fee_acknowledged: readBool }),
  run(args, ctx) {
    const held = checkHold(ctx, args.token, 'return_request', returnPayload);
    if (isRefusal(held)) return held;
    const p = held.payload;
    const c = verifiedCustomer(ctx);
    const script = feeScript(p);
    if (script && args.fee_acknowledged !== true) return refuse('ACK_REQUIRED', { recoverable: true, script });
    const owned = ownItem(ctx.db, c.id, p.item_id);
    if (!owned || owned.item.status !== 'active') return refuse('ITEM_ALREADY_RETURNED', { recoverable: false });
    const id = `rma_${idDigits(p.item_id)}`;
    insertRma(ctx.db).run({ id, order_item_id: p.item_id, customer_id: c.id, reason: p.reason, item_condition: p.condition, fee_cents: p.fee_cents, refund_cents: p.refund_cents, status: 'open', created_at: ctx.clock.now() });
    insertRefund(ctx.db).run({ id: `rfd_${id}`, customer_id: c.id, source: 'return', source_id: id, amount_cents: p.refund_cents, status: 'awaiting_item', expected_by: null, created_at: ctx.clock.now() });
    setItemStatus(ctx.db).run({ status: 'return_requested', id: p.item_id });
    markHoldUsed(ctx.db, held.token);
    const nextStep = p.store_drop_off
      ? 'This item has a large lithium battery, so please bring it to any Kestrel store. It cannot be mailed.'
      : 'I can email you a prepaid return label. Once the item reaches us, the refund posts within five business days.';
    return ok({ rma_id: id, refund_cents: p.refund_cents, refund_display: moneyDisplay(p.refund_cents), fee_charged_cents: p.fee_cents, return_method: p.store_drop_off ? ('store_drop_off' as const) : ('mail_label' as const), next_step: nextStep });
  },
});

export const sendReturnLabel = defineTool({
  name: 'send_return_label',
  description:
    'Use when: a return was confirmed and the caller wants the prepaid label; it goes to the email on file. Returns: the masked email and the date the label expires; idempotent on repeats. Do not use for: items with large lithium batteries, which go back at a store. Errors: NOT_VERIFIED, RMA_NOT_FOUND, BATTERY_DROP_OFF_ONLY, NO_EMAIL_ON_FILE.',
  input: z.object({ rma_id: rmaIdField }),
  output: z.object({ label_id: z.string(), sent_to: z.string(), expires_on: z.string(), expires_spoken: z.string(), idempotent: z.boolean() }),
  effect: 'write',
  writes: ['return_labels', 'call_session'],
  gate: 'verified',
  normalize: (raw) => normalizeFields(raw, { rma_id: readRmaId }),
  run(args, ctx) {
    const c = verifiedCustomer(ctx);
    const rma = rmaById(ctx.db).get({ id: args.rma_id });
    const owned = rma && rma.customer_id === c.id ? ownItem(ctx.db, c.id, rma.order_item_id) : undefined;
    if (!rma || !owned) return refuse('RMA_NOT_FOUND', { recoverable: true });
    if (owned.product.hazardous === 1) {
      return refuse('BATTERY_DROP_OFF_ONLY', { recoverable: false, script: 'Because this item has a large lithium battery, it cannot be shipped back. Please bring it to any Kestrel store, and the refund starts when it is dropped off.' });
    }
    if (!c.email) return refuse('NO_EMAIL_ON_FILE', { recoverable: false });
    const id = `lbl_${rma.id}`;
    const existing = labelById(ctx.db).get({ id });
    const expires = existing?.expires_on ?? ctx.clock.addDays(ctx.clock.today(), policy.return_label_valid_days);
    if (!existing) insertLabel(ctx.db).run({ id, rma_id: rma.id, sent_to: c.email, expires_on: expires, created_at: ctx.clock.now() });
    return ok({ label_id: id, sent_to: maskEmail(c.email), expires_on: expires, expires_spoken: ctx.clock.spokenDate(expires), idempotent: existing !== undefined });
  },
});

const refundOut = z.object({ item_id: z.string(), name: z.string(), amount_cents: z.number().int(), amount_display: z.string(), status: z.enum(['issued', 'processing', 'awaiting_item']), date: z.string().nullable(), spoken: z.string() });

export const checkRefund = defineTool({
  name: 'check_refund',
  description:
    'Use when: a verified caller asks where the refund for a returned item or a price adjustment on an order is. Returns: each refund on the order with its amount, status and the date it was issued or is expected. Do not use for: starting a return. Errors: NOT_VERIFIED, ORDER_NOT_FOUND, NO_REFUND_ON_FILE.',
  input: z.object({ order_number: orderNumberField }),
  output: z.object({ order_number: z.string(), refunds: z.array(refundOut) }),
  effect: 'read',
  writes: ['call_session'],
  gate: 'verified',
  normalize: (raw) => normalizeFields(raw, { order_number: readOrderNumber }),
  run(args, ctx) {
    const c = verifiedCustomer(ctx);
    const order = ownOrder(ctx.db, c.id, args.order_number);
    if (!order) return refuse('ORDER_NOT_FOUND', { recoverable: true });
    const list: z.infer<typeof refundOut>[] = [];
    for (const item of itemsOf(ctx.db, order.id)) {
      const name = product(ctx.db, item.sku)?.name ?? item.sku;
      if (item.returned_on && item.refund_cents !== null) {
        const issued = item.refund_issued_on;
        const expected = issued ?? ctx.clock.addBusinessDays(item.returned_on, policy.refund_business_days);
        list.push({ item_id: item.id, name, amount_cents: item.refund_cents, amount_display: moneyDisplay(item.refund_cents), status: issued ? 'issued' : 'processing', date: expected, spoken: issued ? `issued on ${dateInWords(issued)}` : `expected by ${dateInWords(expected)}` });
      }
      for (const source of [`rma_${idDigits(item.id)}`, `padj_${idDigits(item.id)}`]) {
        for (const r of refundsFromSource(ctx.db).all({ customer: c.id, source })) {
          const status = r.status === 'awaiting_item' ? ('awaiting_item' as const) : ('issued' as const);
          list.push({ item_id: item.id, name, amount_cents: r.amount_cents, amount_display: moneyDisplay(r.amount_cents), status, date: r.expected_by, spoken: r.expected_by ? `posts by ${dateInWords(r.expected_by)}` : 'starts when the item reaches us' });
        }
      }
    }
    if (!list.length) return refuse('NO_REFUND_ON_FILE', { recoverable: false });
    return ok({ order_number: order.order_number, refunds: list });
  },
});
