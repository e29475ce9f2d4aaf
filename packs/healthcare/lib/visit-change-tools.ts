import { and, eq } from 'drizzle-orm';
import { z } from 'zod';
import { checkHold, defineTool, markHoldUsed, moneyInWords, normalizeFields, numberInWords, ok, openHold, param, preparedQuery, refuse, rowById, rowInsert, type ToolContext } from '../../../src/packs/index.ts';
import { charges, waitlistEntries, waitlistOffices } from '../schema.ts';
import { insertCharge } from './billing-tools.ts';
import { bookOpening, cancelAppointment, describeSlot, isRefusal, ownAppointment, usableOpening, visitTypeOrRefuse } from './booking.ts';
import { appointmentIdField, dateField, locationListField, moneyDisplay, openingIdField, readBool, readCode, readDate, readLocationList, tokenField, visitTypeField } from './fields.ts';
import { policy } from './policy.ts';
import { ageFits, ageOn, locationName, officesFor, verifiedPatient, visitType } from './records.ts';

/** Scheduling desk: two-step cancel or move with the late fee, and the waitlist. */

const depositsOfAppointment = preparedQuery((db) =>
  db.select().from(charges).where(and(eq(charges.appointment_id, param('appointment')), eq(charges.kind, 'cosmetic_deposit'))).prepare(),
);
const setChargeAppointment = preparedQuery((db) =>
  db.update(charges).set({ appointment_id: param('appointment') }).where(eq(charges.id, param('id'))).prepare(),
);
const setChargeStatus = preparedQuery((db) => db.update(charges).set({ status: param('status') }).where(eq(charges.id, param('id'))).prepare());
const waitlistEntryById = rowById(waitlistEntries);
const waitlistOfficesOf = preparedQuery((db) => db.select().from(waitlistOffices).where(eq(waitlistOffices.entry_id, param('entry'))).prepare());
const deleteWaitlistOffices = preparedQuery((db) => db.delete(waitlistOffices).where(eq(waitlistOffices.entry_id, param('entry'))).prepare());
const deleteWaitlistEntry = preparedQuery((db) => db.delete(waitlistEntries).where(eq(waitlistEntries.id, param('id'))).prepare());
const insertWaitlistEntry = rowInsert(waitlistEntries);
const insertWaitlistOffice = rowInsert(waitlistOffices);

const changePayload = z.object({
  patient_id: z.string(),
  appointment_id: z.string(),
  action: z.enum(['cancel', 'move']),
  new_opening_id: z.string().nullable(),
  fee_cents: z.number().int(),
  deposit_outcome: z.enum(['none', 'forfeited', 'refunded', 'moves_with_visit']),
});
type ChangePayload = z.infer<typeof changePayload>;

function depositCharge(ctx: ToolContext, appointmentId: string) {
  return depositsOfAppointment(ctx.db)
    .all({ appointment: appointmentId })
    .find((c) => c.status === 'paid' || c.status === 'open');
}

function feeScript(p: ChangePayload): string | null {
  if (p.fee_cents > 0) return `Because this change is less than ${numberInWords(policy.late_change_notice_hours)} hours before the visit, a late change fee of ${moneyInWords(p.fee_cents)} will be added to your account. Do you accept the fee?`;
  if (p.deposit_outcome === 'forfeited') return `Because this cancellation is less than ${numberInWords(policy.cosmetic_forfeit_notice_hours)} hours before the consult, your deposit of ${moneyInWords(policy.cosmetic_deposit_cents)} will not be refunded. Do you want to go ahead?`;
  return null;
}

/** Why the change costs what it does, for this change's own case (never the rule's other side). */
function changeReason(deposit: ChangePayload['deposit_outcome'], late: boolean, threshold: string): string {
  if (deposit === 'moves_with_visit') return 'cosmetic consult moved: the deposit moves with the visit';
  if (deposit === 'forfeited') return `cosmetic consult cancelled with less than ${threshold} hours notice: the deposit is kept`;
  if (deposit === 'refunded') return `cosmetic consult cancelled with ${threshold} hours or more notice: the deposit is refunded`;
  return late ? `less than ${threshold} hours notice: a late change fee` : `${threshold} hours or more notice: no fee`;
}

export const quoteVisitChange = defineTool({
  name: 'quote_visit_change',
  description:
    'Use when: a verified patient wants to cancel or move a booked visit; for a move, pass the new opening from find_openings. Returns: a token, the hours of notice, any late change fee or deposit outcome with its reason, and the script to read. Writes nothing. Do not use for: booking a first visit. Errors: NOT_VERIFIED, APPOINTMENT_NOT_FOUND, APPOINTMENT_NOT_ACTIVE, NEW_OPENING_REQUIRED, OPENING_NOT_FOUND, OPENING_TAKEN, OPENING_NOT_SUITABLE.',
  input: z.object({
    appointment_id: appointmentIdField,
    action: z.enum(['cancel', 'move']),
    new_opening_id: openingIdField.optional().describe('Required for a move.'),
  }),
  output: z.object({
    token: z.string(),
    action: z.enum(['cancel', 'move']),
    current: z.object({ starts_at: z.string(), spoken: z.string(), office: z.string(), provider: z.string() }),
    new_time: z.object({ starts_at: z.string(), spoken: z.string(), office: z.string(), provider: z.string() }).nullable(),
    hours_notice: z.number(),
    notice_threshold_hours: z.number(),
    fee_cents: z.number().int(),
    fee_display: z.string(),
    fee_reason: z.string(),
    deposit_outcome: z.enum(['none', 'forfeited', 'refunded', 'moves_with_visit']),
    requires_acknowledgement: z.boolean(),
    script: z.string().nullable(),
  }),
  effect: 'read',
  writes: ['holds', 'call_session'],
  gate: 'verified',
  normalize: (raw) => normalizeFields(raw, { appointment_id: readCode, action: readCode, new_opening_id: readCode }),
  run(args, ctx) {
    const patient = verifiedPatient(ctx);
    const appointment = ownAppointment(ctx, patient.id, args.appointment_id);
    if (isRefusal(appointment)) return appointment;
    if (appointment.status !== 'booked' || appointment.starts_at <= ctx.clock.now()) return refuse('APPOINTMENT_NOT_ACTIVE', { recoverable: false });
    let newTime: ReturnType<typeof describeSlot> | null = null;
    if (args.action === 'move') {
      if (!args.new_opening_id) return refuse('NEW_OPENING_REQUIRED', { recoverable: true });
      const type = visitTypeOrRefuse(ctx, appointment.visit_type);
      if (isRefusal(type)) return type;
      const opening = usableOpening(ctx, args.new_opening_id, type);
      if (isRefusal(opening)) return opening;
      newTime = describeSlot(ctx, opening);
    }
    const hours = ctx.clock.minutesUntil(appointment.starts_at) / 60;
    const cosmetic = appointment.visit_type === 'cosmetic_consult' && depositCharge(ctx, appointment.id) !== undefined;
    const threshold = cosmetic ? policy.cosmetic_forfeit_notice_hours : policy.late_change_notice_hours;
    const late = hours < threshold;
    const fee = !cosmetic && late ? policy.late_change_fee_cents : 0;
    const deposit: ChangePayload['deposit_outcome'] = !cosmetic ? 'none' : args.action === 'move' ? 'moves_with_visit' : late ? 'forfeited' : 'refunded';
    const payload: ChangePayload = { patient_id: patient.id, appointment_id: appointment.id, action: args.action, new_opening_id: args.new_opening_id ?? null, fee_cents: fee, deposit_outcome: deposit };
    const token = openHold(ctx, { kind: 'visit_change', target: appointment.id, payload });
    const reason = changeReason(deposit, late, numberInWords(threshold));
    const script = feeScript(payload);
    return ok({
      token,
      action: args.action,
      current: describeSlot(ctx, appointment),
      new_time: newTime,
      hours_notice: hours,
      notice_threshold_hours: threshold,
      fee_cents: fee,
      fee_display: moneyDisplay(fee),
      fee_reason: reason,
      deposit_outcome: deposit,
      requires_acknowledgement: script !== null,
      script,
    });
  },
});

export const confirmVisitChange = defineTool({
  name: 'confirm_visit_change',
  description:
    'Use when: the caller agreed to the cancel or move you quoted; pass fee_acknowledged true only after they accept a quoted fee or lost deposit. Returns: the cancelled visit, any new visit, and the fee charged. Do not use for: a change you have not quoted. Errors: NOT_VERIFIED, TOKEN_UNKNOWN, TOKEN_WRONG_KIND, TOKEN_WRONG_OWNER, TOKEN_USED, TOKEN_SUPERSEDED, ACK_REQUIRED, APPOINTMENT_NOT_ACTIVE, OPENING_TAKEN.',
  input: z.object({ token: tokenField, fee_acknowledged: z.boolean().optional().describe('True once the caller accepted the quoted fee or deposit loss.') }),
  output: z.object({
    appointment_id: z.string(),
    status: z.enum(['cancelled', 'moved']),
    new_appointment_id: z.string().nullable(),
    new_spoken: z.string().nullable(),
    fee_charged_cents: z.number().int(),
    fee_display: z.string(),
    deposit_outcome: z.string(),
  }),
  effect: 'write',
  writes: ['appointments', 'openings', 'charges', 'holds', 'patients', 'call_session'],
  gate: 'verified',
  confirms: 'quote_visit_change',
  normalize: (raw) => normalizeFields(raw, { fee_acknowledged: readBool }),
  run(args, ctx) {
    const held = checkHold(ctx, args.token, 'visit_change', changePayload);
    if (isRefusal(held)) return held;
    const p = held.payload;
    const script = feeScript(p);
    if (script && args.fee_acknowledged !== true) return refuse('ACK_REQUIRED', { recoverable: true, script });
    const patient = verifiedPatient(ctx);
    const appointment = ownAppointment(ctx, patient.id, p.appointment_id);
    if (isRefusal(appointment)) return appointment;
    if (appointment.status !== 'booked') return refuse('APPOINTMENT_NOT_ACTIVE', { recoverable: false });
    const type = visitType(ctx.db, appointment.visit_type);
    let moved: ReturnType<typeof bookOpening> | null = null;
    if (p.action === 'move' && p.new_opening_id && type) {
      const opening = usableOpening(ctx, p.new_opening_id, type);
      if (isRefusal(opening)) return opening;
      cancelAppointment(ctx, appointment);
      moved = bookOpening(ctx, patient, opening, type);
    } else cancelAppointment(ctx, appointment);
    if (p.fee_cents > 0) {
      const today = ctx.clock.today();
      insertCharge(ctx.db).run({ id: `chg_late_${appointment.id.slice(4)}`, patient_id: patient.id, kind: 'late_change', service_date: today, posted_on: today, amount_cents: p.fee_cents, status: 'open', appointment_id: appointment.id, review_state: 'none', created_at: ctx.clock.now() });
    }
    const deposit = depositCharge(ctx, appointment.id);
    if (deposit && p.deposit_outcome !== 'none') {
      if (p.deposit_outcome === 'moves_with_visit') setChargeAppointment(ctx.db).run({ appointment: moved?.id ?? appointment.id, id: deposit.id });
      else setChargeStatus(ctx.db).run({ status: p.deposit_outcome === 'forfeited' ? 'forfeited' : 'refund_due', id: deposit.id });
    }
    markHoldUsed(ctx.db, held.token);
    return ok({
      appointment_id: appointment.id,
      status: moved ? ('moved' as const) : ('cancelled' as const),
      new_appointment_id: moved?.id ?? null,
      new_spoken: moved ? ctx.clock.spokenDateTime(moved.starts_at) : null,
      fee_charged_cents: p.fee_cents,
      fee_display: moneyDisplay(p.fee_cents),
      deposit_outcome: p.deposit_outcome,
    });
  },
});

export const joinWaitlist = defineTool({
  name: 'join_waitlist',
  description:
    'Use when: a verified patient wants an earlier time than find_openings offers; up to three offices and a range of at most thirty days. Returns: the waitlist entry with offices and dates; idempotent on repeats. Do not use for: booking an opening that exists. Errors: NOT_VERIFIED, WAITLIST_TOO_MANY_OFFICES, WAITLIST_RANGE_TOO_LONG, DATE_IN_PAST, INVALID_DATE_RANGE, VISIT_TYPE_NOT_AT_LOCATION, AGE_NOT_ELIGIBLE.',
  input: z.object({
    visit_type: visitTypeField,
    location_ids: locationListField,
    earliest_date: dateField,
    latest_date: dateField,
  }),
  output: z.object({ waitlist_id: z.string(), offices: z.array(z.string()), earliest_spoken: z.string(), latest_spoken: z.string(), span_days: z.number().int(), max_span_days: z.number().int(), idempotent: z.boolean(), script: z.string() }),
  effect: 'write',
  writes: ['waitlist_entries', 'waitlist_offices', 'call_session'],
  gate: 'verified',
  normalize: (raw) => normalizeFields(raw, { visit_type: readCode, location_ids: readLocationList, earliest_date: readDate, latest_date: readDate }),
  run(args, ctx) {
    const patient = verifiedPatient(ctx);
    const offices = [...new Set(args.location_ids.split(','))].sort();
    if (offices.length > policy.waitlist_max_offices) return refuse('WAITLIST_TOO_MANY_OFFICES', { recoverable: true, max_offices: policy.waitlist_max_offices });
    if (args.earliest_date < ctx.clock.today()) return refuse('DATE_IN_PAST', { recoverable: true });
    if (args.latest_date < args.earliest_date) return refuse('INVALID_DATE_RANGE', { recoverable: true });
    const span = Math.round((Date.parse(args.latest_date) - Date.parse(args.earliest_date)) / 86_400_000);
    if (span > policy.waitlist_max_span_days) return refuse('WAITLIST_RANGE_TOO_LONG', { recoverable: true, span_days: span, max_span_days: policy.waitlist_max_span_days });
    const type = visitTypeOrRefuse(ctx, args.visit_type);
    if (isRefusal(type)) return type;
    const offered = officesFor(ctx.db, type);
    if (offices.some((o) => !offered.includes(o))) return refuse('VISIT_TYPE_NOT_AT_LOCATION', { recoverable: true, offered_at: offered });
    const age = ageOn(patient.date_of_birth, ctx.clock.today());
    if (!ageFits(type, age)) return refuse('AGE_NOT_ELIGIBLE', { recoverable: true, age_years: age });
    const id = `wl_${patient.id.slice(4)}_${type.id}`;
    const existing = waitlistEntryById(ctx.db).get({ id });
    const current = waitlistOfficesOf(ctx.db).all({ entry: id }).map((r) => r.location_id).sort();
    const same = existing?.earliest_date === args.earliest_date && existing.latest_date === args.latest_date && current.join() === offices.join();
    if (!same) {
      deleteWaitlistOffices(ctx.db).run({ entry: id });
      deleteWaitlistEntry(ctx.db).run({ id });
      insertWaitlistEntry(ctx.db).run({ id, patient_id: patient.id, visit_type: type.id, earliest_date: args.earliest_date, latest_date: args.latest_date, status: 'active', created_at: ctx.clock.now() });
      for (const location_id of offices) insertWaitlistOffice(ctx.db).run({ entry_id: id, location_id });
    }
    return ok({
      waitlist_id: id,
      offices: offices.map((o) => locationName(ctx.db, o) ?? o),
      earliest_spoken: ctx.clock.spokenDate(args.earliest_date),
      latest_spoken: ctx.clock.spokenDate(args.latest_date),
      span_days: span,
      max_span_days: policy.waitlist_max_span_days,
      idempotent: same,
      script: 'We will text the mobile number on file if a matching time opens up. The first person to reply gets the time.',
    });
  },
});
