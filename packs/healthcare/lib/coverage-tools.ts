import { and, eq } from 'drizzle-orm';
import { z } from 'zod';
import { defineTool, normalizeFields, ok, param, preparedQuery, refuse, type PackDb } from '../../../src/packs/index.ts';
import { patients, planBenefits, planContracts } from '../schema.ts';
import { carrierField, locationField, memberIdField, moneyDisplay, readCarrier, readCode, readLocation, readMemberId, visitTypeField } from './fields.ts';
import { CARRIER_NAMES, type Carrier } from './policy.ts';
import { locationName, verifiedPatient, visitType } from './records.ts';

/** Coverage desk: plan acceptance per office, copays, insurance updates. */

const inNetworkContracts = preparedQuery((db) =>
  db.select().from(planContracts).where(and(eq(planContracts.carrier, param('carrier')), eq(planContracts.status, 'in_network'))).prepare(),
);
const benefitFor = preparedQuery((db) =>
  db.select().from(planBenefits).where(and(eq(planBenefits.carrier, param('carrier')), eq(planBenefits.visit_type, param('visit_type')))).prepare(),
);
const setInsurance = preparedQuery((db) =>
  db.update(patients).set({ carrier: param('carrier'), member_id: param('member_id') }).where(eq(patients.id, param('id'))).prepare(),
);

const officeOut = z.object({ location_id: z.string(), name: z.string() });

function acceptedAt(db: PackDb, carrier: string): { location_id: string; name: string }[] {
  return inNetworkContracts(db)
    .all({ carrier })
    .map((r) => ({ location_id: r.location_id, name: locationName(db, r.location_id) ?? r.location_id }))
    .sort((a, b) => (a.location_id < b.location_id ? -1 : 1));
}

function cannotConfirmScript(office: string): string {
  return `I am not able to confirm that plan. Please call the member services number on the back of your insurance card and ask whether Straus Dermatology at ${office} is in network.`;
}

export const checkPlanAccepted = defineTool({
  name: 'check_plan_accepted',
  description:
    'Use when: anyone asks whether an insurance plan is accepted at a specific office. Returns: status accepted, not_accepted with the offices that do accept it, or cannot_confirm with a script to read. No verification needed. Do not use for: copays, which need check_benefits. Errors: none.',
  input: z.object({ carrier: carrierField, location_id: locationField }),
  output: z.object({
    carrier: z.string(),
    carrier_name: z.string(),
    location_id: z.string(),
    office: z.string(),
    status: z.enum(['accepted', 'not_accepted', 'cannot_confirm']),
    accepted_at: z.array(officeOut),
    script: z.string().nullable(),
  }),
  effect: 'read',
  writes: [],
  normalize: (raw) => normalizeFields(raw, { carrier: readCarrier, location_id: readLocation }),
  run(args, ctx) {
    const offices = acceptedAt(ctx.db, args.carrier);
    const office = locationName(ctx.db, args.location_id) ?? args.location_id;
    const status: 'accepted' | 'not_accepted' | 'cannot_confirm' = offices.length === 0 ? 'cannot_confirm' : offices.some((o) => o.location_id === args.location_id) ? 'accepted' : 'not_accepted';
    return ok({
      carrier: args.carrier,
      carrier_name: CARRIER_NAMES[args.carrier],
      location_id: args.location_id,
      office,
      status,
      accepted_at: offices,
      script: status === 'cannot_confirm' ? cannotConfirmScript(office) : null,
    });
  },
});

export const checkBenefits = defineTool({
  name: 'check_benefits',
  description:
    'Use when: a verified patient asks what a visit type would cost under the insurance on file at an office. Returns: network status, the copay in cents with its display and reason, the member id last four, and an estimate script. Do not use for: checking a plan for someone not verified. Errors: NOT_VERIFIED, NO_INSURANCE_ON_FILE.',
  input: z.object({ visit_type: visitTypeField, location_id: locationField }),
  output: z.object({
    carrier_name: z.string(),
    member_id_last4: z.string(),
    visit_type: z.string(),
    office: z.string(),
    network_status: z.enum(['in_network', 'out_of_network', 'cannot_confirm', 'not_covered']),
    copay_cents: z.number().int().nullable(),
    copay_display: z.string().nullable(),
    copay_reason: z.string(),
    accepted_at: z.array(officeOut),
    script: z.string(),
  }),
  effect: 'read',
  writes: ['call_session'],
  gate: 'verified',
  normalize: (raw) => normalizeFields(raw, { visit_type: readCode, location_id: readLocation }),
  run(args, ctx) {
    const patient = verifiedPatient(ctx);
    if (!patient.carrier) return refuse('NO_INSURANCE_ON_FILE', { recoverable: false, script: 'There is no insurance on your record, so the visit would be billed at our self-pay rate. Our billing team can give you that price.' });
    const carrier = patient.carrier as Carrier;
    const office = locationName(ctx.db, args.location_id) ?? args.location_id;
    const offices = acceptedAt(ctx.db, carrier);
    const type = visitType(ctx.db, args.visit_type);
    const benefit = benefitFor(ctx.db).get({ carrier, visit_type: args.visit_type });
    const base = { carrier_name: CARRIER_NAMES[carrier], member_id_last4: (patient.member_id ?? '').slice(-4), visit_type: args.visit_type, office, accepted_at: offices };
    const estimate = 'This is an estimate from the plan on file. Your insurance company makes the final decision on what it pays.';
    if (offices.length === 0) return ok({ ...base, network_status: 'cannot_confirm' as const, copay_cents: null, copay_display: null, copay_reason: 'plan not in our contract list', script: cannotConfirmScript(office) });
    if (!offices.some((o) => o.location_id === args.location_id)) {
      const names = offices.map((o) => o.name).join(', ');
      return ok({ ...base, network_status: 'out_of_network' as const, copay_cents: null, copay_display: null, copay_reason: `${CARRIER_NAMES[carrier]} is not in network at ${office}`, script: `Your plan is not in network at ${office}. It is in network at ${names}. Out of network visits may cost much more.` });
    }
    if (!benefit || benefit.covered === 0) {
      return ok({ ...base, network_status: 'not_covered' as const, copay_cents: null, copay_display: null, copay_reason: 'cosmetic care is not covered by insurance', script: 'Cosmetic visits are not covered by insurance and are paid directly.' });
    }
    return ok({
      ...base,
      network_status: 'in_network' as const,
      copay_cents: benefit.copay_cents,
      copay_display: moneyDisplay(benefit.copay_cents),
      copay_reason: `${CARRIER_NAMES[carrier]} copay for a ${type?.display_name ?? args.visit_type}`,
      script: estimate,
    });
  },
});

export const updateInsurance = defineTool({
  name: 'update_insurance',
  description:
    'Use when: a verified patient has a new insurance carrier or member id; read both back first. Returns: the carrier and member id last four now on file, and whether the plan is accepted at their home office. Do not use for: checking acceptance without a change. Errors: NOT_VERIFIED, CARRIER_UNKNOWN.',
  input: z.object({ carrier: carrierField, member_id: memberIdField.describe('Member id from the card, letters and digits.') }),
  output: z.object({ carrier_name: z.string(), member_id_last4: z.string(), home_office: z.string().nullable(), accepted_at_home_office: z.boolean().nullable(), idempotent: z.boolean() }),
  effect: 'write',
  writes: ['patients', 'call_session'],
  gate: 'verified',
  normalize: (raw) => normalizeFields(raw, { carrier: readCarrier, member_id: readMemberId }),
  run(args, ctx) {
    const patient = verifiedPatient(ctx);
    if (args.carrier === 'other') return refuse('CARRIER_UNKNOWN', { recoverable: true });
    const same = patient.carrier === args.carrier && patient.member_id === args.member_id;
    if (!same) setInsurance(ctx.db).run({ carrier: args.carrier, member_id: args.member_id, id: patient.id });
    const offices = acceptedAt(ctx.db, args.carrier);
    return ok({
      carrier_name: CARRIER_NAMES[args.carrier],
      member_id_last4: args.member_id.slice(-4),
      home_office: locationName(ctx.db, patient.home_location_id),
      accepted_at_home_office: patient.home_location_id ? offices.some((o) => o.location_id === patient.home_location_id) : null,
      idempotent: same,
    });
  },
});
