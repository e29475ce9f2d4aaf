import { GetObjectCommand, ListObjectsV2Command, type S3Client } from '@aws-sdk/client-s3';
import Database from 'better-sqlite3';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ConfigError } from '../core/index.ts';
import { callerFileSchema, callerPartKey, finalStateSchema, SNAPSHOT_PARTS, snapshotKey, summarySchema, timelineFileSchema, type CallerFile, type FinalState, type SnapshotPart, type Summary, type TimelineEvent } from '../snapshot/index.ts';
import { dumpDatabase } from '../store/index.ts';

/** Read access to a snapshot root: a local directory or an S3 prefix. */
export interface SnapshotSource {
  readonly root: string;
  /** Every key under the root, relative to it (`<pack>/<call_id>.<part>`), sorted. */
  list(): Promise<string[]>;
  /** The bytes of one key, or undefined when it does not exist. */
  read(key: string): Promise<Buffer | undefined>;
  /** The address of a key, for links in reports. */
  uriOf(key: string): string;
}

/** One conversation's snapshot as read: parsed parts, or the problems that stopped them. */
export interface LoadedSnapshot {
  readonly pack: string;
  readonly callId: string;
  readonly summary: Summary | null;
  readonly events: TimelineEvent[] | null;
  readonly final: FinalState | null;
  /** Where the final state came from: final.json, or the `.db` dump when the JSON was unusable. */
  readonly finalFrom: 'json' | 'db' | null;
  /** Problems with required parts; any of them makes the conversation VOID `snapshot_missing`. */
  readonly problems: readonly string[];
  /** `<pack>/<call_id>` relative to the root, so a directory and an S3 copy score identically. */
  readonly snapshotUri: string;
  /** The WAV's key relative to the root, when present (only linked, never read). */
  readonly audioUri: string | null;
  /** The caller's own record (`caller.json`, written by mivas's caller; docs/caller.md); null when absent or unreadable. */
  readonly caller?: CallerFile | null;
}

/** The optional caller part: parsed when present and valid, else null (it never makes a snapshot incomplete). */
async function loadCallerPart(source: SnapshotSource, pack: string, callId: string): Promise<CallerFile | null> {
  const bytes = await source.read(callerPartKey(pack, callId));
  if (!bytes) return null;
  try {
    const parsed = callerFileSchema.safeParse(JSON.parse(bytes.toString('utf8')));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

const KEY = /^([a-z][a-z0-9-]*)\/([A-Za-z0-9_-]{1,64})\.(summary\.json|timeline\.json|final\.json|db|wav|caller\.json)$/;

/** A snapshot source over a local directory laid out as `<dir>/<pack>/<call_id>.<part>`. */
export function directorySource(dir: string): SnapshotSource {
  const root = resolve(dir);
  return {
    root,
    async list() {
      if (!existsSync(root) || !statSync(root).isDirectory()) throw new ConfigError('SNAPSHOTS_NOT_FOUND', `snapshot directory ${dir} does not exist`);
      const keys = readdirSync(root)
        .filter((pack) => statSync(join(root, pack)).isDirectory())
        .flatMap((pack) => readdirSync(join(root, pack)).map((name) => `${pack}/${name}`));
      return keys.sort();
    },
    async read(key) {
      const file = join(root, key);
      return existsSync(file) ? readFileSync(file) : undefined;
    },
    uriOf: (key) => join(root, key),
  };
}

/** A snapshot source over `s3://bucket/prefix`; it only lists and reads. */
export function s3Source(client: S3Client, bucket: string, prefix: string): SnapshotSource {
  const base = prefix ? `${prefix}/` : '';
  return {
    root: `s3://${bucket}/${prefix}`,
    async list() {
      const keys: string[] = [];
      let token: string | undefined;
      do {
        const page = await client.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: base, ContinuationToken: token }));
        for (const item of page.Contents ?? []) if (item.Key?.startsWith(base)) keys.push(item.Key.slice(base.length));
        token = page.IsTruncated ? page.NextContinuationToken : undefined;
      } while (token);
      return keys.sort();
    },
    async read(key) {
      try {
        const out = await client.send(new GetObjectCommand({ Bucket: bucket, Key: `${base}${key}` }));
        return out.Body ? Buffer.from(await out.Body.transformToByteArray()) : undefined;
      } catch (err) {
        if (err instanceof Error && (err.name === 'NoSuchKey' || err.name === 'NotFound')) return undefined;
        throw err;
      }
    },
    uriOf: (key) => `s3://${bucket}/${base}${key}`,
  };
}

function parseJsonPart<T>(bytes: Buffer | undefined, part: SnapshotPart, parse: (v: unknown) => { success: true; data: T } | { success: false }, problems: string[]): T | null {
  if (!bytes) {
    problems.push(`missing:${part}`);
    return null;
  }
  try {
    const parsed = parse(JSON.parse(bytes.toString('utf8')));
    if (parsed.success) return parsed.data;
  } catch {
    /* reported below */
  }
  problems.push(`unreadable:${part}`);
  return null;
}

function dumpDbBytes(bytes: Buffer): FinalState | null {
  try {
    const db = new Database(bytes, { readonly: true });
    try {
      const parsed = finalStateSchema.safeParse(dumpDatabase(db));
      return parsed.success ? parsed.data : null;
    } finally {
      db.close();
    }
  } catch {
    return null;
  }
}

async function loadFinal(source: SnapshotSource, pack: string, callId: string, problems: string[]): Promise<{ final: FinalState | null; from: 'json' | 'db' | null }> {
  const jsonProblems: string[] = [];
  const final = parseJsonPart(await source.read(snapshotKey(pack, callId, 'final.json')), 'final.json', (v) => finalStateSchema.safeParse(v), jsonProblems);
  if (final) return { final, from: 'json' };
  const db = await source.read(snapshotKey(pack, callId, 'db'));
  const dumped = db ? dumpDbBytes(db) : null;
  if (dumped) return { final: dumped, from: 'db' };
  problems.push(...jsonProblems, db ? 'unreadable:db' : 'missing:db');
  return { final: null, from: null };
}

/** Reads one conversation's parts through the snapshot schemas (scoring.md §2.1). */
export async function loadSnapshot(source: SnapshotSource, pack: string, callId: string, present: ReadonlySet<SnapshotPart>, hasCaller = true): Promise<LoadedSnapshot> {
  const problems: string[] = [];
  const summary = parseJsonPart(await source.read(snapshotKey(pack, callId, 'summary.json')), 'summary.json', (v) => summarySchema.safeParse(v), problems);
  const timeline = parseJsonPart(await source.read(snapshotKey(pack, callId, 'timeline.json')), 'timeline.json', (v) => timelineFileSchema.safeParse(v), problems);
  const { final, from } = await loadFinal(source, pack, callId, problems);
  return {
    pack,
    callId,
    summary,
    events: timeline ? [...timeline.events].sort((a, b) => a.seq - b.seq) : null,
    final,
    finalFrom: from,
    problems,
    snapshotUri: `${pack}/${callId}`,
    audioUri: present.has('wav') ? snapshotKey(pack, callId, 'wav') : null,
    caller: hasCaller ? await loadCallerPart(source, pack, callId) : null,
  };
}

/** Groups a source's keys into conversations: `<pack>/<call_id>` → parts present (and whether the caller part is). */
export function groupKeys(keys: readonly string[]): Map<string, { pack: string; callId: string; parts: Set<SnapshotPart>; caller?: boolean }> {
  const groups = new Map<string, { pack: string; callId: string; parts: Set<SnapshotPart>; caller?: boolean }>();
  for (const key of keys) {
    const m = KEY.exec(key);
    if (!m) continue;
    const [, pack = '', callId = '', part = ''] = m;
    const id = `${pack}/${callId}`;
    const group = groups.get(id) ?? { pack, callId, parts: new Set<SnapshotPart>() };
    const known = SNAPSHOT_PARTS.find((p) => p === part);
    if (known) group.parts.add(known);
    if (part === 'caller.json') group.caller = true;
    groups.set(id, group);
  }
  return groups;
}

/** Loads every conversation under a source (optionally one pack), a few reads at a time, sorted by pack and id. */
export async function loadSnapshots(source: SnapshotSource, onlyPack?: string): Promise<LoadedSnapshot[]> {
  // A caller part alone (the server never wrote the call) is not a conversation.
  const groups = [...groupKeys(await source.list()).values()].filter((g) => (!onlyPack || g.pack === onlyPack) && g.parts.size > 0);
  const out: LoadedSnapshot[] = [];
  for (let i = 0; i < groups.length; i += 8) {
    const batch = groups.slice(i, i + 8);
    out.push(...(await Promise.all(batch.map((g) => loadSnapshot(source, g.pack, g.callId, g.parts, g.caller === true)))));
  }
  return out.sort((a, b) => (a.pack === b.pack ? (a.callId < b.callId ? -1 : 1) : a.pack < b.pack ? -1 : 1));
}
