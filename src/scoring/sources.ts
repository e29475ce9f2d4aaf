import { GetObjectCommand, ListObjectsV2Command, type S3Client } from '@aws-sdk/client-s3';
import { closeSync, constants, existsSync, fstatSync, lstatSync, openSync, readdirSync, readSync, realpathSync, statSync, type Stats } from 'node:fs';
import { join, resolve, sep } from 'node:path';
import { ConfigError, ID_CHARS } from '../core/index.ts';
import { callerFileSchema, callerPartKey, finalStateSchema, SNAPSHOT_PARTS, snapshotKey, summarySchema, timelineFileSchema, type CallerFile, type FinalState, type SnapshotPart, type Summary, type TimelineEvent } from '../snapshot/index.ts';
import { dumpDatabaseAt } from '../store/index.ts';

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

/** The largest file a source reads: JSON parts, and the rest (`.db`; a `.wav` is only listed, never read). */
export interface SourceLimits {
  readonly maxJsonBytes: number;
  readonly maxFileBytes: number;
}

/** 32 MiB of JSON (the server cuts a timeline at 16 MiB) and 256 MiB for any other part. */
export const DEFAULT_SOURCE_LIMITS: SourceLimits = { maxJsonBytes: 32 * 1024 * 1024, maxFileBytes: 256 * 1024 * 1024 };

/** Told once per key a source or the loader leaves out, with the reason (the scorer prints it on stderr). */
export type SkipReporter = (key: string, reason: string) => void;

/** What a directory or S3 source is given besides its address. */
export interface SourceOptions {
  readonly limits?: SourceLimits;
  readonly onSkip?: SkipReporter;
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

const KEY = new RegExp(`^([a-z][a-z0-9-]*)/(${ID_CHARS})\\.(summary\\.json|timeline\\.json|final\\.json|db|wav|caller\\.json)$`);

function capOf(key: string, limits: SourceLimits): number {
  return key.endsWith('.json') ? limits.maxJsonBytes : limits.maxFileBytes;
}

function kindOf(st: Stats): string {
  if (st.isFIFO()) return 'a FIFO';
  if (st.isCharacterDevice() || st.isBlockDevice()) return 'a device';
  if (st.isSocket()) return 'a socket';
  return st.isDirectory() ? 'a directory' : 'not a regular file';
}

/** Reports each key once, however often it is listed or read. */
function onceEach(report: SkipReporter | undefined): SkipReporter {
  const told = new Set<string>();
  return (key, reason) => {
    if (told.has(key)) return;
    told.add(key);
    report?.(key, reason);
  };
}

/**
 * Why a path under the root may not be read, or null: a link that leads out of the folder or
 * nowhere, anything but a regular file (a directory where `dir` is asked), or a file over `cap`.
 * `missing` when nothing is there. Links inside the folder are followed.
 */
function refusal(root: string, path: string, want: 'file' | 'dir', cap: number): string | null {
  const own = lstatSync(path, { throwIfNoEntry: false });
  if (!own) return 'missing';
  if (own.isSymbolicLink()) {
    let real: string;
    try {
      real = realpathSync(path);
    } catch {
      return 'a dangling symbolic link';
    }
    if (real !== root && !real.startsWith(`${root}${sep}`)) return `a symbolic link out of the folder (to ${real})`;
  }
  const st = own.isSymbolicLink() ? statSync(path) : own;
  if (want === 'dir') return st.isDirectory() ? null : kindOf(st);
  if (!st.isFile()) return kindOf(st);
  return st.size > cap ? `${st.size} bytes, over the ${cap}-byte cap` : null;
}

/** Reads a regular file of at most `cap` bytes without blocking on anything else (a FIFO swapped in after the check). */
function readCapped(path: string, cap: number): Buffer | string {
  const fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) return kindOf(st);
    if (st.size > cap) return `${st.size} bytes, over the ${cap}-byte cap`;
    const buf = Buffer.alloc(st.size);
    let at = 0;
    while (at < buf.length) {
      const n = readSync(fd, buf, at, buf.length - at, at);
      if (n === 0) break;
      at += n;
    }
    return buf.subarray(0, at);
  } finally {
    closeSync(fd);
  }
}

/**
 * A snapshot source over a local directory laid out as `<dir>/<pack>/<call_id>.<part>`. It reads
 * only regular files inside the folder, each under its cap; everything else is left out and
 * reported (docs/scoring.md "What the scorer reads").
 */
export function directorySource(dir: string, options: SourceOptions = {}): SnapshotSource {
  const given = resolve(dir);
  const limits = options.limits ?? DEFAULT_SOURCE_LIMITS;
  const skip = onceEach(options.onSkip);
  const rootOf = (): string => {
    if (!existsSync(given) || !statSync(given).isDirectory()) throw new ConfigError('SNAPSHOTS_NOT_FOUND', `snapshot directory ${dir} does not exist`);
    return realpathSync(given);
  };
  const admitted = (root: string, key: string, want: 'file' | 'dir'): boolean => {
    const reason = refusal(root, join(root, key), want, capOf(key, limits));
    if (reason && reason !== 'missing') skip(want === 'dir' ? `${key}/` : key, reason);
    return reason === null;
  };
  return {
    root: given,
    async list() {
      const root = rootOf();
      const packs = readdirSync(root).filter((pack) => admitted(root, pack, 'dir'));
      const keys = packs.flatMap((pack) => readdirSync(join(root, pack)).map((name) => `${pack}/${name}`)).filter((key) => admitted(root, key, 'file'));
      return keys.sort();
    },
    async read(key) {
      const root = rootOf();
      if (!admitted(root, key, 'file')) return undefined;
      const bytes = readCapped(join(root, key), capOf(key, limits));
      if (typeof bytes !== 'string') return bytes;
      skip(key, bytes);
      return undefined;
    },
    uriOf: (key) => join(given, key),
  };
}

/** A snapshot source over `s3://bucket/prefix`; it only lists and reads. */
export function s3Source(client: S3Client, bucket: string, prefix: string, options: SourceOptions = {}): SnapshotSource {
  const base = prefix ? `${prefix}/` : '';
  const limits = options.limits ?? DEFAULT_SOURCE_LIMITS;
  const skip = onceEach(options.onSkip);
  const over = (key: string, size: number | undefined): boolean => {
    if (size === undefined || size <= capOf(key, limits)) return false;
    skip(key, `${size} bytes, over the ${capOf(key, limits)}-byte cap`);
    return true;
  };
  return {
    root: `s3://${bucket}/${prefix}`,
    async list() {
      const keys: string[] = [];
      let token: string | undefined;
      do {
        const page = await client.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: base, ContinuationToken: token }));
        for (const item of page.Contents ?? []) if (item.Key?.startsWith(base) && !over(item.Key.slice(base.length), item.Size)) keys.push(item.Key.slice(base.length));
        token = page.IsTruncated ? page.NextContinuationToken : undefined;
      } while (token);
      return keys.sort();
    },
    async read(key) {
      try {
        const out = await client.send(new GetObjectCommand({ Bucket: bucket, Key: `${base}${key}` }));
        if (over(key, out.ContentLength)) {
          (out.Body as { destroy?: () => void } | undefined)?.destroy?.();
          return undefined;
        }
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
    const parsed = finalStateSchema.safeParse(dumpDatabaseAt(bytes));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

/** A JSON object as a record (JSON.parse makes only plain objects), or false. */
function isJsonRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !Object.hasOwn(value, '__proto__');
}

/**
 * `finalStateSchema` on parsed JSON, without copying every row: the same shape check (tables of
 * arrays of row objects) answered in place. A `__proto__` key, which zod's copy drops, goes through
 * the schema itself so the result is the same.
 */
export function parseFinalState(value: unknown): { success: true; data: FinalState } | { success: false } {
  const shaped = isJsonRecord(value) && Object.values(value).every((rows) => Array.isArray(rows) && rows.every(isJsonRecord));
  if (shaped) return { success: true, data: value as FinalState };
  return finalStateSchema.safeParse(value);
}

async function loadFinal(source: SnapshotSource, pack: string, callId: string, problems: string[]): Promise<{ final: FinalState | null; from: 'json' | 'db' | null }> {
  const jsonProblems: string[] = [];
  const final = parseJsonPart(await source.read(snapshotKey(pack, callId, 'final.json')), 'final.json', parseFinalState, jsonProblems);
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

/** Why a set's summary disagrees with its file names (another call's or pack's summary under this name), or null. */
export function mislabel(s: LoadedSnapshot): string | null {
  if (!s.summary) return null;
  if (s.summary.call_id !== s.callId) return `its summary is call ${JSON.stringify(s.summary.call_id.slice(0, 64))}, not ${s.callId}`;
  return s.summary.pack === s.pack ? null : `its summary is pack ${JSON.stringify(s.summary.pack.slice(0, 64))}, not ${s.pack}`;
}

/**
 * Reads every conversation under a source (optionally one pack) in pack and id order, a few reads
 * at a time, and hands each to `visit` (with whether a caller part was listed) before reading
 * further, so only a batch is ever held. A mislabelled set (its summary names another call or pack) is left out and reported.
 */
export async function forEachSnapshot(source: SnapshotSource, onlyPack: string | undefined, onSkip: SkipReporter | undefined, visit: (snapshot: LoadedSnapshot, hasCallerPart: boolean) => void | Promise<void>): Promise<void> {
  // A caller part alone (the server never wrote the call) is not a conversation.
  const groups = [...groupKeys(await source.list()).values()].filter((g) => (!onlyPack || g.pack === onlyPack) && g.parts.size > 0);
  groups.sort((a, b) => (a.pack === b.pack ? (a.callId < b.callId ? -1 : 1) : a.pack < b.pack ? -1 : 1));
  for (let i = 0; i < groups.length; i += 8) {
    const batch = groups.slice(i, i + 8);
    const loaded = await Promise.all(batch.map((g) => loadSnapshot(source, g.pack, g.callId, g.parts, g.caller === true)));
    for (const [j, set] of loaded.entries()) {
      const wrong = mislabel(set);
      if (wrong) onSkip?.(`${set.pack}/${set.callId}.*`, `a mislabelled set: ${wrong}`);
      else await visit(set, batch[j]?.caller === true);
    }
  }
}

/** Loads every conversation under a source (optionally one pack), sorted by pack and id (`forEachSnapshot`, all held). */
export async function loadSnapshots(source: SnapshotSource, onlyPack?: string, onSkip?: SkipReporter): Promise<LoadedSnapshot[]> {
  const out: LoadedSnapshot[] = [];
  await forEachSnapshot(source, onlyPack, onSkip, (s) => {
    out.push(s);
  });
  return out;
}
