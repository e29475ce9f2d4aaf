import { S3Client } from '@aws-sdk/client-s3';

/** Connection settings for S3 or an S3-compatible store. */
export interface S3Settings {
  readonly endpoint: string | undefined;
  readonly region: string;
  readonly forcePathStyle: boolean;
  /** One request's limit, and the socket's idle limit (ms); default 10 s (MIVAS_S3_TIMEOUT_S). */
  readonly requestTimeoutMs?: number;
  /** Attempts per operation, the first included; default 3 (MIVAS_S3_ATTEMPTS). */
  readonly maxAttempts?: number;
}

/** Defaults of the S3 limits; `config.ts` reads the same from the environment. */
export const S3_DEFAULTS = { requestTimeoutMs: 10_000, maxAttempts: 3 } as const;

/** The longest one operation can take with these settings: every attempt timing out, plus backoff. */
export function s3OperationBudgetMs(settings: Pick<S3Settings, 'requestTimeoutMs' | 'maxAttempts'>): number {
  const timeout = settings.requestTimeoutMs ?? S3_DEFAULTS.requestTimeoutMs;
  const attempts = settings.maxAttempts ?? S3_DEFAULTS.maxAttempts;
  // The SDK's standard retry backs off up to 20 s between attempts; its first delays are far shorter.
  return attempts * timeout + (attempts - 1) * 2_000;
}

/**
 * An S3 client for snapshots. Checksums only when required: with streamed bodies some
 * S3-compatible stores keep the aws-chunked framing in the object (stack.md, s3rver quirk).
 * Every request has a connection timeout, a request timeout and a socket idle timeout, and is
 * retried (standard strategy: timeouts, resets, 5xx and throttling) up to `maxAttempts` in all:
 * a store that accepts connections and never answers fails the request instead of holding it.
 */
export function createS3Client(settings: S3Settings): S3Client {
  const requestTimeout = settings.requestTimeoutMs ?? S3_DEFAULTS.requestTimeoutMs;
  return new S3Client({
    region: settings.region,
    ...(settings.endpoint ? { endpoint: settings.endpoint } : {}),
    forcePathStyle: settings.forcePathStyle,
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    maxAttempts: settings.maxAttempts ?? S3_DEFAULTS.maxAttempts,
    retryMode: 'standard',
    requestHandler: { connectionTimeout: Math.min(requestTimeout, 5_000), requestTimeout, socketTimeout: requestTimeout, throwOnRequestTimeout: true },
  });
}

/** Splits `s3://bucket/prefix` into its parts; undefined when the text is not an S3 URI. */
export function parseS3Uri(uri: string): { bucket: string; prefix: string } | undefined {
  const m = /^s3:\/\/([^/]+)\/?(.*)$/.exec(uri);
  return m ? { bucket: m[1] ?? '', prefix: (m[2] ?? '').replace(/\/+$/, '') } : undefined;
}
