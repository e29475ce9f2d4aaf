import { and, eq } from 'drizzle-orm';
import { z } from 'zod';
import { defineTool, gatedSubject, normalizeFields, numberInWords, ok, param, pinSubject, preparedQuery, readCallSession, recordVerificationFailure, refuse, rowById, rowInsert, setSessionFlags } from '../../../src/packs/index.ts';
import { clients, contactUpdates, matters, offices } from '../schema.ts';
import {
  cityField,
  dateField,
  emailField,
  matterNumberField,
  phoneField,
  readCode,
  readDate,
  readEmail,
  readMatterNumber,
  readName,
  readPhone,
  readState,
  readZip,
  stateField,
  streetField,
  zipField,
} from './fields.ts';
import { AREA_NAMES, CALLER_ROLES, policy, STAGE_NAMES, type Area } from './policy.ts';
import { attorney, pinnedMatter, spokenDateWithYear, verifiedClient } from './records.ts';

/** Client services: the client gate (verify_client), matter status and contact updates. */

const matterByNumber = preparedQuery((db) => db.select().from(matters).where(eq(matters.matter_number, param('number'))).prepare());
const clientById = rowById(clients);
const officeById = rowById(offices);
const updatesOf = preparedQuery((db) =>
  db.select({ id: contactUpdates.id }).from(contactUpdates).where(and(eq(contactUpdates.client_id, param('client')), eq(contactUpdates.field, param('field')))).prepare(),
);
const insertUpdate = rowInsert(contactUpdates);
const CONTACT_FIELDS = ['phone', 'email', 'street', 'city', 'state', 'zip'] as const;
const setContact = preparedQuery((db) =>
  db
    .update(clients)
    .set({ phone: param('phone'), email: param('email'), street: param('street'), city: param('city'), state: param('state'), zip: param('zip') })
    .where(eq(clients.id, param('id')))
    .prepare(),
);

export const verifyClient = defineTool({
  name: 'verify_client',
  description:
    'Use when: a caller says they are an existing client and wants anything about their matter; ask the client for the matter number and date of birth. Someone calling for a client gives only caller_role family_member or other, without the client\'s details, and gets the third-party script. Returns: verified with the first name and matter area, or a refusal; three failures lock the call. Do not use for: new matters. Errors: VERIFICATION_DETAILS_REQUIRED, NO_MATCH, CLIENT_LOCKED, THIRD_PARTY_CALLER.',
  input: z.object({
    matter_number: matterNumberField.optional(),
    date_of_birth: dateField.optional().describe("The client's date of birth, YYYY-MM-DD; both are needed when the client is calling."),
    caller_role: z.enum(CALLER_ROLES).describe('client when the client is calling; family_member for a spouse or relative; other for anyone else.'),
  }),
  output: z.object({ verified: z.literal(true), first_name: z.string(), matter_number: z.string(), area_name: z.string() }),
  effect: 'read',
  writes: ['call_session'],
  normalize: (raw) => normalizeFields(raw, { matter_number: readMatterNumber, date_of_birth: readDate, caller_role: readCode }),
  run(args, ctx) {
    if (args.caller_role !== 'client') {
      // Someone other than the client is on the line now: a client verified earlier on this call no
      // longer opens the gate, and no lookup is made, so a third party never learns whether details match.
      setSessionFlags(ctx.db, { verified: false });
      return refuse('THIRD_PARTY_CALLER', { recoverable: false });
    }
    if (readCallSession(ctx.db).locked) return refuse('CLIENT_LOCKED', { recoverable: false });
    if (args.matter_number === undefined || args.date_of_birth === undefined) return refuse('VERIFICATION_DETAILS_REQUIRED', { recoverable: true });
    const matter = matterByNumber(ctx.db).get({ number: args.matter_number });
    const client = matter ? clientById(ctx.db).get({ id: matter.client_id }) : undefined;
    if (!matter || !client || client.date_of_birth !== args.date_of_birth) {
      const failures = recordVerificationFailure(ctx.db, policy.client_verify_lock_after_failures);
      if (failures >= policy.client_verify_lock_after_failures) return refuse('CLIENT_LOCKED', { recoverable: false, failures });
      return refuse('NO_MATCH', { recoverable: true, attempts_left: policy.client_verify_lock_after_failures - failures });
    }
    pinSubject(ctx.db, { kind: 'client', id: client.id, method: 'matter_number_dob', gate: 'verified' });
    setSessionFlags(ctx.db, { matter_id: matter.id });
    return ok({ verified: true as const, first_name: client.full_name.split(' ')[0] ?? client.full_name, matter_number: matter.matter_number, area_name: AREA_NAMES[matter.area as Area] });
  },
});

const STATUS_SCRIPT = 'I can tell you where the case stands. I cannot give legal advice, predict how it will turn out or say what it may be worth; your attorney can talk with you about that.';

export const getMatterStatus = defineTool({
  name: 'get_matter_status',
  description:
    "Use when: a client verified on this call asks where their case stands. Returns: the stage in plain words, the next step, the lead attorney, paralegal and office, the last update date, and a script; a closed matter says when it closed. Never advice, value or predictions. Do not use for: anyone not verified as the client. Errors: NOT_VERIFIED.",
  input: z.object({}),
  output: z.object({
    matter_number: z.string(),
    area_name: z.string(),
    stage: z.string(),
    stage_description: z.string(),
    next_step: z.string().nullable(),
    lead_attorney: z.string(),
    paralegal: z.string(),
    team_name: z.string(),
    office: z.string(),
    last_update_spoken: z.string(),
    closed_on: z.string().nullable(),
    closed_spoken: z.string().nullable(),
    script: z.string(),
  }),
  effect: 'read',
  writes: ['call_session'],
  gate: 'verified',
  run(_args, ctx) {
    const client = verifiedClient(ctx);
    const matter = gatedSubject(pinnedMatter(ctx, client), 'verified');
    const lead = attorney(ctx.db, matter.lead_attorney_id);
    const closedScript = `This matter was closed. The firm keeps closed files for ${numberInWords(policy.closed_file_retention_years)} years, and the team can send you a copy. A new legal problem starts with a new intake.`;
    return ok({
      matter_number: matter.matter_number,
      area_name: AREA_NAMES[matter.area as Area],
      stage: matter.stage,
      stage_description: STAGE_NAMES[matter.stage] ?? matter.stage,
      next_step: matter.next_step,
      lead_attorney: lead?.display_name ?? 'your attorney',
      paralegal: lead?.paralegal_name ?? 'your paralegal',
      team_name: lead?.team_name ?? 'your team',
      office: officeById(ctx.db).get({ id: matter.office_id })?.name ?? matter.office_id,
      last_update_spoken: spokenDateWithYear(matter.last_update_on),
      closed_on: matter.closed_on,
      closed_spoken: matter.closed_on ? spokenDateWithYear(matter.closed_on) : null,
      script: matter.stage === 'closed' ? closedScript : STATUS_SCRIPT,
    });
  },
});

export const updateContactDetails = defineTool({
  name: 'update_contact_details',
  description:
    "Use when: a client verified on this call gives a new phone number, email or mailing address; read it back first and pass only the fields that change. Returns: the fields updated and those already on file; repeats change nothing. Do not use for: anyone else's details. Errors: NOT_VERIFIED, NO_CHANGES_GIVEN.",
  input: z.object({
    phone: phoneField.optional().describe('New phone number, E.164.'),
    email: emailField.optional(),
    street: streetField.optional().describe('Street line, such as "42 Elm Street, Apartment 3".'),
    city: cityField.optional(),
    state: stateField.optional(),
    zip: zipField.optional(),
  }),
  output: z.object({ updated_fields: z.array(z.string()), unchanged_fields: z.array(z.string()), idempotent: z.boolean() }),
  effect: 'write',
  writes: ['clients', 'contact_updates', 'call_session'],
  gate: 'verified',
  normalize: (raw) => normalizeFields(raw, { phone: readPhone, email: readEmail, street: readName, city: readName, state: readState, zip: readZip }),
  run(args, ctx) {
    const client = verifiedClient(ctx);
    const given = CONTACT_FIELDS.filter((f) => args[f] !== undefined);
    if (!given.length) return refuse('NO_CHANGES_GIVEN', { recoverable: true });
    const updated: string[] = [];
    const unchanged: string[] = [];
    const next = { phone: client.phone, email: client.email, street: client.street, city: client.city, state: client.state, zip: client.zip };
    for (const field of given) {
      const value = args[field] ?? '';
      if (client[field] === value) {
        unchanged.push(field);
        continue;
      }
      next[field] = value;
      const n = updatesOf(ctx.db).all({ client: client.id, field }).length + 1;
      insertUpdate(ctx.db).run({ id: `cu_${client.id.slice(4)}_${field}_${n}`, client_id: client.id, field, old_value: client[field], new_value: value, created_at: ctx.clock.now() });
      updated.push(field);
    }
    if (updated.length) setContact(ctx.db).run({ ...next, id: client.id });
    return ok({ updated_fields: updated, unchanged_fields: unchanged, idempotent: updated.length === 0 });
  },
});
