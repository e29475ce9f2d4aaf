import { and, eq } from 'drizzle-orm';
import { z } from 'zod';
import { defineTool, normalizeFields, ok, param, pinSubject, preparedQuery, readCallSession, recordVerificationFailure, refuse, setSessionFlags, type PackDb } from '../../../src/packs/index.ts';
import { appointments, guardians } from '../schema.ts';
import { openChargesOf } from './billing-tools.ts';
import { dateField, locationField, moneyDisplay, personNameField, readCode, readDate, readLocation, readName, readZip, zipField } from './fields.ts';
import { CARRIER_NAMES, LOCATION_IDS, policy, type Carrier } from './policy.ts';
import { findPatients, locationName, locationsOf, maskPhone, namesMatch, officesFor, providerName, qualifiedStaff, staffOf, verifiedPatient, visitTypesOf } from './records.ts';

/** Reception and identity. */

const guardiansOf = preparedQuery((db) => db.select().from(guardians).where(eq(guardians.patient_id, param('patient'))).prepare());
const bookedAppointmentsOf = preparedQuery((db) =>
  db.select().from(appointments).where(and(eq(appointments.patient_id, param('patient')), eq(appointments.status, 'booked'))).prepare(),
);

const locationOut = z.object({
  name: z.string(),
  address: z.string(),
  floor: z.string(),
  phone: z.string(),
  weekday_hours: z.string(),
  saturday_hours: z.string().nullable(),
  parking: z.string(),
  transit: z.string(),
  services: z.array(z.string()),
});

export const listLocations = defineTool({
  name: 'list_locations',
  description:
    'Use when: a caller asks for an office address, floor, hours, parking, transit or which services an office offers. Returns: offices keyed by location_id, every office or only the one asked about, each with its facts and the visit types it offers. Do not use for: insurance questions or openings. Errors: none.',
  input: z.object({ location_id: locationField.optional() }),
  // Keyed by office, so a task grades the office the caller asked about whether the agent filtered
  // to it or listed every office (issue 18 item 5): `{locations: {loc_white_plains: {parking}}}`.
  output: z.object({ locations: z.partialRecord(z.enum(LOCATION_IDS), locationOut) }),
  effect: 'read',
  writes: [],
  normalize: (raw) => normalizeFields(raw, { location_id: readLocation }),
  run(args, ctx) {
    const rows = locationsOf(ctx.db).filter((l) => !args.location_id || l.id === args.location_id);
    const staff = staffOf(ctx.db);
    const offices = new Map(visitTypesOf(ctx.db).map((t) => [t, officesFor(ctx.db, t, qualifiedStaff(ctx.db, t, staff))]));
    return ok({
      locations: Object.fromEntries(
        rows.map((l) => [
          l.id,
          {
            name: l.name,
            address: l.address,
            floor: l.floor,
            phone: l.phone,
            weekday_hours: l.weekday_hours,
            saturday_hours: l.saturday_hours,
            parking: l.parking,
            transit: l.transit,
            services: [...offices].filter(([, at]) => at.includes(l.id)).map(([t]) => t.display_name),
          },
        ]),
      ),
    });
  },
});

export const verifyIdentity = defineTool({
  name: 'verify_identity',
  description:
    'Use when: a caller wants anything from an existing patient record; ask name and date of birth first, and the ZIP code only when asked for it. A parent or guardian gives caller_role parent_or_guardian and their own name. Returns: verified with the patient first name, or a refusal; three failures lock the call. Do not use for: new patients. Errors: NO_MATCH, NEED_SECOND_FACTOR, IDENTITY_LOCKED, GUARDIAN_NAME_REQUIRED, GUARDIAN_NOT_ON_FILE.',
  input: z.object({
    full_name: personNameField.describe("The patient's full name."),
    date_of_birth: dateField.describe("The patient's date of birth, YYYY-MM-DD."),
    zip_code: zipField.optional().describe('Five digit ZIP code on file; only when a second factor is needed.'),
    caller_role: z.enum(['self', 'parent_or_guardian']).describe('self when the patient is calling.'),
    guardian_name: personNameField.optional().describe('Full name of the parent or guardian calling.'),
  }),
  output: z.object({
    verified: z.literal(true),
    patient_id: z.string(),
    first_name: z.string(),
    caller_role: z.enum(['self', 'parent_or_guardian']),
    guardian_relationship: z.string().nullable(),
  }),
  effect: 'read',
  writes: ['call_session'],
  normalize: (raw) =>
    normalizeFields(raw, { full_name: readName, guardian_name: readName, date_of_birth: readDate, zip_code: readZip, caller_role: readCode }),
  run(args, ctx) {
    if (readCallSession(ctx.db).locked) return refuse('IDENTITY_LOCKED', { recoverable: false });
    const fail = () => {
      const failures = recordVerificationFailure(ctx.db, policy.identity_lock_after_failures);
      if (failures >= policy.identity_lock_after_failures) return refuse('IDENTITY_LOCKED', { recoverable: false, failures });
      return refuse('NO_MATCH', { recoverable: true, attempts_left: policy.identity_lock_after_failures - failures });
    };
    const candidates = findPatients(ctx.db, args.full_name, args.date_of_birth);
    if (candidates.length > 1 && !args.zip_code) return refuse('NEED_SECOND_FACTOR', { recoverable: true, ask_for: 'zip_code' });
    const matches = args.zip_code ? candidates.filter((p) => p.zip_code === args.zip_code) : candidates;
    const patient = matches.length === 1 ? matches[0] : undefined;
    if (!patient) return fail();
    let relationship: string | null = null;
    if (args.caller_role === 'parent_or_guardian') {
      if (!args.guardian_name) return refuse('GUARDIAN_NAME_REQUIRED', { recoverable: true });
      const name = args.guardian_name;
      const guardian = guardiansOf(ctx.db)
        .all({ patient: patient.id })
        .find((g) => namesMatch(name, g.guardian_name));
      if (!guardian) return refuse('GUARDIAN_NOT_ON_FILE', { recoverable: false });
      relationship = guardian.relationship;
    }
    const method = args.caller_role === 'parent_or_guardian' ? 'guardian' : args.zip_code ? 'name_dob_zip' : 'name_dob';
    pinSubject(ctx.db, { kind: 'patient', id: patient.id, method, gate: 'verified' });
    setSessionFlags(ctx.db, { caller_role: args.caller_role });
    return ok({
      verified: true as const,
      patient_id: patient.id,
      first_name: patient.full_name.split(' ')[0] ?? patient.full_name,
      caller_role: args.caller_role,
      guardian_relationship: relationship,
    });
  },
});

const visitOut = z.object({
  appointment_id: z.string(),
  visit_type: z.string(),
  starts_at: z.string(),
  spoken: z.string(),
  office: z.string().nullable(),
  provider: z.string(),
});

export const getPatientOverview = defineTool({
  name: 'get_patient_overview',
  description:
    'Use when: a verified caller asks when or where an upcoming visit is, which office is theirs or their balance total; a desk that moves, cancels or texts about a visit also reads it to find the visit, once per call. Returns: home office, upcoming visits with their ids, insurance on file, the balance total and contact details on file; nothing clinical. Do not use for: results, medications, or questions about charges, payments or plans. Errors: NOT_VERIFIED.',
  input: z.object({}),
  output: z.object({
    first_name: z.string(),
    home_office: z.string().nullable(),
    upcoming_visits: z.array(visitOut),
    carrier: z.string().nullable(),
    carrier_name: z.string().nullable(),
    balance_cents: z.number().int(),
    balance_display: z.string(),
    mobile_on_file: z.string().nullable(),
    email_on_file: z.boolean(),
    portal_status: z.string(),
  }),
  effect: 'read',
  writes: ['call_session'],
  gate: 'verified',
  run(_args, ctx) {
    const patient = verifiedPatient(ctx);
    const visits = bookedAppointmentsOf(ctx.db)
      .all({ patient: patient.id })
      .filter((a) => a.starts_at > ctx.clock.now())
      .sort((a, b) => (a.starts_at < b.starts_at ? -1 : 1));
    const balance = openBalanceCents(ctx.db, patient.id);
    return ok({
      first_name: patient.full_name.split(' ')[0] ?? patient.full_name,
      home_office: locationName(ctx.db, patient.home_location_id),
      upcoming_visits: visits.map((a) => ({
        appointment_id: a.id,
        visit_type: a.visit_type,
        starts_at: a.starts_at,
        spoken: ctx.clock.spokenDateTime(a.starts_at),
        office: locationName(ctx.db, a.location_id),
        provider: providerName(ctx.db, a.provider_id),
      })),
      carrier: patient.carrier,
      carrier_name: patient.carrier ? CARRIER_NAMES[patient.carrier as Carrier] ?? null : null,
      balance_cents: balance,
      balance_display: moneyDisplay(balance),
      mobile_on_file: maskPhone(patient.mobile_phone),
      email_on_file: patient.email !== null,
      portal_status: patient.portal_status,
    });
  },
});

/** Sum of the patient's open charges, in cents. */
export function openBalanceCents(db: PackDb, patientId: string): number {
  return openChargesOf(db)
    .all({ patient: patientId })
    .reduce((sum, c) => sum + c.amount_cents, 0);
}
