import { and, eq } from 'drizzle-orm';
import { refuse, type ToolContext, type ToolRefusal } from '../../../src/packs/index.ts';
import { appointments, openings, patients, providers } from '../schema.ts';
import { locationName, providerCanDo, providerName, visitType, type PatientRow, type VisitTypeRow } from './records.ts';

/** Opening checks and the one place that turns an opening into an appointment. */

export type OpeningRow = typeof openings.$inferSelect;
export type AppointmentRow = typeof appointments.$inferSelect;

/** The opening if it exists, is still open, lies ahead and suits the visit type; otherwise a refusal. */
export function usableOpening(ctx: ToolContext, openingId: string, type: VisitTypeRow): OpeningRow | ToolRefusal {
  const opening = ctx.db.select().from(openings).where(eq(openings.id, openingId)).get();
  if (!opening || opening.starts_at <= ctx.clock.now()) return refuse('OPENING_NOT_FOUND', { recoverable: true });
  if (opening.status !== 'open') return refuse('OPENING_TAKEN', { recoverable: true });
  const provider = ctx.db.select().from(providers).where(eq(providers.id, opening.provider_id)).get();
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
  return ctx.db
    .select()
    .from(appointments)
    .where(and(eq(appointments.patient_id, patientId), eq(appointments.opening_id, openingId), eq(appointments.status, 'booked')))
    .get();
}

/** Books the opening for the patient: appointment id apt_<opening>, with a suffix if that id was used before. */
export function bookOpening(ctx: ToolContext, patient: PatientRow, opening: OpeningRow, type: VisitTypeRow): AppointmentRow {
  const base = `apt_${opening.id.slice(4)}`;
  let id = base;
  for (let n = 2; ctx.db.select().from(appointments).where(eq(appointments.id, id)).get(); n++) id = `${base}_r${n}`;
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
  ctx.db.insert(appointments).values(row).run();
  ctx.db.update(openings).set({ status: 'booked' }).where(eq(openings.id, opening.id)).run();
  if (!patient.home_location_id) ctx.db.update(patients).set({ home_location_id: opening.location_id }).where(eq(patients.id, patient.id)).run();
  return row;
}

/** Cancels a booked appointment and reopens its block. */
export function cancelAppointment(ctx: ToolContext, appointment: AppointmentRow): void {
  ctx.db.update(appointments).set({ status: 'cancelled' }).where(eq(appointments.id, appointment.id)).run();
  ctx.db.update(openings).set({ status: 'open' }).where(eq(openings.id, appointment.opening_id)).run();
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
  const row = ctx.db.select().from(appointments).where(eq(appointments.id, appointmentId)).get();
  if (!row || row.patient_id !== patientId) return refuse('APPOINTMENT_NOT_FOUND', { recoverable: true });
  return row;
}

/** Visit type row or a refusal when the id is unknown to the seed. */
export function visitTypeOrRefuse(ctx: ToolContext, id: string): VisitTypeRow | ToolRefusal {
  return visitType(ctx.db, id) ?? refuse('VISIT_TYPE_NOT_AT_LOCATION', { recoverable: true });
}
