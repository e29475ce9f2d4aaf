import { and, eq } from 'drizzle-orm';
import { z } from 'zod';
import { defineTool, normalizeFields, ok, param, pinSubject, preparedQuery, readCallSession, recordVerificationFailure, refuse, setSessionFlags } from '../../../src/packs/index.ts';
import { customers, serviceAppointments } from '../schema.ts';
import { last4Field, orderNumberField, phoneField, readDigits, readOrderNumber, readPhone, readZip, zipField } from './fields.ts';
import { policy, TIER_NAMES } from './policy.ts';
import { customer, firstName, itemsOf, maskEmail, maskPhone, orderNumbered, ordersOfCustomer, planOf, product, storeNamed, tierOf, verifiedCustomer, type CustomerRow } from './records.ts';

/** The verification desk: find the account, verify it, read the overview. */

const customerByPhone = preparedQuery((db) => db.select().from(customers).where(eq(customers.phone, param('phone'))).prepare());
const bookedRepairsOf = preparedQuery((db) =>
  db
    .select()
    .from(serviceAppointments)
    .where(and(eq(serviceAppointments.customer_id, param('customer')), eq(serviceAppointments.status, 'booked')))
    .orderBy(serviceAppointments.starts_at)
    .prepare(),
);

export const findCustomer = defineTool({
  name: 'find_customer',
  description:
    'Use when: a caller wants anything from their account; ask for the phone number on the account or an order number. Returns: a masked match (first name, phone ending, number of orders) to verify next; it shares no account details. Do not use for: proving identity, which verify_customer does. Errors: CUSTOMER_NOT_FOUND, VERIFICATION_LOCKED.',
  input: z
    .object({
      phone: phoneField.optional().describe('Phone number on the account, E.164: "312 555 0141" is +13125550141.'),
      order_number: orderNumberField.optional(),
    })
    .refine((a) => a.phone !== undefined || a.order_number !== undefined, { message: 'give phone or order_number' }),
  output: z.object({ found: z.literal(true), first_name: z.string(), phone_ending: z.string(), order_count: z.number().int(), matched_by: z.enum(['phone', 'order_number', 'both']), next_step: z.string() }),
  effect: 'read',
  writes: ['call_session'],
  normalize: (raw) => normalizeFields(raw, { phone: readPhone, order_number: readOrderNumber }),
  run(args, ctx) {
    if (readCallSession(ctx.db).locked) return refuse('VERIFICATION_LOCKED', { recoverable: false });
    const byPhone = args.phone ? customerByPhone(ctx.db).get({ phone: args.phone }) : undefined;
    const order = args.order_number ? orderNumbered(ctx.db, args.order_number) : undefined;
    const byOrder = order ? customer(ctx.db, order.customer_id) : undefined;
    // Both keys given must name the same account; a disagreement is no match, never a guess.
    let match: CustomerRow | undefined;
    if (args.phone && args.order_number) match = byPhone && byOrder && byPhone.id === byOrder.id ? byPhone : undefined;
    else match = byPhone ?? byOrder;
    if (!match) return refuse('CUSTOMER_NOT_FOUND', { recoverable: true });
    setSessionFlags(ctx.db, { candidate: match.id });
    return ok({
      found: true as const,
      first_name: firstName(match),
      phone_ending: maskPhone(match.phone) ?? '',
      order_count: ordersOfCustomer(ctx.db, match.id).length,
      matched_by: args.phone && args.order_number ? ('both' as const) : args.phone ? ('phone' as const) : ('order_number' as const),
      next_step: 'Ask for the billing ZIP code and the last four digits of the card on the account, then verify.',
    });
  },
});

export const verifyCustomer = defineTool({
  name: 'verify_customer',
  description:
    'Use when: find_customer matched an account; pass the ZIP code and the last four digits of the card on file as the caller says them. Returns: verified with the first name and membership tier; two failures lock verification for the call. Do not use for: looking an account up. Errors: FIND_CUSTOMER_FIRST, NO_MATCH, VERIFICATION_LOCKED.',
  input: z.object({
    zip_code: zipField.describe('Billing ZIP code, five digits.'),
    card_last4: last4Field.describe('Last four digits of the card on the account.'),
  }),
  output: z.object({ verified: z.literal(true), first_name: z.string(), tier: z.enum(['standard', 'circle', 'elite']), tier_name: z.string() }),
  effect: 'read',
  writes: ['call_session'],
  normalize: (raw) => normalizeFields(raw, { zip_code: readZip, card_last4: readDigits }),
  run(args, ctx) {
    const session = readCallSession(ctx.db);
    if (session.locked) return refuse('VERIFICATION_LOCKED', { recoverable: false });
    const candidateId = typeof session.flags.candidate === 'string' ? session.flags.candidate : undefined;
    const candidate = candidateId ? customer(ctx.db, candidateId) : undefined;
    if (!candidate) return refuse('FIND_CUSTOMER_FIRST', { recoverable: true });
    if (candidate.zip_code !== args.zip_code || candidate.card_last4 !== args.card_last4) {
      const failures = recordVerificationFailure(ctx.db, policy.verification_lock_after_failures);
      if (failures >= policy.verification_lock_after_failures) return refuse('VERIFICATION_LOCKED', { recoverable: false, failures });
      return refuse('NO_MATCH', { recoverable: true, attempts_left: policy.verification_lock_after_failures - failures });
    }
    pinSubject(ctx.db, { kind: 'customer', id: candidate.id, method: 'zip_and_card_last4', gate: 'verified' });
    const tier = tierOf(ctx.db, candidate.id);
    return ok({ verified: true as const, first_name: firstName(candidate), tier, tier_name: TIER_NAMES[tier] });
  },
});

const itemOut = z.object({ item_id: z.string(), name: z.string(), status: z.string() });

export const getAccountOverview = defineTool({
  name: 'get_account_overview',
  description:
    'Use when: a verified caller asks what is on their account or cannot remember an order number: orders with their items, membership tier, protection plans, booked repairs. Returns: those facts with ids for later tools. Do not use for: delivery windows, refunds or coverage decisions. Errors: NOT_VERIFIED.',
  input: z.object({}),
  output: z.object({
    first_name: z.string(),
    tier: z.enum(['standard', 'circle', 'elite']),
    tier_name: z.string(),
    email_on_file: z.string().nullable(),
    orders: z.array(z.object({ order_number: z.string(), placed_on: z.string(), placed_spoken: z.string(), status: z.string(), items: z.array(itemOut) })),
    plans: z.array(z.object({ item_id: z.string(), level: z.string(), ends_on: z.string(), ends_spoken: z.string() })),
    booked_repairs: z.array(z.object({ appointment_id: z.string(), item_id: z.string(), store: z.string(), spoken: z.string() })),
  }),
  effect: 'read',
  writes: ['call_session'],
  gate: 'verified',
  run(_args, ctx) {
    const c = verifiedCustomer(ctx);
    const orders = ordersOfCustomer(ctx.db, c.id);
    const items = orders.flatMap((o) => itemsOf(ctx.db, o.id));
    const tier = tierOf(ctx.db, c.id);
    return ok({
      first_name: firstName(c),
      tier,
      tier_name: TIER_NAMES[tier],
      email_on_file: c.email ? maskEmail(c.email) : null,
      orders: orders.map((o) => ({
        order_number: o.order_number,
        placed_on: o.placed_on,
        placed_spoken: ctx.clock.spokenDate(o.placed_on),
        status: o.status,
        items: itemsOf(ctx.db, o.id).map((i) => ({ item_id: i.id, name: product(ctx.db, i.sku)?.name ?? i.sku, status: i.status })),
      })),
      plans: items.flatMap((i) => {
        const plan = planOf(ctx.db, i.id);
        return plan ? [{ item_id: i.id, level: plan.level, ends_on: plan.ends_on, ends_spoken: ctx.clock.spokenDate(plan.ends_on) }] : [];
      }),
      booked_repairs: bookedRepairsOf(ctx.db)
        .all({ customer: c.id })
        .map((a) => ({ appointment_id: a.id, item_id: a.order_item_id, store: storeNamed(ctx.db, a.store_id), spoken: ctx.clock.spokenDateTime(a.starts_at) })),
    });
  },
});
