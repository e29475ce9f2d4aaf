import { and, eq } from 'drizzle-orm';
import { z } from 'zod';
import { defineTool, foldName, normalizeFields, ok, param, pinSubject, preparedQuery, readCallSession, refuse, rowById, rowInsert, setSessionFlags } from '../../../src/packs/index.ts';
import { caseNotes, formSends, intakes, practiceRules, recordsRequests } from '../schema.ts';
import {
  areaField,
  dateField,
  emailField,
  partyNameField,
  personNameField,
  phoneField,
  proseField,
  providerNameField,
  readArea,
  readCode,
  readDate,
  readEmail,
  readName,
  readParty,
  readPhone,
  readState,
  stateField,
} from './fields.ts';
import { filingWindow } from './filing-window.ts';
import { FORM_CHANNELS, NOTE_TOPICS, RECORD_TYPES, RECORDS_FOR_AREA, type Area } from './policy.ts';
import { maskEmail, maskPhone, pinnedIntake, slug, spokenDateWithYear } from './records.ts';
import { caseFitFlag, conflictClearFlag, windowRuleOf } from './screening-tools.ts';

/** Intake: the gated intake itself, then notes, forms and records releases on the intake of this call. */

const intakeById = rowById(intakes);
const insertIntake = rowInsert(intakes);
const ruleFor = preparedQuery((db) => db.select().from(practiceRules).where(and(eq(practiceRules.area, param('area')), eq(practiceRules.state, param('state')))).prepare());
const notesOf = preparedQuery((db) => db.select().from(caseNotes).where(and(eq(caseNotes.intake_id, param('intake')), eq(caseNotes.topic, param('topic')))).orderBy(caseNotes.id).prepare());
const insertNote = rowInsert(caseNotes);
const formSendById = rowById(formSends);
const insertFormSend = rowInsert(formSends);
const recordsRequestById = rowById(recordsRequests);
const insertRecordsRequest = rowInsert(recordsRequests);

/** The intake id derives from its natural key, caller name and incident date, so every route gives the same id. */
export function intakeIdFor(callerName: string, incidentDate: string): string {
  return `int_${slug(foldName(callerName), 40)}_${incidentDate.replaceAll('-', '')}`;
}

const NEXT_STEP = 'The intake team reviews every new matter within one business day and will call you back.';
// An urgent file is seen first; telling its caller "within one business day" would contradict that.
const URGENT_NEXT_STEP = 'The file is marked urgent, and the intake team sees urgent files first: they will call you back today.';

export const createIntake = defineTool({
  name: 'create_intake',
  description:
    'Use when: screening on this call found the opposing party clear and the case accepted for that area and state, and you read the details back. Returns: the intake id, priority, screening deadline and a next-step line; idempotent for the same caller and incident date. Do not use for: existing clients, or before screening. Errors: CONFLICT_CHECK_REQUIRED, INCIDENT_DATE_INVALID, DEADLINE_REVIEW_REQUIRED.',
  input: z.object({
    caller_name: personNameField.describe("The prospective client's full name."),
    phone: phoneField.describe('Best callback number, E.164.'),
    email: emailField.optional(),
    area: areaField,
    state: stateField,
    incident_date: dateField.describe('The date it happened, YYYY-MM-DD.'),
    opposing_party: partyNameField.describe('The party checked by check_conflict, as the caller named it.'),
    summary: proseField(600).describe('Two or three sentences: what happened and what the caller wants.'),
  }),
  output: z.object({
    intake_id: z.string(),
    priority: z.enum(['urgent', 'standard']),
    window_status: z.enum(['urgent', 'open']),
    deadline: z.string(),
    deadline_spoken: z.string(),
    next_step: z.string(),
    idempotent: z.boolean(),
  }),
  effect: 'write',
  writes: ['intakes', 'call_session'],
  normalize: (raw) =>
    normalizeFields(raw, { caller_name: readName, phone: readPhone, email: readEmail, area: readArea, state: readState, incident_date: readDate, opposing_party: readParty }),
  run(args, ctx) {
    const flags = readCallSession(ctx.db).flags;
    const missing = [
      ...(flags[conflictClearFlag(args.opposing_party)] === true ? [] : ['conflict_check']),
      ...(flags[caseFitFlag(args.area, args.state)] === true ? [] : ['case_fit']),
    ];
    if (missing.length) return refuse('CONFLICT_CHECK_REQUIRED', { recoverable: true, missing });
    if (args.incident_date > ctx.clock.today()) return refuse('INCIDENT_DATE_INVALID', { recoverable: true });
    const rule = windowRuleOf(ctx.db, args.area);
    const practice = ruleFor(ctx.db).get({ area: args.area, state: args.state });
    if (!rule || !practice) return refuse('CONFLICT_CHECK_REQUIRED', { recoverable: true, missing: ['case_fit'] });
    const window = filingWindow(ctx.clock, rule.rule, args.incident_date);
    if (window.status === 'expired') return refuse('DEADLINE_REVIEW_REQUIRED', { recoverable: false, days_past: -window.days_left });
    const id = intakeIdFor(args.caller_name, args.incident_date);
    const existing = intakeById(ctx.db).get({ id });
    const row = existing ?? {
      id,
      caller_name: args.caller_name,
      phone: args.phone,
      email: args.email ?? null,
      area: args.area,
      state: args.state,
      incident_date: args.incident_date,
      opposing_party: args.opposing_party,
      deadline: window.deadline,
      window_status: window.status,
      priority: window.status === 'urgent' ? 'urgent' : 'standard',
      fee_plan: practice.fee_plan,
      summary: args.summary,
      status: 'new',
      created_at: ctx.clock.now(),
    };
    if (!existing) insertIntake(ctx.db).run(row);
    pinSubject(ctx.db, { kind: 'prospect', id, method: 'intake' });
    // The call is about this prospect now: a client verified earlier on the call no longer opens the
    // client-services gate, so a gated tool always finds the client it was verified for.
    setSessionFlags(ctx.db, { verified: false });
    return ok({
      intake_id: id,
      priority: row.priority === 'urgent' ? ('urgent' as const) : ('standard' as const),
      window_status: row.window_status === 'urgent' ? ('urgent' as const) : ('open' as const),
      deadline: row.deadline,
      deadline_spoken: spokenDateWithYear(row.deadline),
      next_step: row.priority === 'urgent' ? URGENT_NEXT_STEP : NEXT_STEP,
      idempotent: existing !== undefined,
    });
  },
});

export const addCaseNote = defineTool({
  name: 'add_case_note',
  description:
    'Use when: after the intake is created on this call, the caller adds a detail worth keeping, such as injuries, treatment, witnesses, insurance, employment history or documents. Returns: the note id; repeating the same note changes nothing. Do not use for: details that belong in the intake summary before it is created. Errors: INTAKE_REQUIRED.',
  input: z.object({ topic: z.enum(NOTE_TOPICS).describe('What the note is about.'), note: proseField(600).describe('The detail in the caller\'s words, one to three sentences.') }),
  output: z.object({ note_id: z.string(), intake_id: z.string(), topic: z.string(), idempotent: z.boolean() }),
  effect: 'write',
  writes: ['case_notes', 'call_session'],
  normalize: (raw) => normalizeFields(raw, { topic: readCode }),
  run(args, ctx) {
    const intake = pinnedIntake(ctx);
    if (!intake) return refuse('INTAKE_REQUIRED', { recoverable: true });
    const notes = notesOf(ctx.db).all({ intake: intake.id, topic: args.topic });
    const same = notes.find((n) => n.note === args.note);
    if (same) return ok({ note_id: same.id, intake_id: intake.id, topic: args.topic, idempotent: true });
    const id = `note_${intake.id.slice(4)}_${args.topic}_${notes.length + 1}`;
    insertNote(ctx.db).run({ id, intake_id: intake.id, topic: args.topic, note: args.note, created_at: ctx.clock.now() });
    return ok({ note_id: id, intake_id: intake.id, topic: args.topic, idempotent: false });
  },
});

const FORM_SETS: Readonly<Record<string, string>> = { injury: 'injury_packet', workplace_injury: 'workplace_injury_packet', employment: 'employment_packet' };

export const sendIntakeForms = defineTool({
  name: 'send_intake_forms',
  description:
    'Use when: the intake on this call exists and the caller wants the intake forms by email or text, sent to the contact given at intake. Returns: the form set and where it went; idempotent on repeats. Do not use for: any other address or number. Errors: INTAKE_REQUIRED, NO_EMAIL_ON_INTAKE.',
  input: z.object({ channel: z.enum(FORM_CHANNELS).describe('email or text.') }),
  output: z.object({ form_set: z.string(), channel: z.string(), sent_to: z.string(), idempotent: z.boolean() }),
  effect: 'write',
  writes: ['form_sends', 'call_session'],
  normalize: (raw) => normalizeFields(raw, { channel: readCode }),
  run(args, ctx) {
    const intake = pinnedIntake(ctx);
    if (!intake) return refuse('INTAKE_REQUIRED', { recoverable: true });
    if (args.channel === 'email' && !intake.email) return refuse('NO_EMAIL_ON_INTAKE', { recoverable: true });
    const to = args.channel === 'email' ? (intake.email ?? '') : intake.phone;
    const id = `frm_${intake.id.slice(4)}_${args.channel}`;
    const existing = formSendById(ctx.db).get({ id });
    const formSet = FORM_SETS[intake.fee_plan] ?? 'injury_packet';
    if (!existing) insertFormSend(ctx.db).run({ id, intake_id: intake.id, channel: args.channel, sent_to: to, form_set: formSet, created_at: ctx.clock.now() });
    return ok({ form_set: formSet, channel: args.channel, sent_to: args.channel === 'email' ? maskEmail(to) : maskPhone(to), idempotent: existing !== undefined });
  },
});

export const requestRecordsRelease = defineTool({
  name: 'request_records_release',
  description:
    "Use when: the intake on this call exists and the caller wants the firm to collect medical, employment or police records; give the provider, employer or police department by name. Returns: where the signature form went and a script; idempotent on repeats. Police reports go with car and truck accidents, employment records with work and employment claims. Do not use for: records of existing clients. Errors: INTAKE_REQUIRED, RECORD_TYPE_NOT_RELEVANT.",
  input: z.object({
    record_type: z.enum(RECORD_TYPES).describe('medical, employment or police_report.'),
    provider: providerNameField.describe('The hospital, doctor, employer or police department, as the caller names it.'),
  }),
  output: z.object({ record_type: z.string(), provider: z.string(), authorization_sent_to: z.string(), script: z.string(), idempotent: z.boolean() }),
  effect: 'write',
  writes: ['records_requests', 'call_session'],
  normalize: (raw) => normalizeFields(raw, { record_type: readCode, provider: readName }),
  run(args, ctx) {
    const intake = pinnedIntake(ctx);
    if (!intake) return refuse('INTAKE_REQUIRED', { recoverable: true });
    if (!RECORDS_FOR_AREA[args.record_type].includes(intake.area as Area)) return refuse('RECORD_TYPE_NOT_RELEVANT', { recoverable: true });
    const to = intake.email ?? intake.phone;
    const id = `rec_${intake.id.slice(4)}_${args.record_type}_${slug(args.provider, 30)}`;
    const existing = recordsRequestById(ctx.db).get({ id });
    if (!existing) insertRecordsRequest(ctx.db).run({ id, intake_id: intake.id, record_type: args.record_type, provider: args.provider, authorization_sent_to: to, status: 'authorization_sent', created_at: ctx.clock.now() });
    return ok({
      record_type: args.record_type,
      provider: args.provider,
      authorization_sent_to: intake.email ? maskEmail(to) : maskPhone(to),
      script: 'We will send you an authorization form to sign. Once it is signed, the firm requests the records, so you do not need to contact them yourself.',
      idempotent: existing !== undefined,
    });
  },
});
