import { and, asc, eq, gt } from 'drizzle-orm';
import { z } from 'zod';
import { defineTool, moneyInWords, normalizeFields, ok, param, preparedQuery, refuse, rowById, rowInsert, type ToolContext } from '../../../src/packs/index.ts';
import { benchSlots, orderItems, orders, serviceAppointments, stores } from '../schema.ts';
import { appointmentIdField, dateField, itemIdField, moneyDisplay, readAppointmentId, readBool, readCode, readDate, readEnum, readStore, slotIdField, storeField } from './fields.ts';
import { ISSUE_ALIASES, ISSUES, policy, type Issue } from './policy.ts';
import { isRefusal, ownItem, planOf, product, storeNamed, tierOf, verifiedCustomer } from './records.ts';
import { addMonths, daysBetween, serviceLadder } from './rules.ts';

/** The service desk: plans, the service ladder and Tech Bench appointments. */

const itemsOfCustomer = preparedQuery((db) =>
  db
    .select({ item: orderItems, order: orders })
    .from(orderItems)
    .innerJoin(orders, eq(orderItems.order_id, orders.id))
    .where(eq(orders.customer_id, param('customer')))
    .orderBy(orders.delivered_on, orderItems.id)
    .prepare(),
);
const storeById = rowById(stores);
const slotById = rowById(benchSlots);
const openSlotsAfter = preparedQuery((db) =>
  db
    .select()
    .from(benchSlots)
    .where(and(eq(benchSlots.store_id, param('store')), gt(benchSlots.starts_at, param('after')), eq(benchSlots.status, 'open')))
    .orderBy(asc(benchSlots.starts_at), asc(benchSlots.id))
    .limit(policy.bench_slots_per_search)
    .prepare(),
);
const setSlotStatus = preparedQuery((db) => db.update(benchSlots).set({ status: param('status') }).where(eq(benchSlots.id, param('id'))).prepare());
const appointmentById = rowById(serviceAppointments);
const insertAppointment = rowInsert(serviceAppointments);
const setAppointmentStatus = preparedQuery((db) => db.update(serviceAppointments).set({ status: param('status') }).where(eq(serviceAppointments.id, param('id'))).prepare());
const rebookAppointment = preparedQuery((db) =>
  db
    .update(serviceAppointments)
    .set({ status: 'booked', order_item_id: param('item'), issue: param('issue'), coverage: param('coverage'), diagnostic_fee_cents: param('fee') })
    .where(eq(serviceAppointments.id, param('id')))
    .prepare(),
);

const PLAN_NAMES: Readonly<Record<string, string>> = { shield: 'Kestrel Shield', shield_plus: 'Kestrel Shield Plus' };

const RECALL_SCRIPT =
  'This product is part of a safety recall. Please stop using and charging it now. We cannot repair it, but the recall gives you a full refund: bring it to any Kestrel store, where it is taken back safely.';
const BATTERY_SCRIPT =
  'A swelling battery can catch fire. Please stop using and charging the device, do not press on the battery, and keep it away from anything that can burn. Do not mail it. A member of our team will arrange a safe drop off at a store.';

function ladderFor(ctx: ToolContext, customerId: string, itemId: string, issue: Issue) {
  const owned = ownItem(ctx.db, customerId, itemId);
  if (!owned) return refuse('ITEM_NOT_FOUND', { recoverable: true });
  if (!owned.order.delivered_on || owned.item.status === 'cancelled') return refuse('ORDER_NOT_DELIVERED', { recoverable: false });
  const plan = planOf(ctx.db, owned.item.id);
  const rung = serviceLadder({
    recalled: owned.product.recalled === 1,
    issue,
    deliveredOn: owned.order.delivered_on,
    today: ctx.clock.today(),
    plan: plan ? { level: plan.level, accidental: plan.accidental === 1, endsOn: plan.ends_on } : null,
    tier: tierOf(ctx.db, customerId),
  });
  return { ...owned, plan, rung };
}

function coverageScript(coverage: string, fee: number, planName: string | null): string {
  switch (coverage) {
    case 'manufacturer_warranty':
      return 'This is covered by the manufacturer warranty, so the diagnostic and the repair are free.';
    case 'kestrel_shield':
      return `This is covered by your ${planName ?? 'Kestrel Shield'} plan, so the diagnostic and the repair are free.`;
    case 'elite_diagnostic':
      return 'This is not covered by a warranty or plan, but as a Circle Elite member your diagnostic is free. The Tech Bench will quote any repair before doing it.';
    default:
      return `This is not covered by a warranty or plan, so the Tech Bench diagnostic costs ${moneyInWords(fee)}, paid at drop off. The bench will quote any repair before doing it.`;
  }
}

export const listItemPlans = defineTool({
  name: 'list_item_plans',
  description:
    'Use when: a verified caller asks what protection their items have, or you need the item id of a device they want looked at. Returns: each delivered item with its id, delivery date, manufacturer warranty end and any Kestrel Shield plan with its level, accidental cover and end date. Do not use for: deciding coverage for an issue. Errors: NOT_VERIFIED.',
  input: z.object({}),
  output: z.object({
    items: z.array(
      z.object({
        item_id: z.string(),
        name: z.string(),
        delivered_on: z.string(),
        delivered_spoken: z.string(),
        warranty_ends_on: z.string(),
        warranty_ends_spoken: z.string(),
        warranty_active: z.boolean(),
        plan: z.object({ level: z.string(), name: z.string(), years: z.number().int(), accidental: z.boolean(), ends_on: z.string(), ends_spoken: z.string(), active: z.boolean() }).nullable(),
      }),
    ),
  }),
  effect: 'read',
  writes: ['call_session'],
  gate: 'verified',
  run(_args, ctx) {
    const c = verifiedCustomer(ctx);
    const today = ctx.clock.today();
    const rows = itemsOfCustomer(ctx.db).all({ customer: c.id }).filter((r) => r.order.delivered_on && r.item.status !== 'cancelled');
    return ok({
      items: rows.map(({ item, order }) => {
        const delivered = order.delivered_on ?? today;
        const warrantyEnds = addMonths(delivered, policy.warranty_months);
        const plan = planOf(ctx.db, item.id);
        return {
          item_id: item.id,
          name: product(ctx.db, item.sku)?.name ?? item.sku,
          delivered_on: delivered,
          delivered_spoken: ctx.clock.spokenDate(delivered),
          warranty_ends_on: warrantyEnds,
          warranty_ends_spoken: ctx.clock.spokenDate(warrantyEnds),
          warranty_active: today <= warrantyEnds,
          plan: plan ? { level: plan.level, name: PLAN_NAMES[plan.level] ?? plan.level, years: plan.years, accidental: plan.accidental === 1, ends_on: plan.ends_on, ends_spoken: ctx.clock.spokenDate(plan.ends_on), active: today <= plan.ends_on } : null,
        };
      }),
    });
  },
});

export const checkCoverage = defineTool({
  name: 'check_coverage',
  description:
    'Use when: a verified caller describes a problem with an item; walks the service ladder: recall, swelling battery, manufacturer warranty, Kestrel Shield, Elite diagnostic, paid diagnostic. Returns: the coverage, the diagnostic fee with its reason and a script; recalls and swelling batteries stop with a safety script. Do not use for: booking. Errors: NOT_VERIFIED, ITEM_NOT_FOUND, ORDER_NOT_DELIVERED, RECALL_STOP, BATTERY_HAZARD_STOP.',
  input: z.object({ item_id: itemIdField, issue: z.enum(ISSUES).describe('"Will not charge" is wont_charge; "swollen battery" is battery_swelling; a drop is drop_damage.') }),
  output: z.object({
    item_id: z.string(),
    name: z.string(),
    coverage: z.enum(['manufacturer_warranty', 'kestrel_shield', 'elite_diagnostic', 'paid_diagnostic']),
    repair_covered: z.boolean(),
    diagnostic_fee_cents: z.number().int(),
    diagnostic_fee_display: z.string(),
    reason: z.string(),
    warranty_ends_on: z.string(),
    warranty_ends_spoken: z.string(),
    plan_level: z.string().nullable(),
    script: z.string(),
  }),
  effect: 'read',
  writes: ['call_session'],
  gate: 'verified',
  normalize: (raw) => normalizeFields(raw, { item_id: readCode, issue: readEnum(ISSUE_ALIASES) }),
  run(args, ctx) {
    const c = verifiedCustomer(ctx);
    const found = ladderFor(ctx, c.id, args.item_id, args.issue);
    if (isRefusal(found)) return found;
    const { rung, plan } = found;
    if (rung.coverage === 'recall_stop') return refuse('RECALL_STOP', { recoverable: false, script: RECALL_SCRIPT });
    if (rung.coverage === 'battery_hazard_stop') return refuse('BATTERY_HAZARD_STOP', { recoverable: false, script: BATTERY_SCRIPT });
    return ok({
      item_id: found.item.id,
      name: found.product.name,
      coverage: rung.coverage,
      repair_covered: rung.coverage === 'manufacturer_warranty' || rung.coverage === 'kestrel_shield',
      diagnostic_fee_cents: rung.diagnostic_fee_cents,
      diagnostic_fee_display: moneyDisplay(rung.diagnostic_fee_cents),
      reason: rung.reason,
      warranty_ends_on: rung.warranty_ends_on,
      warranty_ends_spoken: ctx.clock.spokenDate(rung.warranty_ends_on),
      plan_level: plan?.level ?? null,
      script: coverageScript(rung.coverage, rung.diagnostic_fee_cents, plan ? (PLAN_NAMES[plan.level] ?? null) : null),
    });
  },
});

export const findBenchSlots = defineTool({
  name: 'find_bench_slots',
  description:
    'Use when: a verified caller wants a Tech Bench appointment at a store; give the store and, if they named one, the earliest date. Returns: the first open slots, up to three, with ids and spoken times. Do not use for: stores without a Tech Bench. Errors: NOT_VERIFIED, NO_BENCH_AT_STORE, DATE_IN_PAST, BEYOND_HORIZON.',
  input: z.object({ store_id: storeField, earliest_date: dateField.optional().describe('First day the caller can come in, YYYY-MM-DD; today when left out.') }),
  output: z.object({ store: z.string(), slots: z.array(z.object({ slot_id: z.string(), starts_at: z.string(), spoken: z.string() })) }),
  effect: 'read',
  writes: ['call_session'],
  gate: 'verified',
  normalize: (raw) => normalizeFields(raw, { store_id: readStore, earliest_date: readDate }),
  run(args, ctx) {
    const store = storeById(ctx.db).get({ id: args.store_id });
    if (!store || store.has_bench !== 1) return refuse('NO_BENCH_AT_STORE', { recoverable: true });
    const today = ctx.clock.today();
    const from = args.earliest_date ?? today;
    if (from < today) return refuse('DATE_IN_PAST', { recoverable: true });
    if (daysBetween(today, from) > policy.bench_search_horizon_days) return refuse('BEYOND_HORIZON', { recoverable: true, horizon_days: policy.bench_search_horizon_days, last_day_spoken: ctx.clock.spokenDate(ctx.clock.addDays(today, policy.bench_search_horizon_days)) });
    const after = from === today ? ctx.clock.now() : `${from}T00:00`;
    const slots = openSlotsAfter(ctx.db).all({ store: store.id, after });
    return ok({ store: store.name, slots: slots.map((s) => ({ slot_id: s.id, starts_at: s.starts_at, spoken: ctx.clock.spokenDateTime(s.starts_at) })) });
  },
});

function feeAckScript(fee: number): string {
  return `The Tech Bench diagnostic for this costs ${moneyInWords(fee)}, paid when you drop the device off. Do you want to book it?`;
}

export const bookServiceAppointment = defineTool({
  name: 'book_service_appointment',
  description:
    'Use when: the caller chose a slot from find_bench_slots for an item and issue already checked with check_coverage. Charges the diagnostic fee from the coverage result; pass fee_acknowledged true only after the caller accepts a quoted fee. Returns: the appointment, store, time and fee; idempotent on repeats. Do not use for: recalled items or swelling batteries. Errors: NOT_VERIFIED, ITEM_NOT_FOUND, ORDER_NOT_DELIVERED, RECALL_STOP, BATTERY_HAZARD_STOP, SLOT_NOT_FOUND, SLOT_TAKEN, ACK_REQUIRED.',
  input: z.object({
    slot_id: slotIdField,
    item_id: itemIdField,
    issue: z.enum(ISSUES),
    fee_acknowledged: z.boolean().optional().describe('True once the caller accepted a diagnostic fee.'),
  }),
  output: z.object({
    appointment_id: z.string(),
    store: z.string(),
    starts_at: z.string(),
    spoken: z.string(),
    coverage: z.string(),
    diagnostic_fee_cents: z.number().int(),
    diagnostic_fee_display: z.string(),
    idempotent: z.boolean(),
  }),
  effect: 'write',
  writes: ['service_appointments', 'bench_slots', 'call_session'],
  gate: 'verified',
  normalize: (raw) => normalizeFields(raw, { slot_id: readCode, item_id: readCode, issue: readEnum(ISSUE_ALIASES), fee_acknowledged: readBool }),
  run(args, ctx) {
    const c = verifiedCustomer(ctx);
    const found = ladderFor(ctx, c.id, args.item_id, args.issue);
    if (isRefusal(found)) return found;
    const { rung } = found;
    if (rung.coverage === 'recall_stop') return refuse('RECALL_STOP', { recoverable: false, script: RECALL_SCRIPT });
    if (rung.coverage === 'battery_hazard_stop') return refuse('BATTERY_HAZARD_STOP', { recoverable: false, script: BATTERY_SCRIPT });
    const slot = slotById(ctx.db).get({ id: args.slot_id });
    if (!slot || slot.starts_at <= ctx.clock.now()) return refuse('SLOT_NOT_FOUND', { recoverable: true });
    const id = `svc_${slot.id.slice(3)}`;
    const existing = appointmentById(ctx.db).get({ id });
    const store = storeNamed(ctx.db, slot.store_id);
    const out = (fee: number, coverage: string, idempotent: boolean) =>
      ok({ appointment_id: id, store, starts_at: slot.starts_at, spoken: ctx.clock.spokenDateTime(slot.starts_at), coverage, diagnostic_fee_cents: fee, diagnostic_fee_display: moneyDisplay(fee), idempotent });
    if (existing?.status === 'booked' && existing.customer_id === c.id && existing.order_item_id === found.item.id) return out(existing.diagnostic_fee_cents, existing.coverage, true);
    if (slot.status !== 'open') return refuse('SLOT_TAKEN', { recoverable: true });
    const fee = rung.diagnostic_fee_cents;
    if (fee > 0 && args.fee_acknowledged !== true) return refuse('ACK_REQUIRED', { recoverable: true, script: feeAckScript(fee) });
    if (existing) rebookAppointment(ctx.db).run({ item: found.item.id, issue: args.issue, coverage: rung.coverage, fee, id });
    else insertAppointment(ctx.db).run({ id, customer_id: c.id, order_item_id: found.item.id, store_id: slot.store_id, slot_id: slot.id, starts_at: slot.starts_at, issue: args.issue, coverage: rung.coverage, diagnostic_fee_cents: fee, status: 'booked', created_at: ctx.clock.now() });
    setSlotStatus(ctx.db).run({ status: 'booked', id: slot.id });
    return out(fee, rung.coverage, false);
  },
});

export const cancelServiceAppointment = defineTool({
  name: 'cancel_service_appointment',
  description:
    'Use when: a verified caller wants to cancel a booked Tech Bench appointment; one step and free, since the diagnostic fee is only paid at drop off. Returns: the cancelled appointment; idempotent on repeats. Do not use for: moving an appointment without the caller choosing a new slot. Errors: NOT_VERIFIED, APPOINTMENT_NOT_FOUND, APPOINTMENT_NOT_ACTIVE.',
  input: z.object({ appointment_id: appointmentIdField }),
  output: z.object({ appointment_id: z.string(), status: z.literal('cancelled'), store: z.string(), spoken: z.string(), idempotent: z.boolean() }),
  effect: 'write',
  writes: ['service_appointments', 'bench_slots', 'call_session'],
  gate: 'verified',
  normalize: (raw) => normalizeFields(raw, { appointment_id: readAppointmentId }),
  run(args, ctx) {
    const c = verifiedCustomer(ctx);
    const appt = appointmentById(ctx.db).get({ id: args.appointment_id });
    if (!appt || appt.customer_id !== c.id) return refuse('APPOINTMENT_NOT_FOUND', { recoverable: true });
    const already = appt.status === 'cancelled';
    if (!already && appt.starts_at <= ctx.clock.now()) return refuse('APPOINTMENT_NOT_ACTIVE', { recoverable: false });
    if (!already) {
      setAppointmentStatus(ctx.db).run({ status: 'cancelled', id: appt.id });
      setSlotStatus(ctx.db).run({ status: 'open', id: appt.slot_id });
    }
    return ok({ appointment_id: appt.id, status: 'cancelled' as const, store: storeNamed(ctx.db, appt.store_id), spoken: ctx.clock.spokenDateTime(appt.starts_at), idempotent: already });
  },
});
