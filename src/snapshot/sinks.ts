import { GetObjectCommand, HeadObjectCommand, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** Where finished snapshots land: a local directory or an S3 prefix (DESIGN.md §9). */
export interface SnapshotSink {
  /** Human-readable root, e.g. `./data/snapshots` or `s3://bucket/prefix`. */
  readonly root: string;
  /** Writes one object; rejects on failure (the outbox retries). */
  put(key: string, body: Buffer): Promise<void>;
  /** True when the object exists. */
  exists(key: string): Promise<boolean>;
  /** The object's bytes, or null when it does not exist. */
  get(key: string): Promise<Buffer | null>;
  /** Full location of a key, for summaries and logs. */
  locate(key: string): string;
}

/** The embedded default: snapshots copied into a local directory (write to temp, then rename). */
export function directorySink(dir: string): SnapshotSink {
  return {
    root: dir,
    async put(key, body) {
      const file = join(dir, key);
      mkdirSync(dirname(file), { recursive: true });
      const tmp = `${file}.partial`;
      writeFileSync(tmp, body);
      renameSync(tmp, file);
    },
    exists: async (key) => existsSync(join(dir, key)),
    get: async (key) => (existsSync(join(dir, key)) ? readFileSync(join(dir, key)) : null),
    locate: (key) => join(dir, key),
  };
}

/** Snapshots uploaded to `s3://bucket/prefix/<key>`; bodies are Buffers (stack.md, s3rver quirk). */
export function s3Sink(client: S3Client, bucket: string, prefix: string): SnapshotSink {
  const fullKey = (key: string): string => (prefix ? `${prefix}/${key}` : key);
  return {
    root: `s3://${bucket}${prefix ? `/${prefix}` : ''}`,
    async put(key, body) {
      await client.send(new PutObjectCommand({ Bucket: bucket, Key: fullKey(key), Body: body, ContentLength: body.length }));
    },
    async exists(key) {
      try {
        await client.send(new HeadObjectCommand({ Bucket: bucket, Key: fullKey(key) }));
        return true;
      } catch (err) {
        const status = (err as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
        if (status === 404) return false;
        throw err;
      }
    },
    async get(key) {
      try {
        const out = await client.send(new GetObjectCommand({ Bucket: bucket, Key: fullKey(key) }));
        return out.Body ? Buffer.from(await out.Body.transformToByteArray()) : null;
      } catch (err) {
        if ((err as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode === 404) return null;
        throw err;
      }
    },
    locate: (key) => `s3://${bucket}/${fullKey(key)}`,
  };
}
