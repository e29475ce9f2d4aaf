import { and, eq, gt, gte, sql } from 'drizzle-orm';
import { param, preparedQuery, refuse, rowById, rowInsert, type ToolContext, type ToolRefusal } from '../../../src/packs/index.ts';
import { appointments, openings, patients, providers } from '../schema.ts';
import { policy } from './policy.ts';
import { locationName, providerCanDo, providerName, visitType, type PatientRow, type ProviderRow, type VisitTypeRow } from './records.ts';

/** Opening checks and the one place that turns an opening into an appointment. */

export type OpeningRow = typeof openings.$inferSelect;
export type AppointmentRow = typeof appointments.$inferSelect;

const openingById = rowById(openings);
const providerById = rowById(providers);
const appointmentById = rowById(appointments);
const bookedOnOpening = preparedQuery((db) =>
  db
    .select()
    .from(appointments)
    .where(and(eq(appointments.patient_id, param('patient')), eq(appointments.opening_id, param('opening')), eq(appointments.status, 'booked')))
    .prepare(),
);
const insertAppointment = rowInsert(appointments);
const setOpeningStatus = preparedQuery((db) => db.update(openings).set({ status: param('status') }).where(eq(openings.id, param('id'))).prepare());
const setAppointmentStatus = preparedQuery((db) =>
  db.update(appointments).set({ status: param('status') }).where(eq(appointments.id, param('id'))).prepare(),
);
const setHomeLocation = preparedQuery((db) =>
  db.update(patients).set({ home_location_id: param('location') }).where(eq(patients.id, param('id'))).prepare(),
);
/** Open blocks at one office in a date window, long enough, with one of the given providers; earliest first. */
const openingsInWindow = preparedQuery((db) =>
  db
    .select()
    .from(openings)
    .where(
      and(
        eq(openings.location_id, param('location')),
        eq(openings.status, 'open'),
        gt(openings.starts_at, param('now')),
        sql`substr(${openings.starts_at}, 1, 10) between ${param('from')} and ${param('to')}`,
        gte(openings.duration_min, param('minutes')),
        sql`${openings.provider_id} in (select value from json_each(${param('providers')}))`,
      ),
    )
    .orderBy(openings.starts_at, openings.id)
    .limit(policy.openings_per_search)
    .prepare(),
);

/** The earliest open blocks at an office between two dates (inclusive), long enough for the visit, with a qualified provider. */
export function earliestOpenings(
  ctx: ToolContext,
  type: VisitTypeRow,
  qualified: readonly ProviderRow[],
  window: { location: string; from: string; to: string },
): OpeningRow[] {
  const { location: locationId, from, to } = window;
  return openingsInWindow(ctx.db).all({
    location: locationId,
    now: ctx.clock.now(),
    from,
    to,
    minutes: type.duration_min,
    providers: JSON.stringify(qualified.map((p) => p.id)),
  });
}

/** The opening if it exists, is still open, lies ahead and suits the visit type; otherwise a refusal. */
export function usableOpening(ctx: ToolContext, openingId: string, type: VisitTypeRow): OpeningRow | ToolRefusal {
  const opening = openingById(ctx.db).get({ id: openingId });
  if (!opening || opening.starts_at <= ctx.clock.now()) return refuse('OPENING_NOT_FOUND', { recoverable: true });
  if (opening.status !== 'open') return refuse('OPENING_TAKEN', { recoverable: true });
  const provider = providerById(ctx.db).get({ id: opening.provider_id });
  if (!provider || !providerCanDo(provider, type) || opening.duration_min < type.duration_min) {
    return refuse('OPENING_NOT_SUITABLE', { recoverable: true, opening_minutes: opening.duration_min, visit_minutes: type.duration_min });
  }
  return opening;
}

/** True when the value is a refusal rather than a row. */
export function isRefusal(value: unknown): value is ToolRefusal {
  return typeof value === 'object' && value !== null && 'ok' in value && (value as { ok: unknown }).ok === false;
}

/** The booked appointment this patient already holds on this opening, if any (idempotent repeats). */
export function existingBooking(ctx: ToolContext, patientId: string, openingId: string): AppointmentRow | undefined {
  return bookedOnOpening(ctx.db).get({ patient: patientId, opening: openingId });
}

/** Books the opening for the patient: appointment id apt_<opening>, with a suffix if that id was used before. */
export function bookOpening(ctx: ToolContext, patient: PatientRow, opening: OpeningRow, type: VisitTypeRow): AppointmentRow {
  const base = `apt_${opening.id.slice(4)}`;
  let id = base;
  for (let n = 2; appointmentById(ctx.db).get({ id }); n++) id = `${base}_r${n}`;
  const row: AppointmentRow = {
    id,
    patient_id: patient.id,
    opening_id: opening.id,
    location_id: opening.location_id,
    provider_id: opening.provider_id,
    visit_type: type.id,
    starts_at: opening.starts_at,
    duration_min: type.duration_min,
    status: 'booked',
    created_at: ctx.clock.now(),
  };
  insertAppointment(ctx.db).run(row);
  setOpeningStatus(ctx.db).run({ status: 'booked', id: opening.id });
  if (!patient.home_location_id) setHomeLocation(ctx.db).run({ location: opening.location_id, id: patient.id });
  return row;
}

/** Cancels a booked appointment and reopens its block. */
export function cancelAppointment(ctx: ToolContext, appointment: AppointmentRow): void {
  setAppointmentStatus(ctx.db).run({ status: 'cancelled', id: appointment.id });
  setOpeningStatus(ctx.db).run({ status: 'open', id: appointment.opening_id });
}

/** The spoken facts of an appointment or opening. */
export function describeSlot(ctx: ToolContext, slot: { starts_at: string; location_id: string; provider_id: string }): { starts_at: string; spoken: string; office: string; provider: string } {
  return {
    starts_at: slot.starts_at,
    spoken: ctx.clock.spokenDateTime(slot.starts_at),
    office: locationName(ctx.db, slot.location_id) ?? slot.location_id,
    provider: providerName(ctx.db, slot.provider_id),
  };
}

/** The patient's own appointment by id, or a refusal. */
export function ownAppointment(ctx: ToolContext, patientId: string, appointmentId: string): AppointmentRow | ToolRefusal {
  const row = appointmentById(ctx.db).get({ id: appointmentId });
  if (!row || row.patient_id !== patientId) return refuse('APPOINTMENT_NOT_FOUND', { recoverable: true });
  return row;
}

/** Visit type row or a refusal when the id is unknown to the seed. */
export function visitTypeOrRefuse(ctx: ToolContext, id: string): VisitTypeRow | ToolRefusal {
  return visitType(ctx.db, id) ?? refuse('VISIT_TYPE_NOT_AT_LOCATION', { recoverable: true });
}
