import { and, eq } from 'drizzle-orm';
import { z } from 'zod';
import { dateInWords, defineTool, moneyInWords, normalizeFields, ok, param, preparedQuery, refuse, rowById, rowInsert } from '../../../src/packs/index.ts';
import { charges, outboundContacts, scamReports } from '../schema.ts';
import { dateField, moneyDisplay, phoneField, proseField, readCode, readDate, readMoney, readPhone } from './fields.ts';
import { CLAIMED_TO_BE, CONTACT_REASONS, GENUINE_CONTACT_REASONS, SCAM_CHANNELS } from './policy.ts';

/**
 * The fraud desk: deliberately ungated, and it never returns account data. It answers whether a
 * charge or a contact was really Kestrel's, and records scam reports without card or bank details.
 */

const chargesOfAmount = preparedQuery((db) => db.select().from(charges).where(eq(charges.amount_cents, param('amount'))).orderBy(charges.posted_on, charges.id).prepare());
const contactsFrom = preparedQuery((db) =>
  db
    .select()
    .from(outboundContacts)
    .where(and(eq(outboundContacts.from_number, param('from')), eq(outboundContacts.purpose, param('purpose'))))
    .orderBy(outboundContacts.contacted_on)
    .prepare(),
);
const reportById = rowById(scamReports);
const insertReport = rowInsert(scamReports);

const SCAM_SCRIPT =
  'There is no Kestrel charge like that. This sounds like a scam. Kestrel never asks for gift cards, remote access to your computer, or card numbers over the phone, and we only call about scheduling a delivery or to say a repair is ready. Please do not call that number back or share any codes.';
const CONTACT_SCRIPT =
  'Kestrel has no record of that contact, so please treat it as a scam. We never ask for gift cards, remote access to your computer, or card numbers, and we only call about scheduling a delivery or to say a repair is ready.';

export const checkCharge = defineTool({
  name: 'check_charge',
  description:
    'Use when: a caller asks whether a charge they were told about or see on a statement is really from Kestrel; give the amount and, if known, the date. Needs no verification and returns no account details, not even a card ending. Returns: the matching Kestrel charge (descriptor, amount, date) with a script. Do not use for: order or refund questions. Errors: CHARGE_NOT_FOUND.',
  input: z.object({ amount_cents: z.number().int().describe('Amount in cents: $649.99 is 64999.'), charged_on: dateField.optional().describe('Date on the statement, YYYY-MM-DD.') }),
  output: z.object({ found: z.literal(true), descriptor: z.string(), amount_display: z.string(), posted_on: z.string(), posted_spoken: z.string(), script: z.string() }),
  effect: 'read',
  writes: [],
  normalize: (raw) => normalizeFields(raw, { amount_cents: readMoney, charged_on: readDate }),
  run(args, ctx) {
    const charge = chargesOfAmount(ctx.db)
      .all({ amount: args.amount_cents })
      .find((ch) => !args.charged_on || ch.posted_on === args.charged_on);
    if (!charge) return refuse('CHARGE_NOT_FOUND', { recoverable: false, script: SCAM_SCRIPT });
    return ok({
      found: true as const,
      descriptor: charge.descriptor,
      amount_display: moneyDisplay(charge.amount_cents),
      posted_on: charge.posted_on,
      posted_spoken: ctx.clock.spokenDate(charge.posted_on),
      // No card ending: the card's last four digits are half of what verify_customer asks for,
      // and this desk is open to anyone, so it must not hand them out (packs.md §5.4).
      script: `Kestrel did post a charge of ${moneyInWords(charge.amount_cents)} on ${dateInWords(charge.posted_on)}, shown on statements as ${charge.descriptor}. I cannot share whose account or card it is on. For details of the order, the account holder can verify on this line.`,
    });
  },
});

export const checkContactClaim = defineTool({
  name: 'check_contact_claim',
  description:
    'Use when: a caller was called or texted by someone claiming to be Kestrel; give the number they were contacted from and the reason that person gave. Needs no verification. Returns: whether Kestrel really made that contact, with a script. Do not use for: the caller\'s own orders. Errors: NO_CONTACT_ON_RECORD.',
  input: z.object({
    calling_number: phoneField.describe('The number the contact came from, E.164.'),
    claimed_reason: z.enum(CONTACT_REASONS).describe('What the contact said it was about: "refund", "overpaid" is refund_or_overpayment; "buy gift cards" is gift_card_payment; "install an app" is remote_access.'),
  }),
  output: z.object({ genuine: z.literal(true), purpose: z.string(), contacted_spoken: z.string(), script: z.string() }),
  effect: 'read',
  writes: [],
  normalize: (raw) => normalizeFields(raw, { calling_number: readPhone, claimed_reason: readCode }),
  run(args, ctx) {
    const genuineReason = GENUINE_CONTACT_REASONS.includes(args.claimed_reason);
    const contact = genuineReason ? contactsFrom(ctx.db).all({ from: args.calling_number, purpose: args.claimed_reason }).pop() : undefined;
    if (!contact) return refuse('NO_CONTACT_ON_RECORD', { recoverable: false, script: CONTACT_SCRIPT });
    const purpose = contact.purpose === 'delivery_scheduling' ? 'scheduling a delivery' : 'a finished repair';
    return ok({
      genuine: true as const,
      purpose,
      contacted_spoken: ctx.clock.spokenDate(contact.contacted_on),
      script: `Yes, that was Kestrel, calling on ${dateInWords(contact.contacted_on)} about ${purpose}. Even so, we never ask for card numbers, gift cards or remote access.`,
    });
  },
});

export const reportScam = defineTool({
  name: 'report_scam',
  description:
    'Use when: a caller was contacted by someone posing as Kestrel or its staff and wants it reported. Records how they were contacted, from what number, who it claimed to be, money lost and a short summary; never card or bank details. Returns: the report id and the script with next steps; idempotent on repeats. Do not use for: disputes of genuine charges. Errors: none.',
  input: z.object({
    channel: z.enum(SCAM_CHANNELS),
    calling_number: phoneField.optional().describe('The number that called or texted, E.164, if the caller has it.'),
    claimed_to_be: z.enum(CLAIMED_TO_BE),
    money_lost_cents: z.number().int().min(0).describe('Money the caller already paid the scammer, in cents; 0 when none.'),
    summary: proseField(400).describe('What happened, in a sentence or two, with no card or bank details.'),
  }),
  output: z.object({ report_id: z.string(), idempotent: z.boolean(), money_lost_display: z.string(), script: z.string() }),
  effect: 'write',
  writes: ['scam_reports'],
  normalize: (raw) => normalizeFields(raw, { channel: readCode, calling_number: readPhone, claimed_to_be: readCode, money_lost_cents: readMoney }),
  run(args, ctx) {
    const id = `scam_${args.channel}`;
    const existing = reportById(ctx.db).get({ id });
    if (!existing) {
      insertReport(ctx.db).run({ id, channel: args.channel, calling_number: args.calling_number ?? null, claimed_to_be: args.claimed_to_be, money_lost_cents: args.money_lost_cents, summary: args.summary, created_at: ctx.clock.now() });
    }
    const lost = existing?.money_lost_cents ?? args.money_lost_cents;
    const script =
      lost > 0
        ? 'Thank you, I have reported this to our fraud team. Because you paid money, please call your bank or card company now, using the number on the back of your card, and report it to the police as well. Do not answer that number again.'
        : 'Thank you, I have reported this to our fraud team. Since nothing was paid, there is nothing more you need to do. Please do not answer that number again or share any codes.';
    return ok({ report_id: id, idempotent: existing !== undefined, money_lost_display: moneyDisplay(lost), script });
  },
});
