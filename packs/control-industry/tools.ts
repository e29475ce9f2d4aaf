import { eq } from 'drizzle-orm';
import { z } from 'zod';
import { defineTool, normalizeDate, normalizeFields, ok, param, preparedQuery, refuse, rowInsert, type ErrorCodeEntry, type PackClock } from '../../src/packs/index.ts';
import { appointments } from './schema.ts';

const appointmentOn = preparedQuery((db) => db.select().from(appointments).where(eq(appointments.date, param('date'))).prepare());
const insertAppointment = rowInsert(appointments);

/** Maple Lane's fixed clock: Monday 2026-10-05 09:00 in New York. */
export const clock = { now: '2026-10-05T09:00', timezone: 'America/New_York' } as const;

/** Every number the tools read. */
export const policy = { closed_weekday: 0, booking_horizon_days: 60 } as const;

/** The scheduler is the one sink; there is no gate. */
export const graphRules = { sinks: ['scheduler'], gates: {} } as const;

/** Refusals with their fixed spoken sentences. */
export const errorCodes: Record<string, ErrorCodeEntry> = {
  PAST_DATE: { safe_message: 'That date has already passed, so it cannot be booked.', recoverable: true },
  CLOSED_DAY: { safe_message: 'We are closed that day.', recoverable: true },
  BEYOND_HORIZON: { safe_message: 'We only book up to sixty days ahead.', recoverable: true },
};

const date = z.string().regex(/^\d{4}-\d{2}-\d{2}$/).describe('The visit date, YYYY-MM-DD.');
const dateInput = z.object({ date });
const referenceYear = Number(clock.now.slice(0, 4));
const normalize = (raw: Readonly<Record<string, unknown>>): Record<string, unknown> =>
  normalizeFields(raw, { date: (v) => normalizeDate(v, referenceYear) });

function isClosed(c: PackClock, day: string): boolean {
  return c.weekday(day) === policy.closed_weekday;
}

function nextOpenDate(c: PackClock, day: string): string {
  let next = c.addDays(day, 1);
  while (isClosed(c, next)) next = c.addDays(next, 1);
  return next;
}

const checkDate = defineTool({
  name: 'check_date',
  description:
    'Use when: the caller asks whether a day is open for a repair visit. Returns: status open or closed, the spoken date, and the next open date when closed. Do not use for: booking. Errors: PAST_DATE, BEYOND_HORIZON.',
  input: dateInput,
  output: z.object({
    date,
    spoken_date: z.string(),
    status: z.enum(['open', 'closed']),
    next_open_date: date.optional(),
    next_open_spoken: z.string().optional(),
  }),
  effect: 'read',
  writes: [],
  normalize,
  run(args, ctx) {
    const c = ctx.clock;
    if (args.date < c.today()) return refuse('PAST_DATE');
    if (args.date > c.addDays(c.today(), policy.booking_horizon_days)) return refuse('BEYOND_HORIZON');
    if (!isClosed(c, args.date)) return ok({ date: args.date, spoken_date: c.spokenDate(args.date), status: 'open' as const });
    const next = nextOpenDate(c, args.date);
    return ok({ date: args.date, spoken_date: c.spokenDate(args.date), status: 'closed' as const, next_open_date: next, next_open_spoken: c.spokenDate(next) });
  },
});

const bookAppointment = defineTool({
  name: 'book_appointment',
  description:
    'Use when: the caller has chosen an open date and you have read it back. Returns: the appointment id, date and spoken date; idempotent is true when that date was already booked on this call. Do not use for: checking a date. Errors: PAST_DATE, CLOSED_DAY, BEYOND_HORIZON.',
  input: dateInput,
  output: z.object({ appointment_id: z.string(), date, spoken_date: z.string(), idempotent: z.boolean() }),
  effect: 'write',
  writes: ['appointments'],
  normalize,
  run(args, ctx) {
    const c = ctx.clock;
    if (args.date < c.today()) return refuse('PAST_DATE');
    if (args.date > c.addDays(c.today(), policy.booking_horizon_days)) return refuse('BEYOND_HORIZON');
    if (isClosed(c, args.date)) return refuse('CLOSED_DAY', { next_open_date: nextOpenDate(c, args.date) });
    const id = `appt_${args.date.replaceAll('-', '')}`;
    const existing = appointmentOn(ctx.db).get({ date: args.date });
    if (!existing) insertAppointment(ctx.db).run({ id, date: args.date, created_at: c.now() });
    return ok({ appointment_id: id, date: args.date, spoken_date: c.spokenDate(args.date), idempotent: existing !== undefined });
  },
});

/** The pack's dispatchable tools. */
export const tools = [checkDate, bookAppointment];
