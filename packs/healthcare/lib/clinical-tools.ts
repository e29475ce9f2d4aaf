import { and, eq } from 'drizzle-orm';
import { z } from 'zod';
import { dateInWords, defineTool, normalizeFields, ok, type PackClock, param, preparedQuery, refuse, rowById, rowInsert } from '../../../src/packs/index.ts';
import { careMessages, medications, patients, portalInvites, refillRequests, results } from '../schema.ts';
import { proseField, readCode, readEnum } from './fields.ts';
import { CARE_TOPICS, MEDICATION_ALIASES, MEDICATIONS, policy, RESULT_KINDS } from './policy.ts';
import { providerName, verifiedPatient } from './records.ts';

/** Clinical desk: result status, refill routing, care messages, portal invites. */

const resultsOfKind = preparedQuery((db) =>
  db.select().from(results).where(and(eq(results.patient_id, param('patient')), eq(results.kind, param('kind')))).prepare(),
);
const activeMedication = preparedQuery((db) =>
  db
    .select()
    .from(medications)
    .where(and(eq(medications.patient_id, param('patient')), eq(medications.generic, param('generic')), eq(medications.active, 1)))
    .prepare(),
);
const refillById = rowById(refillRequests);
const insertRefill = rowInsert(refillRequests);
const careMessagesOf = preparedQuery((db) => db.select().from(careMessages).where(eq(careMessages.patient_id, param('patient'))).prepare());
const insertCareMessage = rowInsert(careMessages);
const portalInviteById = rowById(portalInvites);
const insertPortalInvite = rowInsert(portalInvites);
const markPortalInvited = preparedQuery((db) => db.update(patients).set({ portal_status: 'invited' }).where(eq(patients.id, param('id'))).prepare());

const NO_VALUES = 'I am not able to read results or explain them over the phone.';

export const checkResultStatus = defineTool({
  name: 'check_result_status',
  description:
    'Use when: a verified patient asks whether a biopsy, blood work, culture or patch test result is back. Returns: the status of the latest one of that kind (pending, awaiting_review or reviewed), the dates that go with it and a script; never values. Do not use for: reading or interpreting results. Errors: NOT_VERIFIED, RESULT_NOT_ON_FILE.',
  input: z.object({ kind: z.enum(RESULT_KINDS).describe('"Pathology" or "skin sample" is biopsy; "labs" is blood_work.') }),
  output: z.object({ kind: z.string(), status: z.enum(['pending', 'awaiting_review', 'reviewed']), collected_spoken: z.string(), expected_by_spoken: z.string().nullable(), provider: z.string(), script: z.string() }),
  effect: 'read',
  writes: ['call_session'],
  gate: 'verified',
  normalize: (raw) => normalizeFields(raw, { kind: readEnum({ pathology: 'biopsy', skin_sample: 'biopsy', labs: 'blood_work', blood_test: 'blood_work', patch_testing: 'patch_test' }) }),
  run(args, ctx) {
    const patient = verifiedPatient(ctx);
    const row = resultsOfKind(ctx.db)
      .all({ patient: patient.id, kind: args.kind })
      .sort((a, b) => (a.collected_on < b.collected_on ? 1 : -1))[0];
    if (!row) return refuse('RESULT_NOT_ON_FILE', { recoverable: false, script: 'I do not see a result of that kind on your record. If you had a test recently, it may still be on its way to us.' });
    const provider = providerName(ctx.db, row.provider_id);
    const status = row.status as 'pending' | 'awaiting_review' | 'reviewed';
    let expected: string | null = null;
    let script: string;
    if (status === 'pending') {
      expected = ctx.clock.addBusinessDays(row.collected_on, policy.result_turnaround_business_days);
      script = `Your sample is still at the lab. Results usually arrive by ${dateInWords(expected)}, and ${provider}'s team will contact you after reviewing them. ${NO_VALUES}`;
    } else if (status === 'awaiting_review') {
      expected = ctx.clock.addBusinessDays(row.resulted_on ?? row.collected_on, policy.result_review_business_days);
      script = `Your result has come back and is waiting for ${provider} to review it. The team will contact you by ${dateInWords(expected)}. ${NO_VALUES}`;
    } else {
      script = `${provider} has reviewed this result. It is in your patient portal, and the team will reach out if anything needs follow up. ${NO_VALUES}`;
    }
    return ok({ kind: row.kind, status, collected_spoken: ctx.clock.spokenDate(row.collected_on), expected_by_spoken: expected ? ctx.clock.spokenDate(expected) : null, provider, script });
  },
});

function reviewCutoff(clock: PackClock): string {
  const [y = 0, m = 1, d = 1] = clock.today().split('-').map(Number);
  const months = y * 12 + (m - 1) - policy.medication_review_months;
  const cy = Math.floor(months / 12);
  const cm = (months % 12) + 1;
  const last = new Date(Date.UTC(cy, cm, 0)).getUTCDate();
  return `${cy}-${String(cm).padStart(2, '0')}-${String(Math.min(d, last)).padStart(2, '0')}`;
}

export const requestRefill = defineTool({
  name: 'request_refill',
  description:
    "Use when: a verified patient asks for a refill of a medication on their active list. Sends the request to the prescriber, who decides; you never approve. Returns: the prescriber, the decision date and a script. Do not use for: new medications or dose advice. Errors: NOT_VERIFIED, MEDICATION_NOT_ON_LIST, REFILL_BY_VISIT_ONLY, REFILL_NEEDS_VISIT.",
  input: z.object({ medication: z.enum(MEDICATIONS).describe('Generic name: "Retin-A" is tretinoin; "Accutane" is isotretinoin; "Efudex" is fluorouracil.') }),
  output: z.object({ refill_id: z.string(), medication_name: z.string(), prescriber: z.string(), status: z.literal('sent_to_prescriber'), decide_by_spoken: z.string(), idempotent: z.boolean(), script: z.string() }),
  effect: 'write',
  writes: ['refill_requests', 'call_session'],
  gate: 'verified',
  normalize: (raw) => normalizeFields(raw, { medication: readEnum(MEDICATION_ALIASES) }),
  run(args, ctx) {
    const patient = verifiedPatient(ctx);
    const med = activeMedication(ctx.db).get({ patient: patient.id, generic: args.medication });
    if (!med) return refuse('MEDICATION_NOT_ON_LIST', { recoverable: false, script: 'A new prescription or a stopped medication starts with a visit with your provider.' });
    if (med.generic === 'isotretinoin') return refuse('REFILL_BY_VISIT_ONLY', { recoverable: false, script: 'Isotretinoin is renewed only at your monthly monitoring visit, never by phone. I can ask the care team to call you back about it.' });
    const cutoff = reviewCutoff(ctx.clock);
    if (med.last_reviewed_on < cutoff) return refuse('REFILL_NEEDS_VISIT', { recoverable: false, last_reviewed_on: med.last_reviewed_on, last_reviewed_spoken: ctx.clock.spokenDate(med.last_reviewed_on), review_window_months: policy.medication_review_months });
    const id = `rfl_${med.id.slice(4)}`;
    const existing = refillById(ctx.db).get({ id });
    const decideBy = existing?.decide_by ?? ctx.clock.addBusinessDays(ctx.clock.today(), policy.refill_decision_business_days);
    if (!existing) insertRefill(ctx.db).run({ id, patient_id: patient.id, medication_id: med.id, prescriber_id: med.prescriber_id, status: 'sent_to_prescriber', decide_by: decideBy, created_at: ctx.clock.now() });
    const prescriber = providerName(ctx.db, med.prescriber_id);
    const spoken = ctx.clock.spokenDate(decideBy);
    return ok({ refill_id: id, medication_name: med.display_name, prescriber, status: 'sent_to_prescriber' as const, decide_by_spoken: spoken, idempotent: existing !== undefined, script: `I have sent the refill request to ${prescriber}, who will decide by ${dateInWords(decideBy)}. Your pharmacy will be notified if it is approved.` });
  },
});

function respondBy(clock: PackClock, priority: 'urgent' | 'routine'): { at: string; reason: string } {
  const now = clock.now();
  const today = clock.today();
  const hour = Number(now.slice(11, 13)) + Number(now.slice(14, 16)) / 60;
  if (priority === 'urgent') {
    const open = clock.isBusinessDay(today) && hour >= policy.office_open_hour && hour + policy.urgent_reply_hours <= policy.office_close_hour;
    if (open) {
      const h = Number(now.slice(11, 13)) + policy.urgent_reply_hours;
      return { at: `${today}T${String(h).padStart(2, '0')}:${now.slice(14, 16)}`, reason: `urgent: within ${policy.urgent_reply_hours} hours while offices are open` };
    }
    return { at: `${clock.addBusinessDays(today, 1)}T${policy.urgent_after_hours_reply_time}`, reason: 'urgent after hours: by 10 a.m. the next business day' };
  }
  return { at: `${clock.addBusinessDays(today, policy.routine_reply_business_days)}T${String(policy.office_close_hour).padStart(2, '0')}:00`, reason: `routine: within ${policy.routine_reply_business_days} business days` };
}

export const sendCareMessage = defineTool({
  name: 'send_care_message',
  description:
    'Use when: a verified patient has a non-emergency clinical question for the care team; urgent for problems after a procedure or a reaction getting worse, routine otherwise. Returns: when the team will respond, its reason, and the emergency script to read. Do not use for: emergencies, which go to a person at once. Errors: NOT_VERIFIED.',
  input: z.object({ priority: z.enum(['urgent', 'routine']), topic: z.enum(CARE_TOPICS), message: proseField(500).describe("The caller's concern in their words.") }),
  output: z.object({ message_id: z.string(), priority: z.string(), respond_by: z.string(), respond_by_spoken: z.string(), respond_reason: z.string(), idempotent: z.boolean(), script: z.string() }),
  effect: 'write',
  writes: ['care_messages', 'call_session'],
  gate: 'verified',
  normalize: (raw) => normalizeFields(raw, { priority: readCode, topic: readCode }),
  run(args, ctx) {
    const patient = verifiedPatient(ctx);
    const mine = careMessagesOf(ctx.db).all({ patient: patient.id });
    const existing = mine.find((m) => m.topic === args.topic && m.priority === args.priority);
    const id = existing?.id ?? `msg_${patient.id.slice(4)}_${mine.length + 1}`;
    const due = respondBy(ctx.clock, args.priority);
    if (!existing) insertCareMessage(ctx.db).run({ id, patient_id: patient.id, priority: args.priority, topic: args.topic, message: args.message, respond_by: due.at, created_at: ctx.clock.now() });
    return ok({
      message_id: id,
      priority: args.priority,
      respond_by: due.at,
      respond_by_spoken: ctx.clock.spokenDateTime(due.at),
      respond_reason: due.reason,
      idempotent: existing !== undefined,
      script: 'If things get worse, such as a fever, spreading redness, or bleeding that does not stop with pressure, call nine one one or go to the nearest emergency room.',
    });
  },
});

export const sendPortalInvite = defineTool({
  name: 'send_portal_invite',
  description:
    'Use when: a verified patient wants access to the patient portal, where reviewed results and messages live. Sends an invite to the email on file, valid seven days. Returns: the masked email and expiry; idempotent on repeats. Do not use for: any other email address. Errors: NOT_VERIFIED, PORTAL_ALREADY_ACTIVE, NO_EMAIL_ON_FILE.',
  input: z.object({}),
  output: z.object({ sent_to: z.string(), expires_spoken: z.string(), idempotent: z.boolean() }),
  effect: 'write',
  writes: ['portal_invites', 'patients', 'call_session'],
  gate: 'verified',
  run(_args, ctx) {
    const patient = verifiedPatient(ctx);
    if (patient.portal_status === 'active') return refuse('PORTAL_ALREADY_ACTIVE', { recoverable: false });
    if (!patient.email) return refuse('NO_EMAIL_ON_FILE', { recoverable: false });
    const id = `inv_${patient.id.slice(4)}`;
    const existing = portalInviteById(ctx.db).get({ id });
    const expires = existing?.expires_on ?? ctx.clock.addDays(ctx.clock.today(), policy.portal_invite_valid_days);
    if (!existing) {
      insertPortalInvite(ctx.db).run({ id, patient_id: patient.id, email: patient.email, expires_on: expires, created_at: ctx.clock.now() });
      markPortalInvited(ctx.db).run({ id: patient.id });
    }
    const [user = '', domain = ''] = patient.email.split('@');
    return ok({ sent_to: `${user.slice(0, 1)} at ${domain}`, expires_spoken: ctx.clock.spokenDate(expires), idempotent: existing !== undefined });
  },
});
