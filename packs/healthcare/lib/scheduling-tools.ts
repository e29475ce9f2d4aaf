import { z } from 'zod';
import { defineTool, normalizeFields, ok, pinSubject, refuse, rowById, rowInsert, setSessionFlags } from '../../../src/packs/index.ts';
import { guardians, patients, texts } from '../schema.ts';
import { bookOpening, describeSlot, earliestOpenings, existingBooking, isRefusal, ownAppointment, usableOpening, visitTypeOrRefuse } from './booking.ts';
import {
  appointmentIdField,
  carrierField,
  dateField,
  emailField,
  locationField,
  memberIdField,
  openingIdField,
  personNameField,
  phoneField,
  readCarrier,
  readCode,
  readDate,
  readEnum,
  readInt,
  readLocation,
  readMemberId,
  readName,
  readPhone,
  readZip,
  visitTypeField,
  zipField,
} from './fields.ts';
import { policy, VISIT_REASON_ALIASES, VISIT_REASONS, type VisitReason, type VisitType } from './policy.ts';
import { ageFits, ageOn, findPatients, locationName, maskPhone, officesFor, patientIdFor, qualifiedStaff, verifiedPatient, visitType } from './records.ts';

/** Scheduling desk: classify, search, register, book, confirmation texts. */

export const insertPatient = rowInsert(patients);
const insertGuardian = rowInsert(guardians);
const textById = rowById(texts);
const insertText = rowInsert(texts);

function classify(reason: VisitReason, status: 'new' | 'established', age: number | undefined): VisitType {
  if (reason === 'skin_cancer_surgery') return 'mohs_surgery';
  if (reason === 'allergy_patch_test') return 'patch_test';
  if (age !== undefined && age < 18) return 'pediatric_visit';
  if (status === 'new') return 'new_patient';
  return reason === 'full_skin_check' ? 'skin_exam' : 'follow_up';
}

export const classifyVisit = defineTool({
  name: 'classify_visit',
  description:
    'Use when: a caller describes why they want a medical visit; give whether they are new or established and, for a child, the age. Returns: the visit type, its length, who may do it and the offices that offer it. Do not use for: cosmetic treatments, which the cosmetic desk books. Errors: VISIT_TYPE_NOT_AT_LOCATION.',
  input: z.object({
    reason: z.enum(VISIT_REASONS).describe('"Mole check" is new_or_changing_mole; "skin check" is full_skin_check; "Mohs" is skin_cancer_surgery.'),
    patient_status: z.enum(['new', 'established']).describe('new when the patient has never been seen at Straus.'),
    patient_age_years: z.number().int().min(0).max(120).optional().describe('Age in years, when the patient is a child.'),
  }),
  output: z.object({
    visit_type: z.string(),
    visit_name: z.string(),
    duration_min: z.number().int(),
    requires: z.string(),
    offices: z.array(z.object({ location_id: z.string(), name: z.string() })),
  }),
  effect: 'read',
  writes: [],
  normalize: (raw) => normalizeFields(raw, { reason: readEnum(VISIT_REASON_ALIASES), patient_status: readCode, patient_age_years: readInt }),
  run(args, ctx) {
    const type = visitType(ctx.db, classify(args.reason, args.patient_status, args.patient_age_years));
    if (!type) return refuse('VISIT_TYPE_NOT_AT_LOCATION', { recoverable: true });
    const offices = officesFor(ctx.db, type).map((id) => ({ location_id: id, name: locationName(ctx.db, id) ?? id }));
    const requires = type.requires === 'general' ? (type.requires_md ? 'a doctor' : 'a doctor or physician assistant') : `a provider credentialed for ${type.display_name}`;
    return ok({ visit_type: type.id, visit_name: type.display_name, duration_min: type.duration_min, requires, offices });
  },
});

const openingOut = z.object({ opening_id: z.string(), starts_at: z.string(), spoken: z.string(), office: z.string(), provider: z.string(), duration_min: z.number().int() });

export const findOpenings = defineTool({
  name: 'find_openings',
  description:
    'Use when: the caller wants times for a visit type at one office, optionally from an earliest date and up to a latest date. Returns: up to three earliest real openings that fit the visit length and credential, with count 0 when none fall in the window. Do not use for: booking. Errors: VISIT_TYPE_NOT_AT_LOCATION, DATE_IN_PAST, INVALID_DATE_RANGE, BEYOND_HORIZON.',
  input: z.object({
    visit_type: visitTypeField,
    location_id: locationField,
    earliest_date: dateField.optional().describe('First day to search, YYYY-MM-DD; today when left out.'),
    latest_date: dateField.optional().describe('Last day the caller can come, YYYY-MM-DD.'),
  }),
  output: z.object({ visit_type: z.string(), location_id: z.string(), count: z.number().int(), openings: z.array(openingOut), searched_to: z.string(), searched_to_spoken: z.string() }),
  effect: 'read',
  writes: [],
  normalize: (raw) => normalizeFields(raw, { visit_type: readCode, location_id: readLocation, earliest_date: readDate, latest_date: readDate }),
  run(args, ctx) {
    const type = visitTypeOrRefuse(ctx, args.visit_type);
    if (isRefusal(type)) return type;
    const qualified = qualifiedStaff(ctx.db, type);
    const offered = officesFor(ctx.db, type, qualified);
    if (!offered.includes(args.location_id)) return refuse('VISIT_TYPE_NOT_AT_LOCATION', { recoverable: true, offered_at: offered });
    const today = ctx.clock.today();
    const from = args.earliest_date ?? today;
    const horizon = ctx.clock.addDays(today, policy.booking_horizon_days);
    if (from < today) return refuse('DATE_IN_PAST', { recoverable: true });
    if (from > horizon) return refuse('BEYOND_HORIZON', { recoverable: true, horizon_days: policy.booking_horizon_days, last_day_spoken: ctx.clock.spokenDate(horizon) });
    const to = args.latest_date && args.latest_date < horizon ? args.latest_date : horizon;
    if (to < from) return refuse('INVALID_DATE_RANGE', { recoverable: true });
    const found = earliestOpenings(ctx, type, qualified, { location: args.location_id, from, to });
    return ok({
      visit_type: type.id,
      location_id: args.location_id,
      count: found.length,
      openings: found.map((o) => ({ opening_id: o.id, ...describeSlot(ctx, o), duration_min: o.duration_min })),
      searched_to: to,
      searched_to_spoken: ctx.clock.spokenDate(to),
    });
  },
});

export const registerNewPatient = defineTool({
  name: 'register_new_patient',
  description:
    'Use when: a caller who has never been seen at Straus wants to book; read the details back first. For a patient under eighteen, the calling parent gives guardian_name. Returns: the new patient id; the call may then book for them. Do not use for: existing patients, who verify instead. Errors: PATIENT_EXISTS, GUARDIAN_REQUIRED, BIRTH_DATE_INVALID.',
  input: z.object({
    full_name: personNameField,
    date_of_birth: dateField,
    mobile_phone: phoneField.describe('Mobile number, E.164.'),
    zip_code: zipField,
    email: emailField.optional(),
    carrier: carrierField.optional(),
    member_id: memberIdField.optional().describe('Member id from the insurance card.'),
    guardian_name: personNameField.optional().describe('Parent or guardian registering a minor.'),
    guardian_relationship: z.enum(['mother', 'father', 'legal_guardian']).optional(),
  }),
  output: z.object({ patient_id: z.string(), first_name: z.string(), age_years: z.number().int(), idempotent: z.boolean() }),
  effect: 'write',
  writes: ['patients', 'guardians', 'call_session'],
  normalize: (raw) =>
    normalizeFields(raw, {
      full_name: readName,
      guardian_name: readName,
      date_of_birth: readDate,
      mobile_phone: readPhone,
      zip_code: readZip,
      carrier: readCarrier,
      member_id: readMemberId,
      guardian_relationship: readCode,
    }),
  run(args, ctx) {
    const today = ctx.clock.today();
    if (args.date_of_birth >= today) return refuse('BIRTH_DATE_INVALID', { recoverable: true });
    const id = patientIdFor(args.full_name, args.date_of_birth);
    const age = ageOn(args.date_of_birth, today);
    const first = args.full_name.split(' ')[0] ?? args.full_name;
    const existing = findPatients(ctx.db, args.full_name, args.date_of_birth);
    const mine = existing.find((p) => p.id === id && p.created_at === ctx.clock.now());
    if (existing.length && !mine) return refuse('PATIENT_EXISTS', { recoverable: false });
    if (age < 18 && !args.guardian_name) return refuse('GUARDIAN_REQUIRED', { recoverable: true });
    if (!mine) {
      insertPatient(ctx.db).run({
        id,
        full_name: args.full_name,
        date_of_birth: args.date_of_birth,
        zip_code: args.zip_code,
        mobile_phone: args.mobile_phone,
        email: args.email ?? null,
        home_location_id: null,
        carrier: args.carrier && args.carrier !== 'other' ? args.carrier : null,
        member_id: args.carrier && args.carrier !== 'other' ? (args.member_id ?? null) : null,
        portal_status: 'none',
        created_at: ctx.clock.now(),
      });
      if (age < 18 && args.guardian_name) {
        insertGuardian(ctx.db).run({ id: `gdn_${id.slice(4)}`, patient_id: id, guardian_name: args.guardian_name, relationship: args.guardian_relationship ?? 'legal_guardian' });
      }
    }
    pinSubject(ctx.db, { kind: 'patient', id, method: 'registered', gate: 'verified' });
    setSessionFlags(ctx.db, { caller_role: age < 18 ? 'parent_or_guardian' : 'self' });
    return ok({ patient_id: id, first_name: first, age_years: age, idempotent: mine !== undefined });
  },
});

export const bookVisit = defineTool({
  name: 'book_visit',
  description:
    'Use when: a verified or newly registered patient chose one opening from find_openings and you read it back. Returns: the appointment id, time, office, provider and arrival note; idempotent is true when this patient already holds it. Do not use for: cosmetic consults or changing a visit. Errors: NOT_VERIFIED, OPENING_NOT_FOUND, OPENING_TAKEN, OPENING_NOT_SUITABLE, AGE_NOT_ELIGIBLE, COSMETIC_DESK_ONLY.',
  input: z.object({ opening_id: openingIdField, visit_type: visitTypeField }),
  output: z.object({
    appointment_id: z.string(),
    visit_type: z.string(),
    starts_at: z.string(),
    spoken: z.string(),
    office: z.string(),
    provider: z.string(),
    idempotent: z.boolean(),
    script: z.string(),
  }),
  effect: 'write',
  writes: ['appointments', 'openings', 'patients', 'call_session'],
  gate: 'verified',
  normalize: (raw) => normalizeFields(raw, { opening_id: readCode, visit_type: readCode }),
  run(args, ctx) {
    const patient = verifiedPatient(ctx);
    if (args.visit_type === 'cosmetic_consult') return refuse('COSMETIC_DESK_ONLY', { recoverable: false });
    const type = visitTypeOrRefuse(ctx, args.visit_type);
    if (isRefusal(type)) return type;
    const script = 'Please arrive fifteen minutes early with your insurance card and a photo ID.';
    const held = existingBooking(ctx, patient.id, args.opening_id);
    if (held) return ok({ appointment_id: held.id, visit_type: held.visit_type, ...describeSlot(ctx, held), idempotent: true, script });
    const opening = usableOpening(ctx, args.opening_id, type);
    if (isRefusal(opening)) return opening;
    const age = ageOn(patient.date_of_birth, ctx.clock.today());
    if (!ageFits(type, age)) return refuse('AGE_NOT_ELIGIBLE', { recoverable: true, age_years: age, min_age_years: type.min_age_years, max_age_years: type.max_age_years });
    const row = bookOpening(ctx, patient, opening, type);
    return ok({ appointment_id: row.id, visit_type: row.visit_type, ...describeSlot(ctx, row), idempotent: false, script });
  },
});

export const sendVisitText = defineTool({
  name: 'send_visit_text',
  description:
    'Use when: a verified patient wants a text confirming a visit, or confirming that one was cancelled, sent to the mobile number on file. Returns: the masked number it went to; idempotent on repeats. Do not use for: any other number, or payment links. Errors: NOT_VERIFIED, APPOINTMENT_NOT_FOUND, NO_MOBILE_ON_FILE.',
  input: z.object({ appointment_id: appointmentIdField }),
  output: z.object({ kind: z.enum(['visit_confirmation', 'cancellation_notice']), sent_to: z.string(), idempotent: z.boolean() }),
  effect: 'write',
  writes: ['texts', 'call_session'],
  gate: 'verified',
  normalize: (raw) => normalizeFields(raw, { appointment_id: readCode }),
  run(args, ctx) {
    const patient = verifiedPatient(ctx);
    const appointment = ownAppointment(ctx, patient.id, args.appointment_id);
    if (isRefusal(appointment)) return appointment;
    if (!patient.mobile_phone) return refuse('NO_MOBILE_ON_FILE', { recoverable: false });
    const kind = appointment.status === 'cancelled' ? ('cancellation_notice' as const) : ('visit_confirmation' as const);
    const id = `txt_${appointment.id.slice(4)}_${kind}`;
    const existing = textById(ctx.db).get({ id });
    if (!existing) insertText(ctx.db).run({ id, patient_id: patient.id, appointment_id: appointment.id, to_phone: patient.mobile_phone, kind, created_at: ctx.clock.now() });
    return ok({ kind, sent_to: maskPhone(patient.mobile_phone) ?? '', idempotent: existing !== undefined });
  },
});
