import { z } from 'zod';

const bool = z
  .enum(['1', '0', 'true', 'false', 'yes', 'no', ''])
  .transform((v) => v === '1' || v === 'true' || v === 'yes');
const seconds = z.coerce.number().positive();
const optionalText = z
  .string()
  .optional()
  .transform((v) => (v === undefined || v.trim() === '' ? undefined : v));

/**
 * Every environment variable mivas reads (style rule 9: the only reader of process.env).
 * `.env.example` lists the same names; a test keeps the two equal.
 */
export const envSchema = z.object({
  MIVAS_PORT: z.coerce.number().int().min(0).max(65535).default(8765),
  MIVAS_HOST: optionalText,
  MIVAS_PACK: z.string().regex(/^[a-z][a-z0-9-]*$/).default('control-industry'),
  MIVAS_HARNESS: z.string().min(1).default('scripted'),
  MIVAS_PACKS_DIR: z.string().default('packs'),
  MIVAS_MIGRATIONS_DIR: z.string().default('migrations'),
  CHIRP_USER: optionalText,
  CHIRP_PASS: optionalText,
  MIVAS_ALLOW_PUBLIC_NOAUTH: bool.default(false),
  MIVAS_DATA_DIR: z.string().default('./data'),
  MIVAS_SNAPSHOT_DIR: optionalText,
  MIVAS_SNAPSHOT_BUCKET: optionalText,
  MIVAS_SNAPSHOT_PREFIX: z.string().default('mivas'),
  MIVAS_S3_ENDPOINT: optionalText,
  MIVAS_S3_REGION: z.string().default('us-east-1'),
  MIVAS_S3_FORCE_PATH_STYLE: bool.default(false),
  MIVAS_MAX_CALLS: z.coerce.number().int().positive().default(100),
  MIVAS_MAX_CALL_S: seconds.default(900),
  MIVAS_CALLER_SILENCE_S: seconds.default(60),
  MIVAS_END_CALL_MAX_WAIT_S: seconds.default(20),
  MIVAS_NUDGE_RETRY_DELAY_S: seconds.default(3),
  MIVAS_NUDGE_MAX_ATTEMPTS: z.coerce.number().int().positive().default(5),
  MIVAS_NOOP_WAIT_S: seconds.default(15),
  MIVAS_PING_INTERVAL_S: seconds.default(20),
  MIVAS_DRAIN_S: seconds.default(900),
  MIVAS_FAST: bool.default(false),
  MIVAS_LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
});

type Env = z.infer<typeof envSchema>;

/** Where snapshots go: a local directory (the embedded default) or an S3 bucket. */
export type SnapshotTarget =
  | { readonly kind: 'directory'; readonly dir: string }
  | { readonly kind: 's3'; readonly bucket: string; readonly prefix: string; readonly endpoint: string | undefined; readonly region: string; readonly forcePathStyle: boolean };

/** The parsed, frozen configuration passed down from main. */
export interface Config {
  readonly port: number;
  readonly host: string;
  readonly pack: string;
  readonly harness: string;
  readonly packsDir: string;
  readonly migrationsDir: string;
  readonly auth: { readonly user: string; readonly pass: string } | null;
  readonly dataDir: string;
  readonly snapshots: SnapshotTarget;
  /** S3 connection settings, also used to read `s3://` inputs (the scorer). */
  readonly s3: { readonly endpoint: string | undefined; readonly region: string; readonly forcePathStyle: boolean };
  readonly maxCalls: number;
  readonly maxCallMs: number;
  readonly callerSilenceMs: number;
  readonly endCallMaxWaitMs: number;
  readonly nudgeRetryDelayMs: number;
  readonly nudgeMaxAttempts: number;
  readonly noopWaitMs: number;
  readonly pingIntervalMs: number;
  readonly drainMs: number;
  /** Unpaced agent audio (local `--fast` runs only). */
  readonly fast: boolean;
  readonly logLevel: Env['MIVAS_LOG_LEVEL'];
}

/** Result of parsing the environment: a config, or every problem found. */
export type ConfigResult = { readonly ok: true; readonly config: Config } | { readonly ok: false; readonly problems: readonly string[] };

function toConfig(env: Env): ConfigResult {
  const problems: string[] = [];
  if ((env.CHIRP_USER === undefined) !== (env.CHIRP_PASS === undefined)) {
    problems.push('CHIRP_USER / CHIRP_PASS: set both to require Basic auth, or neither to turn auth off');
  }
  const auth = env.CHIRP_USER !== undefined && env.CHIRP_PASS !== undefined ? { user: env.CHIRP_USER, pass: env.CHIRP_PASS } : null;
  const defaultHost = auth || env.MIVAS_ALLOW_PUBLIC_NOAUTH ? '0.0.0.0' : '127.0.0.1';
  const host = env.MIVAS_HOST ?? defaultHost;
  if (!auth && !env.MIVAS_ALLOW_PUBLIC_NOAUTH && !isLoopback(host)) {
    problems.push(`MIVAS_HOST: ${host} is not a loopback address, and auth is off; set CHIRP_USER and CHIRP_PASS or MIVAS_ALLOW_PUBLIC_NOAUTH=1`);
  }
  if (problems.length) return { ok: false, problems };
  const snapshots: SnapshotTarget = env.MIVAS_SNAPSHOT_BUCKET
    ? {
        kind: 's3',
        bucket: env.MIVAS_SNAPSHOT_BUCKET,
        prefix: env.MIVAS_SNAPSHOT_PREFIX.replace(/^\/+|\/+$/g, ''),
        endpoint: env.MIVAS_S3_ENDPOINT,
        region: env.MIVAS_S3_REGION,
        forcePathStyle: env.MIVAS_S3_FORCE_PATH_STYLE,
      }
    : { kind: 'directory', dir: env.MIVAS_SNAPSHOT_DIR ?? `${env.MIVAS_DATA_DIR.replace(/\/+$/, '')}/snapshots` };
  const config: Config = {
    port: env.MIVAS_PORT,
    host,
    pack: env.MIVAS_PACK,
    harness: env.MIVAS_HARNESS,
    packsDir: env.MIVAS_PACKS_DIR,
    migrationsDir: env.MIVAS_MIGRATIONS_DIR,
    auth,
    dataDir: env.MIVAS_DATA_DIR,
    snapshots,
    s3: { endpoint: env.MIVAS_S3_ENDPOINT, region: env.MIVAS_S3_REGION, forcePathStyle: env.MIVAS_S3_FORCE_PATH_STYLE },
    maxCalls: env.MIVAS_MAX_CALLS,
    maxCallMs: env.MIVAS_MAX_CALL_S * 1000,
    callerSilenceMs: env.MIVAS_CALLER_SILENCE_S * 1000,
    endCallMaxWaitMs: env.MIVAS_END_CALL_MAX_WAIT_S * 1000,
    nudgeRetryDelayMs: env.MIVAS_NUDGE_RETRY_DELAY_S * 1000,
    nudgeMaxAttempts: env.MIVAS_NUDGE_MAX_ATTEMPTS,
    noopWaitMs: env.MIVAS_NOOP_WAIT_S * 1000,
    pingIntervalMs: env.MIVAS_PING_INTERVAL_S * 1000,
    drainMs: env.MIVAS_DRAIN_S * 1000,
    fast: env.MIVAS_FAST,
    logLevel: env.MIVAS_LOG_LEVEL,
  };
  return { ok: true, config: Object.freeze(config) };
}

function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || host.startsWith('127.');
}

/** Parses the environment (plus overrides, such as CLI flags) into a Config or a list of problems. */
export function loadConfig(env: Readonly<Record<string, string | undefined>>, overrides: Readonly<Record<string, string>> = {}): ConfigResult {
  const merged: Record<string, string | undefined> = {};
  for (const key of Object.keys(envSchema.shape)) merged[key] = overrides[key] ?? env[key];
  const parsed = envSchema.safeParse(merged);
  if (!parsed.success) {
    return { ok: false, problems: parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message} (got ${JSON.stringify(merged[String(i.path[0])])})`) };
  }
  return toConfig(parsed.data);
}

/** Names of every variable the schema reads. */
export function configKeys(): string[] {
  return Object.keys(envSchema.shape);
}
