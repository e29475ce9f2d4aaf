import { eq } from 'drizzle-orm';
import { z } from 'zod';
import { defineTool, normalizeFields, ok, preparedQuery, refuse, rowById, rowInsert, type ToolContext } from '../../../src/packs/index.ts';
import { messages, offices, practiceRules } from '../schema.ts';
import { officeOrAllField, personNameField, phoneField, proseField, readLocation, readName, readPhone, readRecipient } from './fields.ts';
import { AREA_NAMES, policy, RECIPIENTS, type Area, type Recipient } from './policy.ts';
import { attorney, maskPhone, pinnedClient, pinnedMatter, spokenDateWithYear } from './records.ts';

/** Reception: public firm facts, and messages (also taken at client services for a verified client's team). */

const allOffices = preparedQuery((db) => db.select().from(offices).orderBy(offices.id).prepare());
const acceptedRules = preparedQuery((db) => db.select().from(practiceRules).where(eq(practiceRules.accepted, 1)).orderBy(practiceRules.id).prepare());
const messageById = rowById(messages);
const insertMessage = rowInsert(messages);

const officeOut = z.object({
  office_id: z.string(),
  name: z.string(),
  state: z.string(),
  address: z.string(),
  suite: z.string(),
  phone: z.string(),
  weekday_hours: z.string(),
  saturday_hours: z.string().nullable(),
  parking: z.string(),
  languages: z.array(z.string()),
});

const areaOut = z.object({ area: z.string(), name: z.string(), states: z.array(z.string()) });

export const getFirmInfo = defineTool({
  name: 'get_firm_info',
  description:
    'Use when: a caller asks where an office is, its hours, parking, phone, which languages staff speak, or which kinds of cases the firm takes in which states. Give the office asked about, or all. Returns: that office (or every office) with its facts, and every practice area with the states where the firm takes it. Do not use for: whether one specific case fits, which screening decides. Errors: none.',
  input: z.object({ office_id: officeOrAllField }),
  output: z.object({ offices: z.array(officeOut), practice_areas: z.array(areaOut) }),
  effect: 'read',
  writes: [],
  normalize: (raw) => normalizeFields(raw, { office_id: readLocation }),
  run(args, ctx) {
    const rows = allOffices(ctx.db).all().filter((o) => args.office_id === 'all' || o.id === args.office_id);
    const byArea = new Map<string, string[]>();
    for (const rule of acceptedRules(ctx.db).all()) byArea.set(rule.area, [...(byArea.get(rule.area) ?? []), rule.state]);
    return ok({
      offices: rows.map((o) => ({
        office_id: o.id,
        name: o.name,
        state: o.state,
        address: o.address,
        suite: o.suite,
        phone: o.phone,
        weekday_hours: o.weekday_hours,
        saturday_hours: o.saturday_hours,
        parking: o.parking,
        languages: o.languages.split(', '),
      })),
      practice_areas: [...byArea].map(([area, states]) => ({ area, name: AREA_NAMES[area as Area], states: [...states].sort() })),
    });
  },
});

/** Where a message goes: the resolved recipient id and how to say it. */
function resolveRecipient(ctx: ToolContext, recipient: Recipient): { id: string; name: string; clientId: string | null } | undefined {
  const client = pinnedClient(ctx);
  if (recipient === 'assigned_team') {
    const matter = client ? pinnedMatter(ctx, client) : undefined;
    const lead = matter ? attorney(ctx.db, matter.lead_attorney_id) : undefined;
    return client && lead ? { id: lead.id, name: lead.team_name, clientId: client.id } : undefined;
  }
  if (recipient === 'intake_team') return { id: recipient, name: 'the intake team', clientId: client?.id ?? null };
  if (recipient === 'front_office') return { id: recipient, name: 'the front office', clientId: client?.id ?? null };
  return { id: recipient, name: attorney(ctx.db, recipient)?.display_name ?? recipient, clientId: client?.id ?? null };
}

export const takeMessage = defineTool({
  name: 'take_message',
  description:
    "Use when: a caller wants to leave a message for an attorney by name, the intake team, the front office, or (for a client verified on this call) their own case team as assigned_team. Give the caller's name and callback number unless a verified client uses the ones on file. Returns: who gets it and the date they reply by; idempotent on repeats. Do not use for: new case details, which screening and intake take. Errors: NOT_VERIFIED, CALLER_DETAILS_REQUIRED.",
  input: z.object({
    recipient: z.enum(RECIPIENTS).describe('Who the message is for: "my lawyer" from a verified client is assigned_team; an attorney by name is their id.'),
    caller_name: personNameField.optional().describe("The caller's full name; a verified client's name on file is used when left out."),
    callback_phone: phoneField.optional().describe('Number to call back, E.164; a verified client\'s number on file is used when left out.'),
    message: proseField(400).describe('The message in one or two sentences.'),
  }),
  output: z.object({
    message_id: z.string(),
    recipient_name: z.string(),
    callback_to: z.string(),
    reply_by: z.string(),
    reply_by_spoken: z.string(),
    idempotent: z.boolean(),
  }),
  effect: 'write',
  writes: ['messages', 'call_session'],
  normalize: (raw) => normalizeFields(raw, { recipient: readRecipient, caller_name: readName, callback_phone: readPhone }),
  run(args, ctx) {
    const target = resolveRecipient(ctx, args.recipient);
    if (!target) return refuse('NOT_VERIFIED');
    const client = pinnedClient(ctx);
    const callerName = args.caller_name ?? client?.full_name;
    const phone = args.callback_phone ?? client?.phone;
    if (!callerName || !phone) return refuse('CALLER_DETAILS_REQUIRED', { recoverable: true });
    const id = `msg_${target.id}_${phone.replace(/\D/g, '')}`;
    const existing = messageById(ctx.db).get({ id });
    const replyBy = existing?.reply_by ?? ctx.clock.addBusinessDays(ctx.clock.today(), policy.team_reply_business_days);
    if (!existing) {
      insertMessage(ctx.db).run({ id, recipient: target.id, client_id: target.clientId, caller_name: callerName, callback_phone: phone, message: args.message, reply_by: replyBy, created_at: ctx.clock.now() });
    }
    return ok({ message_id: id, recipient_name: target.name, callback_to: maskPhone(phone), reply_by: replyBy, reply_by_spoken: spokenDateWithYear(replyBy), idempotent: existing !== undefined });
  },
});
