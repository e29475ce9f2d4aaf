import { z } from 'zod';
import { defineTool, normalizeFields, numberInWords, ok, pinSubject, readCallSession, recordVerificationFailure, referenceTable, refuse, rowById, rowInsert, setSessionFlags, yearInWords } from '../../../src/packs/index.ts';
import { branches, oneTimeCodes, scamReports } from '../schema.ts';
import { branchField, codeField, dateField, personNameField, readBool, readBranch, readCode, readDate, readDigits, readName, readZip, zipField } from './fields.ts';
import { BRANCH_IDS, policy, SCAM_CHANNELS } from './policy.ts';
import { findMembers, spokenEnding, verifiedMember } from './records.ts';

/** Reception, identity and the one-time code used for step-up. */

const branchRows = referenceTable(branches);
const codeById = rowById(oneTimeCodes);
const insertCode = rowInsert(oneTimeCodes);
const scamReportById = rowById(scamReports);
const insertScamReport = rowInsert(scamReports);

const branchOut = z.object({ name: z.string(), address: z.string(), address_spoken: z.string(), weekday_hours: z.string(), saturday_hours: z.string().nullable(), drive_through: z.string(), notary: z.boolean() });

/** A street address as said: the house number the way people say it ("220" is "two twenty", "1800" is "eighteen hundred"). */
function spokenAddress(address: string): string {
  return address.replace(/^\d+/, (n) => (Number(n) < 100 ? numberInWords(Number(n)) : yearInWords(Number(n))));
}

export const listBranches = defineTool({
  name: 'list_branches',
  description:
    'Use when: a caller asks where a branch is, its hours, Saturday hours, drive-through or whether it has a notary. Returns: branches keyed by branch_id, every branch or the one asked about, the address as written and as said (address_spoken), hours in words. Do not use for: anything about an account. Errors: none.',
  input: z.object({ branch_id: branchField.optional() }),
  output: z.object({ branches: z.partialRecord(z.enum(BRANCH_IDS), branchOut) }),
  effect: 'read',
  writes: [],
  normalize: (raw) => normalizeFields(raw, { branch_id: readBranch }),
  run(args, ctx) {
    const rows = branchRows(ctx.db).all.filter((b) => !args.branch_id || b.id === args.branch_id);
    return ok({
      branches: Object.fromEntries(
        rows.map((b) => [b.id, { name: b.name, address: b.address, address_spoken: spokenAddress(b.address), weekday_hours: b.weekday_hours, saturday_hours: b.saturday_hours, drive_through: b.drive_through, notary: b.has_notary === 1 }]),
      ),
    });
  },
});

export const reportScamContact = defineTool({
  name: 'report_scam_contact',
  description:
    'Use when: a caller got a call, text or email claiming to be Fennwood that asked for a code, a PIN, card details or a money transfer, or someone is pressing them to send money to a stranger. Returns: a report id and a script to read. No identity needed. Do not use for: charges on a card. Errors: none.',
  input: z.object({
    channel: z.enum(SCAM_CHANNELS).describe('How the contact came: "a call" is phone_call, "a text message" is text.'),
    asked_for: z.enum(['one_time_code', 'pin', 'card_details', 'money_transfer', 'login', 'other']).describe('What the contact asked for.'),
    money_sent: z.boolean().describe('True when the caller already sent money or gave details.'),
  }),
  output: z.object({ report_id: z.string(), idempotent: z.boolean(), script: z.string() }),
  effect: 'write',
  writes: ['scam_reports'],
  normalize: (raw) => normalizeFields(raw, { channel: readCode, asked_for: readCode, money_sent: readBool }),
  run(args, ctx) {
    const id = `scam_${args.channel}_${args.asked_for}`;
    const existing = scamReportById(ctx.db).get({ id });
    if (!existing) insertScamReport(ctx.db).run({ id, channel: args.channel, asked_for: args.asked_for, money_sent: args.money_sent ? 1 : 0, created_at: ctx.clock.now() });
    return ok({
      report_id: id,
      idempotent: existing !== undefined,
      script:
        'Thank you for reporting this. Fennwood will never call, text or email to ask for a one-time code, your PIN or your card number, and we will never ask you to move money to keep it safe. Please do not reply to that contact.',
    });
  },
});

export const verifyMember = defineTool({
  name: 'verify_member',
  description:
    'Use when: the account holder wants anything about their membership; ask full name and date of birth, and the ZIP code only when the tool asks. Returns: verified with the first name, or a refusal; three failures lock the call. Do not use for: someone calling for another person. Errors: NO_MATCH, NEED_SECOND_FACTOR, IDENTITY_LOCKED.',
  input: z.object({
    full_name: personNameField.describe("The account holder's full name."),
    date_of_birth: dateField.describe('Date of birth, YYYY-MM-DD.'),
    zip_code: zipField.optional().describe('Five digit ZIP code on file; only when the tool asks for it.'),
  }),
  output: z.object({ verified: z.literal(true), first_name: z.string() }),
  effect: 'read',
  writes: ['call_session'],
  normalize: (raw) => normalizeFields(raw, { full_name: readName, date_of_birth: readDate, zip_code: readZip }),
  run(args, ctx) {
    if (readCallSession(ctx.db).locked) return refuse('IDENTITY_LOCKED', { recoverable: false });
    const candidates = findMembers(ctx, args.full_name, args.date_of_birth);
    if (candidates.length > 1 && !args.zip_code) return refuse('NEED_SECOND_FACTOR', { recoverable: true, ask_for: 'zip_code' });
    const matches = args.zip_code ? candidates.filter((m) => m.zip_code === args.zip_code) : candidates;
    const member = matches.length === 1 ? matches[0] : undefined;
    if (!member) {
      const failures = recordVerificationFailure(ctx.db, policy.identity_lock_after_failures);
      if (failures >= policy.identity_lock_after_failures) return refuse('IDENTITY_LOCKED', { recoverable: false, failures });
      return refuse('NO_MATCH', { recoverable: true, attempts_left: policy.identity_lock_after_failures - failures });
    }
    pinSubject(ctx.db, { kind: 'member', id: member.id, method: args.zip_code ? 'name_dob_zip' : 'name_dob', gate: 'verified' });
    return ok({ verified: true as const, first_name: member.full_name.split(' ')[0] ?? member.full_name });
  },
});

/** The member's one-time code: fixed per member, so a replay always texts the same digits. */
export function oneTimeCodeFor(memberId: string): string {
  let h = 7;
  for (const c of memberId) h = (h * 31 + c.charCodeAt(0)) % 1_000_000;
  return String(h).padStart(6, '0');
}

export const sendOneTimeCode = defineTool({
  name: 'send_one_time_code',
  description:
    'Use when: a request needs step-up (a tool answered STEP_UP_REQUIRED, or the desk rules say the request always needs it). Texts a six digit code to the mobile on file. Returns: where it went and a script. Do not use for: a number the caller gives; codes only go to the number on file. Errors: NOT_VERIFIED, NO_MOBILE_ON_FILE.',
  input: z.object({}),
  output: z.object({ sent_to: z.string(), valid_minutes: z.number().int(), script: z.string() }),
  effect: 'write',
  writes: ['one_time_codes', 'call_session'],
  gate: 'verified',
  run(_args, ctx) {
    const member = verifiedMember(ctx);
    if (!member.mobile_phone) return refuse('NO_MOBILE_ON_FILE', { recoverable: false });
    const id = `otp_${member.id.slice(4)}`;
    if (!codeById(ctx.db).get({ id })) insertCode(ctx.db).run({ id, member_id: member.id, sent_to: member.mobile_phone, code: oneTimeCodeFor(member.id), created_at: ctx.clock.now() });
    const ending = spokenEnding(member.mobile_phone);
    return ok({
      sent_to: ending,
      valid_minutes: policy.one_time_code_valid_minutes,
      script: `I just texted a six digit code to the mobile number ${ending}. Please read me the code. We will never ask you for this code on a call we make to you.`,
    });
  },
});

export const checkOneTimeCode = defineTool({
  name: 'check_one_time_code',
  description:
    'Use when: the member reads back the code send_one_time_code texted. Returns: stepped_up true, which the risky tools at this desk then accept for the rest of the call. Do not use for: a code the member did not get from this call. Errors: NOT_VERIFIED, CODE_NOT_SENT, CODE_WRONG.',
  input: z.object({ code: codeField.describe('The six digits the member reads out.') }),
  output: z.object({ stepped_up: z.literal(true) }),
  effect: 'read',
  writes: ['call_session'],
  gate: 'verified',
  normalize: (raw) => normalizeFields(raw, { code: readDigits }),
  run(args, ctx) {
    const member = verifiedMember(ctx);
    const sent = codeById(ctx.db).get({ id: `otp_${member.id.slice(4)}` });
    if (!sent) return refuse('CODE_NOT_SENT', { recoverable: true });
    if (sent.code !== args.code) return refuse('CODE_WRONG', { recoverable: true });
    setSessionFlags(ctx.db, { stepped_up: true });
    return ok({ stepped_up: true as const });
  },
});
