import { S3Client } from '@aws-sdk/client-s3';

/** Connection settings for S3 or an S3-compatible store. */
export interface S3Settings {
  readonly endpoint: string | undefined;
  readonly region: string;
  readonly forcePathStyle: boolean;
}

/**
 * An S3 client for snapshots. Checksums only when required: with streamed bodies some
 * S3-compatible stores keep the aws-chunked framing in the object (stack.md, s3rver quirk).
 */
export function createS3Client(settings: S3Settings): S3Client {
  return new S3Client({
    region: settings.region,
    ...(settings.endpoint ? { endpoint: settings.endpoint } : {}),
    forcePathStyle: settings.forcePathStyle,
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    maxAttempts: 1,
  });
}

/** Splits `s3://bucket/prefix` into its parts; undefined when the text is not an S3 URI. */
export function parseS3Uri(uri: string): { bucket: string; prefix: string } | undefined {
  const m = /^s3:\/\/([^/]+)\/?(.*)$/.exec(uri);
  return m ? { bucket: m[1] ?? '', prefix: (m[2] ?? '').replace(/\/+$/, '') } : undefined;
}
