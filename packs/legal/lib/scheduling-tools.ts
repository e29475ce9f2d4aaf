import { and, eq, gt, or, sql } from 'drizzle-orm';
import { z } from 'zod';
import { checkHold, defineTool, markHoldUsed, moneyInWords, normalizeFields, ok, openHold, param, preparedQuery, refuse, rowById, rowInsert, type ToolContext, type ToolRefusal } from '../../../src/packs/index.ts';
import { consultOpenings, consults, practiceRules } from '../schema.ts';
import { areaField, consultLocationField, dateField, moneyDisplay, openingIdField, readArea, readBool, readCode, readDate, readLocation, tokenField } from './fields.ts';
import { AREA_NAMES, policy, type Area } from './policy.ts';
import { attorney, locationName, pinnedClient, pinnedIntake, pinnedMatter } from './records.ts';

/** Scheduling: consultation search, the two-step hold with its fee acknowledgement, and cancelling. */

type OpeningRow = typeof consultOpenings.$inferSelect;
type ConsultRow = typeof consults.$inferSelect;

const openingById = rowById(consultOpenings);
const consultById = rowById(consults);
const insertConsult = rowInsert(consults);
const groupOfArea = preparedQuery((db) => db.select({ group: practiceRules.practice_group }).from(practiceRules).where(eq(practiceRules.area, param('area'))).limit(1).prepare());
const setOpeningStatus = preparedQuery((db) => db.update(consultOpenings).set({ status: param('status') }).where(eq(consultOpenings.id, param('id'))).prepare());
const setConsultCancelled = preparedQuery((db) => db.update(consults).set({ status: 'cancelled', fee_status: 'none' }).where(eq(consults.id, param('id'))).prepare());
const consultsOnOpening = preparedQuery((db) => db.select().from(consults).where(eq(consults.opening_id, param('opening'))).orderBy(consults.id).prepare());
const bookedConsultsOf = preparedQuery((db) =>
  db
    .select()
    .from(consults)
    .where(and(eq(consults.status, 'booked'), or(eq(consults.intake_id, param('subject')), eq(consults.client_id, param('subject')))))
    .prepare(),
);
/** Open blocks at one location in a date window with an attorney of the practice group; earliest first. */
const openingsInWindow = preparedQuery((db) =>
  db
    .select()
    .from(consultOpenings)
    .where(
      and(
        eq(consultOpenings.location, param('location')),
        eq(consultOpenings.status, 'open'),
        gt(consultOpenings.starts_at, param('now')),
        sql`substr(${consultOpenings.starts_at}, 1, 10) between ${param('from')} and ${param('to')}`,
        sql`${consultOpenings.attorney_id} in (select id from attorneys where practice_group = ${param('group')})`,
      ),
    )
    .orderBy(consultOpenings.starts_at, consultOpenings.id)
    .limit(policy.openings_per_search)
    .prepare(),
);

function isRefusal(value: unknown): value is ToolRefusal {
  return typeof value === 'object' && value !== null && 'ok' in value && (value as { ok: unknown }).ok === false;
}

/** The spoken facts of an opening or a consultation. */
function describeSlot(ctx: ToolContext, slot: { starts_at: string; location: string; attorney_id: string }): { starts_at: string; spoken: string; location_name: string; attorney: string } {
  return { starts_at: slot.starts_at, spoken: ctx.clock.spokenDateTime(slot.starts_at), location_name: locationName(ctx.db, slot.location), attorney: attorney(ctx.db, slot.attorney_id)?.display_name ?? 'an attorney' };
}

/** The spoken facts every scheduling output carries (describeSlot). */
const slotShape = { starts_at: z.string(), spoken: z.string(), location_name: z.string(), attorney: z.string() };
const slotOut = z.object({ opening_id: z.string(), ...slotShape, duration_min: z.number().int() });

export const findConsultTimes = defineTool({
  name: 'find_consult_times',
  description:
    'Use when: a caller wants a consultation time for a kind of case at an office or by video, optionally from an earliest date. Returns: up to three earliest open times with an attorney who handles that kind of case, with count 0 when none are left in the next three weeks. Do not use for: holding a time. Errors: AREA_NOT_HANDLED, DATE_IN_PAST, BEYOND_HORIZON.',
  input: z.object({ area: areaField, location: consultLocationField, earliest_date: dateField.optional().describe('First day to search, YYYY-MM-DD; today when left out.') }),
  output: z.object({ area: z.string(), location: z.string(), count: z.number().int(), openings: z.array(slotOut), searched_to: z.string(), searched_to_spoken: z.string() }),
  effect: 'read',
  writes: [],
  normalize: (raw) => normalizeFields(raw, { area: readArea, location: readLocation, earliest_date: readDate }),
  run(args, ctx) {
    const group = groupOfArea(ctx.db).get({ area: args.area })?.group;
    if (!group) return refuse('AREA_NOT_HANDLED', { recoverable: false });
    const today = ctx.clock.today();
    const from = args.earliest_date ?? today;
    const to = ctx.clock.addDays(today, policy.consult_search_horizon_days);
    if (from < today) return refuse('DATE_IN_PAST', { recoverable: true });
    if (from > to) return refuse('BEYOND_HORIZON', { recoverable: true, horizon_days: policy.consult_search_horizon_days, last_day_spoken: ctx.clock.spokenDate(to) });
    const found = openingsInWindow(ctx.db).all({ location: args.location, now: ctx.clock.now(), from, to, group });
    return ok({
      area: args.area,
      location: args.location,
      count: found.length,
      openings: found.map((o) => ({ opening_id: o.id, ...describeSlot(ctx, o), duration_min: o.duration_min })),
      searched_to: to,
      searched_to_spoken: ctx.clock.spokenDate(to),
    });
  },
});

const holdPayload = z.object({
  opening_id: z.string(),
  intake_id: z.string().nullable(),
  client_id: z.string().nullable(),
  area: z.string(),
  fee_cents: z.number().int(),
  fee_reason: z.string(),
});
type HoldPayload = z.infer<typeof holdPayload>;

const feeScript = (cents: number): string =>
  `The consultation fee is ${moneyInWords(cents)}, paid at the consultation and credited to your case if the firm takes it. Do you agree to that fee?`;
const FREE_SCRIPT = 'There is no charge for this consultation.';

/** Who the consultation is for on this call: the prospect's intake or the verified client's open matter. */
function consultSubject(ctx: ToolContext): Omit<HoldPayload, 'opening_id'> & { subject: string; leadAttorney: string | null } | ToolRefusal {
  const intake = pinnedIntake(ctx);
  if (intake) {
    const fee = intake.fee_plan === 'employment' ? policy.employment_consult_fee_cents : 0;
    const reason = intake.fee_plan === 'employment' ? 'employment_consult' : intake.fee_plan === 'workplace_injury' ? 'free_workplace_consult' : 'free_injury_consult';
    return { subject: intake.id, intake_id: intake.id, client_id: null, area: intake.area, fee_cents: fee, fee_reason: reason, leadAttorney: null };
  }
  const client = pinnedClient(ctx);
  const matter = client ? pinnedMatter(ctx, client) : undefined;
  if (!client || !matter) return refuse('INTAKE_REQUIRED', { recoverable: true });
  if (matter.stage === 'closed') return refuse('MATTER_CLOSED', { recoverable: false });
  return { subject: client.id, intake_id: null, client_id: client.id, area: matter.area, fee_cents: 0, fee_reason: 'client_meeting', leadAttorney: matter.lead_attorney_id };
}

/** The opening if it exists, lies ahead and is still open; otherwise a refusal. */
function liveOpening(ctx: ToolContext, openingId: string): OpeningRow | ToolRefusal {
  const opening = openingById(ctx.db).get({ id: openingId });
  if (!opening || opening.starts_at <= ctx.clock.now()) return refuse('OPENING_NOT_FOUND', { recoverable: true });
  if (opening.status !== 'open') return refuse('OPENING_TAKEN', { recoverable: true });
  return opening;
}

/** The opening if it is live and suits the case: the practice group, or a client's own lead attorney. */
function usableOpening(ctx: ToolContext, openingId: string, area: string, leadAttorney: string | null): OpeningRow | ToolRefusal {
  const opening = liveOpening(ctx, openingId);
  if (isRefusal(opening)) return opening;
  const group = groupOfArea(ctx.db).get({ area })?.group;
  const suits = leadAttorney ? opening.attorney_id === leadAttorney : attorney(ctx.db, opening.attorney_id)?.practice_group === group;
  if (!suits) return refuse('OPENING_NOT_SUITABLE', { recoverable: true });
  return opening;
}

export const holdConsult = defineTool({
  name: 'hold_consult',
  description:
    "Use when: a caller with an intake on this call (or a verified client, for a meeting with their own lead attorney) picked one time from find_consult_times. Returns: a token, the time, the fee with its reason and the script to read; a fee needs the caller's agreement before confirm_consult. Writes nothing. Do not use for: booking without the caller's choice. Errors: INTAKE_REQUIRED, MATTER_CLOSED, CONSULT_ALREADY_BOOKED, OPENING_NOT_FOUND, OPENING_TAKEN, OPENING_NOT_SUITABLE.",
  input: z.object({ opening_id: openingIdField }),
  output: z.object({
    token: z.string(),
    summary: z.string(),
    ...slotShape,
    fee_cents: z.number().int(),
    fee_display: z.string(),
    fee_reason: z.string(),
    fee_acknowledgement_required: z.boolean(),
    script: z.string(),
  }),
  effect: 'read',
  writes: ['holds', 'call_session'],
  normalize: (raw) => normalizeFields(raw, { opening_id: readCode }),
  run(args, ctx) {
    const subject = consultSubject(ctx);
    if (isRefusal(subject)) return subject;
    if (bookedConsultsOf(ctx.db).all({ subject: subject.subject }).length) return refuse('CONSULT_ALREADY_BOOKED', { recoverable: true });
    const opening = usableOpening(ctx, args.opening_id, subject.area, subject.leadAttorney);
    if (isRefusal(opening)) return opening;
    const payload: HoldPayload = { opening_id: opening.id, intake_id: subject.intake_id, client_id: subject.client_id, area: subject.area, fee_cents: subject.fee_cents, fee_reason: subject.fee_reason };
    const token = openHold(ctx, { kind: 'consult', target: subject.subject, payload });
    const slot = describeSlot(ctx, opening);
    const area = AREA_NAMES[subject.area as Area];
    const what = subject.client_id ? 'A case meeting' : `${/^[aeiou]/.test(area) ? 'An' : 'A'} ${area} consultation`;
    return ok({
      token,
      summary: `${what} on ${slot.spoken} with ${slot.attorney}, ${opening.location === 'video' ? 'by video call' : `at the ${slot.location_name} office`}.`,
      ...slot,
      fee_cents: subject.fee_cents,
      fee_display: moneyDisplay(subject.fee_cents),
      fee_reason: subject.fee_reason,
      fee_acknowledgement_required: subject.fee_cents > 0,
      script: subject.fee_cents > 0 ? feeScript(subject.fee_cents) : FREE_SCRIPT,
    });
  },
});

export const confirmConsult = defineTool({
  name: 'confirm_consult',
  description:
    'Use when: the caller accepted the time held by hold_consult and, when it has a fee, agreed to the fee you read; pass fee_acknowledged true then. Returns: the booked consultation id, time, place, attorney and fee status. Do not use for: a time that was not held. Errors: TOKEN_UNKNOWN, TOKEN_WRONG_KIND, TOKEN_WRONG_OWNER, TOKEN_USED, TOKEN_SUPERSEDED, ACK_REQUIRED, OPENING_TAKEN, OPENING_NOT_FOUND, CONSULT_ALREADY_BOOKED.',
  input: z.object({ token: tokenField, fee_acknowledged: z.boolean().optional().describe('True once the caller agreed to the consultation fee.') }),
  output: z.object({
    consult_id: z.string(),
    ...slotShape,
    fee_cents: z.number().int(),
    fee_display: z.string(),
    fee_status: z.enum(['due_at_consult', 'none']),
    script: z.string(),
  }),
  effect: 'write',
  writes: ['consults', 'consult_openings', 'holds', 'call_session'],
  confirms: 'hold_consult',
  normalize: (raw) => normalizeFields(raw, { fee_acknowledged: readBool }),
  run(args, ctx) {
    const held = checkHold(ctx, args.token, 'consult', holdPayload);
    if (isRefusal(held)) return held;
    const p = held.payload;
    if (p.fee_cents > 0 && args.fee_acknowledged !== true) return refuse('ACK_REQUIRED', { recoverable: true, script: feeScript(p.fee_cents) });
    const subject = p.intake_id ?? p.client_id ?? '';
    if (bookedConsultsOf(ctx.db).all({ subject }).length) return refuse('CONSULT_ALREADY_BOOKED', { recoverable: true });
    const opening = liveOpening(ctx, p.opening_id);
    if (isRefusal(opening)) return opening;
    const base = `con_${opening.id.slice(4)}`;
    let id = base;
    for (let n = 2; consultById(ctx.db).get({ id }); n++) id = `${base}_r${n}`;
    const feeStatus = p.fee_cents > 0 ? ('due_at_consult' as const) : ('none' as const);
    const row: ConsultRow = { id, opening_id: opening.id, intake_id: p.intake_id, client_id: p.client_id, attorney_id: opening.attorney_id, location: opening.location, starts_at: opening.starts_at, area: p.area, fee_cents: p.fee_cents, fee_status: feeStatus, status: 'booked', created_at: ctx.clock.now() };
    insertConsult(ctx.db).run(row);
    setOpeningStatus(ctx.db).run({ status: 'booked', id: opening.id });
    markHoldUsed(ctx.db, held.token);
    const script = opening.location === 'video' ? 'A video link will be texted to you the morning of the consultation. Please have any letters, photos or papers about the matter nearby.' : 'Please bring any letters, photos or papers about the matter, and a photo ID.';
    return ok({ consult_id: id, ...describeSlot(ctx, row), fee_cents: p.fee_cents, fee_display: moneyDisplay(p.fee_cents), fee_status: feeStatus, script });
  },
});

export const cancelConsult = defineTool({
  name: 'cancel_consult',
  description:
    'Use when: the caller wants to cancel a consultation booked on this call; give the opening_id of its time. There is never a charge to cancel. Returns: the cancelled consultation; idempotent when it was already cancelled. Do not use for: moving a time, which is cancel then a new hold. Errors: CONSULT_NOT_FOUND.',
  input: z.object({ opening_id: openingIdField.describe('The opening_id of the booked time, from find_consult_times; never spoken.') }),
  output: z.object({ consult_id: z.string(), status: z.literal('cancelled'), spoken: z.string(), idempotent: z.boolean() }),
  effect: 'write',
  writes: ['consults', 'consult_openings', 'call_session'],
  normalize: (raw) => normalizeFields(raw, { opening_id: readCode }),
  run(args, ctx) {
    const subject = pinnedIntake(ctx)?.id ?? pinnedClient(ctx)?.id ?? '';
    const mine = consultsOnOpening(ctx.db).all({ opening: args.opening_id }).filter((c) => c.intake_id === subject || c.client_id === subject);
    const consult = mine.find((c) => c.status === 'booked') ?? mine[mine.length - 1];
    if (!consult) return refuse('CONSULT_NOT_FOUND', { recoverable: true });
    const spoken = ctx.clock.spokenDateTime(consult.starts_at);
    if (consult.status === 'cancelled') return ok({ consult_id: consult.id, status: 'cancelled' as const, spoken, idempotent: true });
    setConsultCancelled(ctx.db).run({ id: consult.id });
    setOpeningStatus(ctx.db).run({ status: 'open', id: consult.opening_id });
    return ok({ consult_id: consult.id, status: 'cancelled' as const, spoken, idempotent: false });
  },
});
