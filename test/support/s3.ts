import { mkdtempSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';

/** The slice of s3rver's API the tests use (the package ships no types). */
interface S3rverInstance {
  run(): Promise<AddressInfo>;
  close(): Promise<void>;
  readonly httpServer?: Server;
}
type S3rverConstructor = new (options: {
  address: string;
  port: number;
  directory: string;
  silent: boolean;
  configureBuckets: { name: string }[];
}) => S3rverInstance;

const S3rver = createRequire(import.meta.url)('s3rver') as S3rverConstructor;

/** A real S3 protocol server (s3rver) on loopback with a temp directory and one bucket. */
export interface TestS3 {
  readonly bucket: string;
  /** http://127.0.0.1:<port>; stays the same across stop()/start(). */
  readonly endpoint: string;
  readonly port: number;
  readonly directory: string;
  /** MIVAS_* settings that point the snapshot sink at this server. */
  readonly env: Record<string, string>;
  readonly client: S3Client;
  /** Stops listening (an outage); stored objects stay in the directory. */
  stop(): Promise<void>;
  /** Starts again on the same port with the same directory. */
  start(): Promise<void>;
  isRunning(): boolean;
  /** Every key in the bucket, sorted. */
  listKeys(prefix?: string): Promise<string[]>;
  /** One object's bytes. */
  getObject(key: string): Promise<Buffer>;
  /** Stops the server, the client, and removes the directory. */
  close(): Promise<void>;
}

async function listen(directory: string, bucket: string, port: number): Promise<{ server: S3rverInstance; port: number }> {
  const server = new S3rver({ address: '127.0.0.1', port, directory, silent: true, configureBuckets: [{ name: bucket }] });
  const address = await server.run();
  return { server, port: address.port };
}

async function shutdown(server: S3rverInstance): Promise<void> {
  const closed = server.close();
  // The SDK keeps connections alive; without this close() waits for them to idle out.
  server.httpServer?.closeAllConnections();
  await closed;
}

/**
 * The server's S3 client takes credentials from the SDK's default chain; static ones in the
 * environment keep it off the instance-metadata endpoint (s3rver accepts any key).
 */
export function useStaticS3Credentials(): void {
  process.env.AWS_ACCESS_KEY_ID = 'S3RVER';
  process.env.AWS_SECRET_ACCESS_KEY = 'S3RVER';
  delete process.env.AWS_PROFILE;
  delete process.env.AWS_SESSION_TOKEN;
}

/** Starts s3rver on 127.0.0.1, port 0, with a temp directory and the bucket configured. */
export async function startTestS3(bucket = 'mivas-snapshots'): Promise<TestS3> {
  const directory = mkdtempSync(join(tmpdir(), 'mivas-s3-'));
  const first = await listen(directory, bucket, 0);
  let server: S3rverInstance | null = first.server;
  const port = first.port;
  const endpoint = `http://127.0.0.1:${port}`;
  const client = new S3Client({
    endpoint,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
  return {
    bucket,
    endpoint,
    port,
    directory,
    env: {
      MIVAS_SNAPSHOT_BUCKET: bucket,
      MIVAS_S3_ENDPOINT: endpoint,
      MIVAS_S3_FORCE_PATH_STYLE: '1',
      MIVAS_S3_REGION: 'us-east-1',
    },
    client,
    async stop() {
      if (!server) return;
      const running = server;
      server = null;
      await shutdown(running);
    },
    async start() {
      if (server) return;
      server = (await listen(directory, bucket, port)).server;
    },
    isRunning: () => server !== null,
    async listKeys(prefix) {
      const keys: string[] = [];
      let token: string | undefined;
      do {
        const page = await client.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix, ContinuationToken: token }));
        for (const item of page.Contents ?? []) if (item.Key) keys.push(item.Key);
        token = page.IsTruncated ? page.NextContinuationToken : undefined;
      } while (token);
      return keys.sort();
    },
    async getObject(key) {
      const out = await client.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
      if (!out.Body) throw new Error(`object ${key} has no body`);
      return Buffer.from(await out.Body.transformToByteArray());
    },
    async close() {
      if (server) await shutdown(server);
      server = null;
      client.destroy();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
