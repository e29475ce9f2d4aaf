import { eq } from 'drizzle-orm';
import { z } from 'zod';
import { defineTool, moneyInWords, normalizeFields, numberInWords, ok, param, preparedQuery, refuse } from '../../../src/packs/index.ts';
import { policies, stores } from '../schema.ts';
import { readEnum, readStore, storeField } from './fields.ts';
import { policy, POLICY_TOPIC_ALIASES, POLICY_TOPICS, STORE_IDS, type PolicyTopic } from './policy.ts';

/** Reception's public tools. */

const allStores = preparedQuery((db) => db.select().from(stores).orderBy(stores.id).prepare());
const policyByTopic = preparedQuery((db) => db.select().from(policies).where(eq(policies.topic, param('topic'))).prepare());

export const listStores = defineTool({
  name: 'list_stores',
  description:
    'Use when: a caller asks for a store address, phone, hours, or which stores have a Tech Bench for repairs. Returns: stores keyed by store_id, every store or only the one asked about, each with its facts and has_bench. Do not use for: repair times or order questions. Errors: none.',
  input: z.object({ store_id: storeField.optional() }),
  // Keyed by store id, so a task grades the store the caller asked about whether the agent filtered
  // to it or listed every store (issue 18 defect 5): `{stores: {st_oak_park: {weekend_hours}}}`.
  output: z.object({
    stores: z.partialRecord(z.enum(STORE_IDS), z.object({ name: z.string(), address: z.string(), phone: z.string(), weekday_hours: z.string(), weekend_hours: z.string(), has_bench: z.boolean() })),
  }),
  effect: 'read',
  writes: [],
  normalize: (raw) => normalizeFields(raw, { store_id: readStore }),
  run(args, ctx) {
    const rows = allStores(ctx.db).all().filter((s) => !args.store_id || s.id === args.store_id);
    return ok({
      stores: Object.fromEntries(
        rows.map((s) => [s.id, { name: s.name, address: s.address, phone: s.store_phone, weekday_hours: s.weekday_hours, weekend_hours: s.weekend_hours, has_bench: s.has_bench === 1 }]),
      ),
    });
  },
});

const p = policy;
const money = moneyInWords;
const n = numberInWords;

/** The words of each policy, built from the policy numbers so they cannot drift. */
const POLICY_TEXT: Readonly<Partial<Record<PolicyTopic, string>>> = {
  returns: `Most items can be returned within ${n(p.return_window_standard_days)} days of delivery, ${n(p.return_window_circle_days)} days for Kestrel Circle members and ${n(p.return_window_elite_days)} days for Circle Elite members. Phones, cellular tablets and watches have ${n(p.return_window_activatable_days)} days for everyone.`,
  restocking: `An opened phone, cellular tablet or watch has a restocking fee of ${money(p.restocking_activatable_fee_cents)}. Opened drones, cameras, projectors and special orders have a fee of ${n(p.restocking_percent)} percent of the price paid. There is no fee when an item is reported defective inside its window, and none for Circle Elite members.`,
  delivery_changes: `A delivery window can be changed for free more than ${n(p.delivery_fee_within_hours)} hours before it starts. Within ${n(p.delivery_fee_within_hours)} hours the change costs ${money(p.delivery_change_fee_cents)}, and on the day of delivery it cannot be changed.`,
  order_cancellation: 'An order can be cancelled for free until it ships. After it ships, it can be returned once it arrives.',
  price_protection: `If Kestrel lowers its own price within ${n(p.price_protection_standard_days)} days of delivery, or ${n(p.price_protection_elite_days)} days for Circle Elite members, we refund the difference once per item. Open box, clearance and marketplace items are excluded.`,
  repairs_and_warranty: `Products have a manufacturer warranty for ${n(p.warranty_months)} months from delivery. After that, a Kestrel Shield plan may cover the repair. Circle Elite members get a free diagnostic; otherwise a Tech Bench diagnostic costs ${money(p.bench_diagnostic_fee_cents)}. Recalled products and swelling batteries are never booked in as repairs.`,
  kestrel_shield: `Kestrel Shield plans run ${p.shield_plan_years.map(n).join(' or ')} years on a single item. Accidental damage such as drops, cracked screens and spills is covered only on Shield Plus.`,
  membership: `Kestrel Circle costs ${money(p.circle_price_cents)} a year and Circle Elite ${money(p.elite_price_cents)}. An upgrade is charged for the whole months left in the year. A cancellation refunds the unused whole months, or the full price within ${n(p.membership_full_refund_days)} days of joining.`,
  marketplace_items: 'Items sold by marketplace sellers follow the seller\'s own return policy, and the seller handles the return.',
  battery_safety: 'Power banks and other items with large lithium batteries are returned at a Kestrel store, never by mail. If a battery is swelling, stop using and charging the device, keep it away from anything that can burn, and bring it to a store in a non-flammable container.',
  scam_warning: 'Kestrel never asks for gift cards, remote access to your computer, or card numbers over the phone. We only call about scheduling a delivery or to say a repair is ready.',
};

const NOT_ON_FILE_SCRIPT = 'Kestrel does not offer that, so there is no policy I can read you. I can help with returns, deliveries, repairs, price protection or membership.';

export const explainPolicy = defineTool({
  name: 'explain_policy',
  description:
    'Use when: a caller asks how a Kestrel policy works in general: returns, restocking, delivery changes, cancellations, price protection, repairs, Shield plans, membership, marketplace items, battery safety or scams. Returns: the policy text with its numbers in script, read word for word. Do not use for: a decision on a specific order or item. Errors: NOT_ON_FILE.',
  input: z.object({ topic: z.enum(POLICY_TOPICS).describe('"Return policy" is returns; "price match" is competitor_price_match; "Shield" is kestrel_shield.') }),
  output: z.object({ topic: z.string(), script: z.string() }),
  effect: 'read',
  writes: [],
  normalize: (raw) => normalizeFields(raw, { topic: readEnum(POLICY_TOPIC_ALIASES) }),
  run(args, ctx) {
    const row = policyByTopic(ctx.db).get({ topic: args.topic });
    const text = POLICY_TEXT[args.topic];
    if (!row || row.status !== 'on_file' || !text) return refuse('NOT_ON_FILE', { recoverable: false, script: NOT_ON_FILE_SCRIPT });
    return ok({ topic: args.topic, script: text });
  },
});
