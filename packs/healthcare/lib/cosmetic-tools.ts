import { and, eq } from 'drizzle-orm';
import { z } from 'zod';
import { checkHold, defineTool, markHoldUsed, moneyInWords, normalizeFields, numberInWords, ok, openHold, param, pinSubject, preparedQuery, refuse, setSessionFlags } from '../../../src/packs/index.ts';
import { charges } from '../schema.ts';
import { insertCharge, insertPaymentLink, paymentLinkById } from './billing-tools.ts';
import { bookOpening, describeSlot, isRefusal, usableOpening } from './booking.ts';
import { dateField, moneyDisplay, openingIdField, personNameField, phoneField, readBool, readCode, readDate, readEnum, readName, readPhone, tokenField } from './fields.ts';
import { AGE_LIMITED_SERVICES, COSMETIC_ALIASES, COSMETIC_NAMES, COSMETIC_SERVICES, policy, type CosmeticService } from './policy.ts';
import { addMinutes, ageOn, findPatients, locationName, maskPhone, officesFor, patientIdFor, pinnedPatient, verifiedPatient, visitType } from './records.ts';
import { insertPatient } from './scheduling-tools.ts';

/** Cosmetic desk: price ranges, the two-step consult hold with its deposit, and the deposit link. */

const openDepositsOf = preparedQuery((db) =>
  db
    .select()
    .from(charges)
    .where(and(eq(charges.patient_id, param('patient')), eq(charges.kind, 'cosmetic_deposit'), eq(charges.status, 'open')))
    .prepare(),
);

const serviceField = z.enum(COSMETIC_SERVICES).describe('"Botox" or "Dysport" is wrinkle_relaxer; "lip filler" or "Juvederm" is filler.');

const UNITS: Readonly<Record<CosmeticService, string>> = {
  wrinkle_relaxer: 'per treatment area',
  filler: 'per syringe',
  chemical_peel: 'per peel',
  laser_hair_removal: 'per treatment',
  microneedling: 'per session',
};

function priceRange(service: CosmeticService): [number, number] {
  const table: Readonly<Record<CosmeticService, [number, number]>> = {
    wrinkle_relaxer: [policy.wrinkle_relaxer_low_cents, policy.wrinkle_relaxer_high_cents],
    filler: [policy.filler_low_cents, policy.filler_high_cents],
    chemical_peel: [policy.chemical_peel_low_cents, policy.chemical_peel_high_cents],
    laser_hair_removal: [policy.laser_hair_removal_low_cents, policy.laser_hair_removal_high_cents],
    microneedling: [policy.microneedling_low_cents, policy.microneedling_high_cents],
  };
  return table[service];
}

const DEPOSIT_SCRIPT = `The consult has a deposit of ${moneyInWords(policy.cosmetic_deposit_cents)}. It is credited to any treatment you have on the same day. If you cancel with less than ${numberInWords(policy.cosmetic_forfeit_notice_hours)} hours notice, the deposit is not refunded. Do you agree to these terms?`;

export const quoteCosmeticPrice = defineTool({
  name: 'quote_cosmetic_price',
  description:
    'Use when: a caller asks what a cosmetic treatment costs. Returns: the low and high price in cents with displays and unit, where it is offered, the consult deposit, any age limit, and a script. The only source of cosmetic prices. Do not use for: medical visit costs. Errors: none.',
  input: z.object({ service: serviceField }),
  output: z.object({
    service: z.string(),
    service_name: z.string(),
    low_cents: z.number().int(),
    high_cents: z.number().int(),
    low_display: z.string(),
    high_display: z.string(),
    unit: z.string(),
    offered_at: z.array(z.string()),
    deposit_cents: z.number().int(),
    deposit_display: z.string(),
    min_age_years: z.number().int().nullable(),
    script: z.string(),
  }),
  effect: 'read',
  writes: [],
  normalize: (raw) => normalizeFields(raw, { service: readEnum(COSMETIC_ALIASES) }),
  run(args, ctx) {
    const [low, high] = priceRange(args.service);
    const consult = visitType(ctx.db, 'cosmetic_consult');
    return ok({
      service: args.service,
      service_name: COSMETIC_NAMES[args.service],
      low_cents: low,
      high_cents: high,
      low_display: moneyDisplay(low),
      high_display: moneyDisplay(high),
      unit: UNITS[args.service],
      offered_at: consult ? officesFor(ctx.db, consult).map((id) => locationName(ctx.db, id) ?? id) : [],
      deposit_cents: policy.cosmetic_deposit_cents,
      deposit_display: moneyDisplay(policy.cosmetic_deposit_cents),
      min_age_years: AGE_LIMITED_SERVICES.includes(args.service) ? policy.cosmetic_injectable_min_age_years : null,
      script: 'Prices are a range. Your provider sets the final price at your consult.',
    });
  },
});

const holdPayload = z.object({
  opening_id: z.string(),
  service: z.enum(COSMETIC_SERVICES),
  patient_id: z.string().nullable(),
  new_patient: z.object({ full_name: z.string(), date_of_birth: z.string(), mobile_phone: z.string() }).nullable(),
});

export const holdCosmeticConsult = defineTool({
  name: 'hold_cosmetic_consult',
  description:
    'Use when: a caller picked a cosmetic consult opening from find_openings. A caller not yet identified on this call gives full name, date of birth and mobile. Returns: a token, the time, the deposit and the policy script to read word for word. Writes nothing. Do not use for: medical visits. Errors: NEED_CALLER_DETAILS, PATIENT_EXISTS, AGE_RESTRICTED, OPENING_NOT_FOUND, OPENING_TAKEN, OPENING_NOT_SUITABLE.',
  input: z.object({
    opening_id: openingIdField,
    service: serviceField,
    full_name: personNameField.optional(),
    date_of_birth: dateField.optional(),
    mobile_phone: phoneField.optional(),
  }),
  output: z.object({
    token: z.string(),
    service_name: z.string(),
    starts_at: z.string(),
    spoken: z.string(),
    office: z.string(),
    provider: z.string(),
    deposit_cents: z.number().int(),
    deposit_display: z.string(),
    summary: z.string(),
    script: z.string(),
  }),
  effect: 'read',
  writes: ['holds', 'call_session'],
  normalize: (raw) => normalizeFields(raw, { opening_id: readCode, service: readEnum(COSMETIC_ALIASES), full_name: readName, date_of_birth: readDate, mobile_phone: readPhone }),
  run(args, ctx) {
    const patient = pinnedPatient(ctx);
    let birth = patient?.date_of_birth;
    let fresh: z.infer<typeof holdPayload>['new_patient'] = null;
    if (!patient) {
      if (!args.full_name || !args.date_of_birth || !args.mobile_phone) return refuse('NEED_CALLER_DETAILS', { recoverable: true });
      if (findPatients(ctx.db, args.full_name, args.date_of_birth).length) return refuse('PATIENT_EXISTS', { recoverable: false });
      fresh = { full_name: args.full_name, date_of_birth: args.date_of_birth, mobile_phone: args.mobile_phone };
      birth = args.date_of_birth;
    }
    const age = ageOn(birth ?? ctx.clock.today(), ctx.clock.today());
    if (AGE_LIMITED_SERVICES.includes(args.service) && age < policy.cosmetic_injectable_min_age_years) {
      return refuse('AGE_RESTRICTED', { recoverable: false, age_years: age, min_age_years: policy.cosmetic_injectable_min_age_years });
    }
    const type = visitType(ctx.db, 'cosmetic_consult');
    if (!type) return refuse('OPENING_NOT_SUITABLE', { recoverable: true });
    const opening = usableOpening(ctx, args.opening_id, type);
    if (isRefusal(opening)) return opening;
    const subjectKey = patient?.id ?? patientIdFor(fresh?.full_name ?? '', fresh?.date_of_birth ?? '');
    const token = openHold(ctx, { kind: 'cosmetic_consult', target: subjectKey, payload: { opening_id: opening.id, service: args.service, patient_id: patient?.id ?? null, new_patient: fresh } });
    const slot = describeSlot(ctx, opening);
    return ok({
      token,
      service_name: COSMETIC_NAMES[args.service],
      ...slot,
      deposit_cents: policy.cosmetic_deposit_cents,
      deposit_display: moneyDisplay(policy.cosmetic_deposit_cents),
      summary: `A ${COSMETIC_NAMES[args.service]} consult on ${slot.spoken} at ${slot.office} with ${slot.provider}.`,
      script: DEPOSIT_SCRIPT,
    });
  },
});

export const confirmCosmeticConsult = defineTool({
  name: 'confirm_cosmetic_consult',
  description:
    'Use when: the caller agreed to the deposit terms you read from hold_cosmetic_consult; pass policy_acknowledged true. Returns: the booked consult and the deposit now due; a new caller is registered and identified for the rest of the call. Do not use for: an unheld time. Errors: TOKEN_UNKNOWN, TOKEN_WRONG_KIND, TOKEN_WRONG_OWNER, TOKEN_USED, TOKEN_SUPERSEDED, ACK_REQUIRED, OPENING_TAKEN, OPENING_NOT_SUITABLE, PATIENT_EXISTS, NOT_VERIFIED.',
  input: z.object({ token: tokenField, policy_acknowledged: z.boolean().describe('True once the caller agreed to the deposit terms.') }),
  output: z.object({ appointment_id: z.string(), spoken: z.string(), office: z.string(), provider: z.string(), deposit_cents: z.number().int(), deposit_display: z.string(), deposit_status: z.literal('due'), registered: z.boolean() }),
  effect: 'write',
  writes: ['patients', 'appointments', 'openings', 'charges', 'holds', 'call_session'],
  confirms: 'hold_cosmetic_consult',
  normalize: (raw) => normalizeFields(raw, { policy_acknowledged: readBool }),
  run(args, ctx) {
    const held = checkHold(ctx, args.token, 'cosmetic_consult', holdPayload);
    if (isRefusal(held)) return held;
    if (args.policy_acknowledged !== true) return refuse('ACK_REQUIRED', { recoverable: true, script: DEPOSIT_SCRIPT });
    const p = held.payload;
    const type = visitType(ctx.db, 'cosmetic_consult');
    if (!type) return refuse('OPENING_NOT_SUITABLE', { recoverable: true });
    const opening = usableOpening(ctx, p.opening_id, type);
    if (isRefusal(opening)) return opening;
    let patient = p.patient_id ? pinnedPatient(ctx) : undefined;
    if (p.new_patient) {
      const n = p.new_patient;
      if (findPatients(ctx.db, n.full_name, n.date_of_birth).length) return refuse('PATIENT_EXISTS', { recoverable: false });
      const id = patientIdFor(n.full_name, n.date_of_birth);
      insertPatient(ctx.db).run({ id, full_name: n.full_name, date_of_birth: n.date_of_birth, zip_code: null, mobile_phone: n.mobile_phone, email: null, home_location_id: opening.location_id, carrier: null, member_id: null, portal_status: 'none', created_at: ctx.clock.now() });
      pinSubject(ctx.db, { kind: 'patient', id, method: 'registered', gate: 'verified' });
      setSessionFlags(ctx.db, { caller_role: 'self' });
      patient = pinnedPatient(ctx);
    }
    if (!patient) return refuse('NOT_VERIFIED');
    const row = bookOpening(ctx, patient, opening, type);
    const date = row.starts_at.slice(0, 10);
    insertCharge(ctx.db).run({ id: `chg_deposit_${row.id.slice(4)}`, patient_id: patient.id, kind: 'cosmetic_deposit', service_date: date, posted_on: ctx.clock.today(), amount_cents: policy.cosmetic_deposit_cents, status: 'open', appointment_id: row.id, review_state: 'none', created_at: ctx.clock.now() });
    markHoldUsed(ctx.db, held.token);
    const slot = describeSlot(ctx, row);
    return ok({ appointment_id: row.id, spoken: slot.spoken, office: slot.office, provider: slot.provider, deposit_cents: policy.cosmetic_deposit_cents, deposit_display: moneyDisplay(policy.cosmetic_deposit_cents), deposit_status: 'due' as const, registered: p.new_patient !== null });
  },
});

export const sendDepositLink = defineTool({
  name: 'send_deposit_link',
  description:
    'Use when: a consult was just booked or a caller on this call owes a consult deposit and wants the payment link texted to the mobile on file. Returns: the amount, the masked number and when the link expires; idempotent on repeats. Do not use for: balances from medical visits. Errors: NOT_VERIFIED, NO_DEPOSIT_DUE, NO_MOBILE_ON_FILE.',
  input: z.object({}),
  output: z.object({ amount_cents: z.number().int(), amount_display: z.string(), sent_to: z.string(), expires_at: z.string(), expires_spoken: z.string(), idempotent: z.boolean() }),
  effect: 'write',
  writes: ['payment_links', 'call_session'],
  gate: 'verified',
  run(_args, ctx) {
    const patient = verifiedPatient(ctx);
    const due = openDepositsOf(ctx.db).all({ patient: patient.id });
    const charge = due.sort((a, b) => (a.id < b.id ? -1 : 1))[0];
    if (!charge) return refuse('NO_DEPOSIT_DUE', { recoverable: false });
    if (!patient.mobile_phone) return refuse('NO_MOBILE_ON_FILE', { recoverable: false });
    const id = `plink_${charge.id.slice(4)}`;
    const expires = addMinutes(ctx.clock, ctx.clock.now(), policy.payment_link_valid_hours * 60);
    const existing = paymentLinkById(ctx.db).get({ id });
    if (!existing) insertPaymentLink(ctx.db).run({ id, patient_id: patient.id, purpose: 'cosmetic_deposit', amount_cents: charge.amount_cents, sent_to: patient.mobile_phone, expires_at: expires, created_at: ctx.clock.now() });
    return ok({ amount_cents: charge.amount_cents, amount_display: moneyDisplay(charge.amount_cents), sent_to: maskPhone(patient.mobile_phone) ?? '', expires_at: expires, expires_spoken: ctx.clock.spokenDateTime(expires), idempotent: existing !== undefined });
  },
});
