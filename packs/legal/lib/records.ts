import { eq } from 'drizzle-orm';
import { gatedSubject, hasGate, param, preparedQuery, readCallSession, rowById, dateInWords, yearInWords, type PackDb, type ToolContext } from '../../../src/packs/index.ts';
import { attorneys, clients, intakes, matters, offices } from '../schema.ts';

/** Row shapes, the call's pinned subject and display lookups shared by the Halverson & Reed tools. */

export type ClientRow = typeof clients.$inferSelect;
export type MatterRow = typeof matters.$inferSelect;
export type IntakeRow = typeof intakes.$inferSelect;
export type AttorneyRow = typeof attorneys.$inferSelect;

const clientById = rowById(clients);
const intakeById = rowById(intakes);
const attorneyById = rowById(attorneys);
const officeNameById = preparedQuery((db) => db.select({ name: offices.name }).from(offices).where(eq(offices.id, param('id'))).prepare());
const mattersOfClient = preparedQuery((db) => db.select().from(matters).where(eq(matters.client_id, param('client'))).orderBy(matters.opened_on, matters.id).prepare());

/** The client verified on this call, if any. */
export function pinnedClient(ctx: ToolContext): ClientRow | undefined {
  const session = readCallSession(ctx.db);
  if (session.subjectKind !== 'client' || !session.subjectId || !hasGate(ctx.db, 'verified')) return undefined;
  return clientById(ctx.db).get({ id: session.subjectId });
}

/** The client a tool behind the `verified` gate runs for: verify_client pins one as it opens the gate. */
export function verifiedClient(ctx: ToolContext): ClientRow {
  return gatedSubject(pinnedClient(ctx), 'verified');
}

/** The matter the client verified with (kept in the session), else their latest matter. */
export function pinnedMatter(ctx: ToolContext, client: ClientRow): MatterRow | undefined {
  const chosen = readCallSession(ctx.db).flags.matter_id;
  const all = mattersOfClient(ctx.db).all({ client: client.id });
  return all.find((m) => m.id === chosen) ?? all[all.length - 1];
}

/** The intake created on this call, if any. */
export function pinnedIntake(ctx: ToolContext): IntakeRow | undefined {
  const session = readCallSession(ctx.db);
  if (session.subjectKind !== 'prospect' || !session.subjectId) return undefined;
  return intakeById(ctx.db).get({ id: session.subjectId });
}

/** Attorney row by id. */
export function attorney(db: PackDb, id: string): AttorneyRow | undefined {
  return attorneyById(db).get({ id });
}

/** Display name of an office, or "video call" for the video location. */
export function locationName(db: PackDb, id: string): string {
  if (id === 'video') return 'video call';
  return officeNameById(db).get({ id })?.name ?? id;
}

/** A stable id part from free words: lower case, underscores, at most `max` characters. */
export function slug(text: string, max = 40): string {
  return text
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .slice(0, max);
}

/** Masks a phone number to its last four digits for speaking. */
export function maskPhone(phone: string): string {
  return `the number ending in ${phone.slice(-4)}`;
}

/** Masks an email address to its first letter and domain for speaking. */
export function maskEmail(email: string): string {
  const [user = '', domain = ''] = email.split('@');
  return `the email starting with ${user.slice(0, 1)} at ${domain}`;
}

/** "Wednesday, October seventh, twenty twenty-six": a spoken date that always says its year (deadlines, replies). */
export function spokenDateWithYear(date: string): string {
  return `${dateInWords(date)}, ${yearInWords(Number(date.split('-')[0]))}`;
}
