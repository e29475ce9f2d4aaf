import { and, eq } from 'drizzle-orm';
import { z } from 'zod';
import { canonicalJson, sha256Parts } from '../core/index.ts';
import { callSession, holds } from './session-tables.ts';
import { param, preparedQuery, rowInsert } from './prepared.ts';
import type { PackDb, ToolContext, ToolRefusal } from './tool-kit.ts';
import { refuse } from './tool-kit.ts';

const flagsSchema = z.record(z.string(), z.union([z.boolean(), z.string(), z.number()]));

/** The call's session row as tools see it. */
export interface CallSessionState {
  readonly subjectKind: string | null;
  readonly subjectId: string | null;
  readonly verifiedBy: string | null;
  readonly failures: number;
  readonly locked: boolean;
  readonly flags: Readonly<Record<string, boolean | string | number>>;
}

const sessionRow = preparedQuery((db) => db.select().from(callSession).where(eq(callSession.id, 1)).prepare());
const insertSessionRow = preparedQuery((db) => db.insert(callSession).values({ id: 1 }).onConflictDoNothing().prepare());
const updateFlags = preparedQuery((db) => db.update(callSession).set({ flags: param('flags') }).where(eq(callSession.id, 1)).prepare());
const updateSubject = preparedQuery((db) =>
  db
    .update(callSession)
    .set({ subject_kind: param('kind'), subject_id: param('id'), verified_by: param('method') })
    .where(eq(callSession.id, 1))
    .prepare(),
);
const updateFailures = preparedQuery((db) =>
  db.update(callSession).set({ failures: param('failures'), locked: param('locked') }).where(eq(callSession.id, 1)).prepare(),
);
const holdTokensOfKind = preparedQuery((db) => db.select({ token: holds.token }).from(holds).where(eq(holds.kind, param('kind'))).prepare());
const supersedeHolds = preparedQuery((db) =>
  db
    .update(holds)
    .set({ status: 'superseded' })
    .where(and(eq(holds.kind, param('kind')), eq(holds.target, param('target')), eq(holds.status, 'open')))
    .prepare(),
);
const holdByToken = preparedQuery((db) => db.select().from(holds).where(eq(holds.token, param('token'))).prepare());
const insertHold = rowInsert(holds);
const markHold = preparedQuery((db) => db.update(holds).set({ status: 'used' }).where(eq(holds.token, param('token'))).prepare());

/** Reads the call's session state (creating the single row on first use). */
export function readCallSession(db: PackDb): CallSessionState {
  let row = sessionRow(db).get();
  if (!row) {
    insertSessionRow(db).run();
    row = sessionRow(db).get();
  }
  const parsed = flagsSchema.safeParse(JSON.parse(row?.flags ?? '{}'));
  return {
    subjectKind: row?.subject_kind ?? null,
    subjectId: row?.subject_id ?? null,
    verifiedBy: row?.verified_by ?? null,
    failures: row?.failures ?? 0,
    locked: (row?.locked ?? 0) === 1,
    flags: parsed.success ? parsed.data : {},
  };
}

/** True when the session carries the named gate flag. */
export function hasGate(db: PackDb, gate: string): boolean {
  return readCallSession(db).flags[gate] === true;
}

/**
 * The subject row a gated tool runs for. The executor runs a tool that declares `gate` only once
 * the call's session carries that flag, and every tool that sets it pins the subject in the same
 * step (`pinSubject` with `gate`), so the row is there and a gated tool's body never answers
 * NOT_VERIFIED itself. A missing row is a pack bug: this throws, the executor rolls the call back
 * and answers INTERNAL_ERROR with an internal fault on the timeline.
 */
export function gatedSubject<Row>(row: Row | undefined, gate: string): Row {
  if (row === undefined) throw new Error(`a tool behind the ${gate} gate found no pinned subject`);
  return row;
}

/** Sets flags on the call session. */
export function setSessionFlags(db: PackDb, flags: Record<string, boolean | string | number>): void {
  writeFlags(db, readCallSession(db), flags);
}

function writeFlags(db: PackDb, current: CallSessionState, flags: Record<string, boolean | string | number>): void {
  updateFlags(db).run({ flags: canonicalJson({ ...current.flags, ...flags }) });
}

/** Pins the subject (patient, client, customer) the call is about and opens the given gate. */
export function pinSubject(db: PackDb, subject: { kind: string; id: string; method: string; gate?: string }): void {
  const current = readCallSession(db);
  updateSubject(db).run({ kind: subject.kind, id: subject.id, method: subject.method });
  if (subject.gate) writeFlags(db, current, { [subject.gate]: true });
}

/** Counts one failed verification; locks at the limit. Returns the new failure count. */
export function recordVerificationFailure(db: PackDb, lockAfter: number): number {
  const current = readCallSession(db);
  const failures = current.failures + 1;
  updateFailures(db).run({ failures, locked: failures >= lockAfter ? 1 : 0 });
  return failures;
}

/** An open two-step hold as stored. */
export interface OpenHold<P> {
  readonly token: string;
  readonly payload: P;
}

/** Opens a hold of `kind` for `target`, superseding older open holds of that kind and target. */
export function openHold(ctx: ToolContext, hold: { kind: string; target: string; payload: unknown }): string {
  const { db } = ctx;
  const existing = holdTokensOfKind(db).all({ kind: hold.kind });
  supersedeHolds(db).run({ kind: hold.kind, target: hold.target });
  const token = `${hold.kind}-${existing.length + 1}`;
  const payload = canonicalJson(hold.payload);
  insertHold(db).run({
    token,
    kind: hold.kind,
    subject: readCallSession(db).subjectId,
    target: hold.target,
    payload,
    payload_hash: sha256Parts([payload]).slice(0, 16),
    status: 'open',
    created_at: ctx.clock.now(),
  });
  return token;
}

/**
 * Checks a token in the order packs.md §2.3 gives and returns its stored payload without using it.
 * The confirm then checks acknowledgement and current state, writes from this payload (never from
 * re-sent arguments) and calls markHoldUsed.
 */
export function checkHold<P>(ctx: ToolContext, token: string, kind: string, payloadSchema: z.ZodType<P>): OpenHold<P> | ToolRefusal {
  const { db } = ctx;
  const row = holdByToken(db).get({ token });
  if (!row) return refuse('TOKEN_UNKNOWN');
  if (row.kind !== kind) return refuse('TOKEN_WRONG_KIND');
  if (row.subject !== readCallSession(db).subjectId) return refuse('TOKEN_WRONG_OWNER');
  if (row.status === 'used') return refuse('TOKEN_USED');
  if (row.status === 'superseded') return refuse('TOKEN_SUPERSEDED');
  const payload = payloadSchema.safeParse(JSON.parse(row.payload));
  if (!payload.success) return refuse('TOKEN_UNKNOWN');
  return { token, payload: payload.data };
}

/** Marks a checked hold as used, so a second confirm gets TOKEN_USED. */
export function markHoldUsed(db: PackDb, token: string): void {
  markHold(db).run({ token });
}
