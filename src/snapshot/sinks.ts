import { GetObjectCommand, HeadObjectCommand, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { access, mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';

/** Where finished snapshots land: a local directory or an S3 prefix (architecture.md §9). */
export interface SnapshotSink {
  /** Human-readable root, e.g. `./data/snapshots` or `s3://bucket/prefix`. */
  readonly root: string;
  /** Writes one object; rejects on failure (the outbox retries). */
  put(key: string, body: Buffer): Promise<void>;
  /** True when the object exists; `signal` abandons the check (the upgrade's deadline). */
  exists(key: string, signal?: AbortSignal): Promise<boolean>;
  /** The object's bytes, or null when it does not exist. */
  get(key: string): Promise<Buffer | null>;
  /** Full location of a key, for summaries and logs. */
  locate(key: string): string;
  /**
   * True when a put lands on this machine's disk (the directory sink): the outbox then writes a set
   * held in memory straight there, since spooling it first would only copy it twice on one disk.
   */
  readonly local?: boolean;
}

/** True when the file is there (any failure to reach it counts as absent, as existsSync does). */
const present = (file: string): Promise<boolean> => access(file).then(
  () => true,
  () => false,
);

/** The embedded default: snapshots copied into a local directory (write to temp, then rename; all asynchronous). */
export function directorySink(dir: string): SnapshotSink {
  // Folders made already: made again only after a write into one failed (it may have been removed).
  const folders = new Set<string>();
  return {
    root: dir,
    local: true,
    async put(key, body) {
      const file = join(dir, key);
      const folder = dirname(file);
      if (!folders.has(folder)) {
        await mkdir(folder, { recursive: true });
        folders.add(folder);
      }
      const tmp = `${file}.partial`;
      try {
        await writeFile(tmp, body);
        await rename(tmp, file);
      } catch (err) {
        folders.delete(folder);
        await rm(tmp, { force: true }).catch(() => undefined);
        throw err;
      }
    },
    exists: (key) => present(join(dir, key)),
    async get(key) {
      try {
        return await readFile(join(dir, key));
      } catch (err) {
        if ((err as { code?: string }).code === 'ENOENT' || !(await present(join(dir, key)))) return null;
        throw err;
      }
    },
    locate: (key) => join(dir, key),
  };
}

/** Per-operation deadline of an S3 call, on top of the client's request and socket timeouts. */
export interface S3SinkOptions {
  /** An operation (all its attempts) is abandoned after this long (ms). */
  readonly operationTimeoutMs: number;
}

function statusOf(err: unknown): number | undefined {
  return (err as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
}

/** Snapshots uploaded to `s3://bucket/prefix/<key>`; bodies are Buffers (stack.md, s3rver quirk). */
export function s3Sink(client: S3Client, bucket: string, prefix: string, options: S3SinkOptions = { operationTimeoutMs: 60_000 }): SnapshotSink {
  const fullKey = (key: string): string => (prefix ? `${prefix}/${key}` : key);
  const deadline = (signal?: AbortSignal): AbortSignal => (signal ? AbortSignal.any([signal, AbortSignal.timeout(options.operationTimeoutMs)]) : AbortSignal.timeout(options.operationTimeoutMs));
  return {
    root: `s3://${bucket}${prefix ? `/${prefix}` : ''}`,
    async put(key, body) {
      await client.send(new PutObjectCommand({ Bucket: bucket, Key: fullKey(key), Body: body, ContentLength: body.length }), { abortSignal: deadline() });
    },
    async exists(key, signal) {
      try {
        await client.send(new HeadObjectCommand({ Bucket: bucket, Key: fullKey(key) }), { abortSignal: deadline(signal) });
        return true;
      } catch (err) {
        if (statusOf(err) === 404) return false;
        throw err;
      }
    },
    async get(key) {
      try {
        const out = await client.send(new GetObjectCommand({ Bucket: bucket, Key: fullKey(key) }), { abortSignal: deadline() });
        return out.Body ? Buffer.from(await out.Body.transformToByteArray()) : null;
      } catch (err) {
        if (statusOf(err) === 404) return null;
        throw err;
      }
    },
    locate: (key) => `s3://${bucket}/${fullKey(key)}`,
  };
}
