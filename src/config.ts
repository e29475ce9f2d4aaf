import { z } from 'zod';

const bool = z
  .enum(['1', '0', 'true', 'false', 'yes', 'no', ''])
  .transform((v) => v === '1' || v === 'true' || v === 'yes');
const seconds = z.coerce.number().positive();
const optionalText = z
  .string()
  .optional()
  .transform((v) => (v === undefined || v.trim() === '' ? undefined : v));
/** A realtime base URL: ws:// is allowed so tests can dial a local stand-in (wire.md §2.1). */
const wsUrl = z
  .string()
  .regex(/^wss?:\/\/[^\s]+$/, 'expected a ws:// or wss:// URL')
  .transform((v) => v.replace(/\/+$/, ''));
/** An http(s) URL without a trailing slash (http is allowed for local stand-ins). */
const httpUrl = z
  .string()
  .regex(/^https?:\/\/[^\s]+$/, 'expected an http:// or https:// URL')
  .transform((v) => v.replace(/\/+$/, ''));

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
  MIVAS_TOOLS_TOKEN: optionalText,
  MIVAS_TOOLS_IDLE_S: seconds.default(600),
  MIVAS_DATA_DIR: z.string().default('./data'),
  MIVAS_SCORES_DIR: optionalText,
  MIVAS_SNAPSHOT_DIR: optionalText,
  MIVAS_SNAPSHOT_BUCKET: optionalText,
  MIVAS_SNAPSHOT_PREFIX: z.string().default('mivas'),
  MIVAS_S3_ENDPOINT: optionalText,
  MIVAS_S3_REGION: z.string().default('us-east-1'),
  MIVAS_S3_FORCE_PATH_STYLE: bool.default(false),
  MIVAS_S3_TIMEOUT_S: seconds.default(10),
  MIVAS_S3_ATTEMPTS: z.coerce.number().int().min(1).max(10).default(3),
  MIVAS_UPLOAD_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(4),
  MIVAS_MAX_CALLS: z.coerce.number().int().positive().default(100),
  MIVAS_MAX_CALL_S: seconds.default(900),
  MIVAS_CALLER_AUDIO_LEAD_S: seconds.default(10),
  MIVAS_CALLER_SILENCE_S: seconds.default(60),
  MIVAS_END_CALL_MAX_WAIT_S: seconds.default(20),
  MIVAS_NUDGE_RETRY_DELAY_S: seconds.default(3),
  MIVAS_NUDGE_MAX_ATTEMPTS: z.coerce.number().int().positive().default(5),
  MIVAS_NOOP_WAIT_S: seconds.default(15),
  MIVAS_PING_INTERVAL_S: seconds.default(20),
  MIVAS_DRAIN_S: seconds.default(900),
  MIVAS_HTTP_TIMEOUT_S: seconds.default(30),
  MIVAS_FAST: bool.default(false),
  MIVAS_LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  BLUEJAY_API_KEY: optionalText,
  BLUEJAY_API_URL: httpUrl.default('https://api.getbluejay.ai/v1'),
  BLUEJAY_OTLP_ENDPOINT: httpUrl.default('https://otlp.getbluejay.ai/v1/traces'),
  BLUEJAY_SERVICE_NAME: z.string().min(1).default('mivas'),
  MIVAS_OTEL: bool.default(true),
  MIVAS_OTEL_QUEUE: z.coerce.number().int().positive().default(32_768),
  MIVAS_UPSERT_SETTLE_SECONDS: z.coerce.number().nonnegative().default(10),
  OPENAI_API_KEY: optionalText,
  MIVAS_OPENAI_MODEL: z.string().min(1).default('gpt-realtime-2.1'),
  MIVAS_OPENAI_VOICE: z.string().min(1).default('ash'),
  MIVAS_OPENAI_BASE_URL: wsUrl.default('wss://api.openai.com/v1'),
  MIVAS_OPENAI_TRANSCRIPTION_MODEL: z.string().min(1).default('gpt-4o-mini-transcribe'),
  MIVAS_TURN_DETECTION: z.enum(['semantic_vad', 'server_vad']).default('semantic_vad'),
  AZURE_OPENAI_API_KEY: optionalText,
  MIVAS_AZURE_BASE_URL: optionalText.pipe(wsUrl.optional()),
  MIVAS_AZURE_DEPLOYMENT: z.string().min(1).default('gpt-realtime-2.1'),
  MIVAS_AZURE_VOICE: z.string().min(1).default('ash'),
  XAI_API_KEY: optionalText,
  MIVAS_XAI_MODEL: z.string().min(1).default('grok-voice-latest'),
  MIVAS_XAI_VOICE: z.string().min(1).default('eve'),
  MIVAS_XAI_BASE_URL: wsUrl.default('wss://api.x.ai/v1'),
  DASHSCOPE_API_KEY: optionalText,
  MIVAS_QWEN_MODEL: z.string().min(1).default('qwen3-omni-flash-realtime'),
  MIVAS_QWEN_VOICE: z.string().min(1).default('Cherry'),
  MIVAS_QWEN_BASE_URL: wsUrl.default('wss://dashscope-intl.aliyuncs.com/api-ws/v1'),
  MIVAS_QWEN_WORKSPACE: optionalText,
});

type Env = z.infer<typeof envSchema>;

/** Where snapshots go: a local directory (the embedded default) or an S3 bucket. */
export type SnapshotTarget =
  | { readonly kind: 'directory'; readonly dir: string }
  | { readonly kind: 's3'; readonly bucket: string; readonly prefix: string; readonly endpoint: string | undefined; readonly region: string; readonly forcePathStyle: boolean; readonly requestTimeoutMs: number; readonly maxAttempts: number };

/** One realtime provider's connection settings; a missing key is reported when its harness is selected. */
export interface RealtimeProviderSettings {
  readonly apiKey: string | undefined;
  /** The model id (Azure: the deployment name). */
  readonly model: string;
  readonly voice: string;
  /** Base URL without the trailing `/realtime` (undefined: none configured). */
  readonly baseUrl: string | undefined;
}

/** Settings of every realtime provider harness (docs/providers.md). */
export interface ProviderSettings {
  readonly openai: RealtimeProviderSettings & { readonly transcriptionModel: string };
  readonly azure: RealtimeProviderSettings & { readonly transcriptionModel: string };
  readonly xai: RealtimeProviderSettings;
  readonly qwen: RealtimeProviderSettings & { readonly workspace: string | undefined };
  /** GA turn detection (OpenAI and Azure): semantic_vad or server_vad, both with interrupt_response. */
  readonly turnDetection: 'semantic_vad' | 'server_vad';
}

/** Bluejay REST and OTLP settings (wire.md §4, §5); everything is off without an API key. */
export interface BluejaySettings {
  readonly apiKey: string | undefined;
  readonly apiUrl: string;
  readonly otlpEndpoint: string;
  readonly serviceName: string;
  /** True when spans are exported: a key is set and MIVAS_OTEL is not 0. Tool calls then travel as trace_ids. */
  readonly tracingOn: boolean;
  readonly otelQueueSize: number;
  /** Wait between a snapshot being spooled and the update-simulation-result POST. */
  readonly settleMs: number;
}

/** The parsed, frozen configuration passed down from main. */
export interface Config {
  readonly port: number;
  readonly host: string;
  readonly pack: string;
  readonly harness: string;
  readonly packsDir: string;
  readonly migrationsDir: string;
  readonly auth: { readonly user: string; readonly pass: string } | null;
  /** Bearer token of the HTTP tool routes; unset turns them off. */
  readonly toolsToken: string | undefined;
  /** A scratch conversation of the tool routes idle this long is reaped. */
  readonly toolsIdleMs: number;
  readonly dataDir: string;
  /** The scores folder `/ui` shows; undefined: the newest folder under <dataDir>/scores. */
  readonly scoresDir: string | undefined;
  readonly snapshots: SnapshotTarget;
  /** S3 connection settings, also used to read `s3://` inputs (the scorer). */
  readonly s3: { readonly endpoint: string | undefined; readonly region: string; readonly forcePathStyle: boolean; readonly requestTimeoutMs: number; readonly maxAttempts: number };
  /** Snapshot sets uploaded at once (the boot backlog included). */
  readonly uploadConcurrency: number;
  readonly maxCalls: number;
  readonly maxCallMs: number;
  /** How far caller audio may run ahead of real time before the call ends with caller_flood. */
  readonly callerAudioLeadMs: number;
  readonly callerSilenceMs: number;
  readonly endCallMaxWaitMs: number;
  readonly nudgeRetryDelayMs: number;
  readonly nudgeMaxAttempts: number;
  readonly noopWaitMs: number;
  readonly pingIntervalMs: number;
  readonly drainMs: number;
  /** Longest an HTTP request may take to arrive, and the idle limit of a connection. */
  readonly httpTimeoutMs: number;
  /** Unpaced agent audio (local `--fast` runs only). */
  readonly fast: boolean;
  readonly logLevel: Env['MIVAS_LOG_LEVEL'];
  readonly bluejay: BluejaySettings;
  readonly providers: ProviderSettings;
}

/** Result of parsing the environment: a config, or every problem found. */
export type ConfigResult = { readonly ok: true; readonly config: Config } | { readonly ok: false; readonly problems: readonly string[] };

type AuthEnv = Pick<Env, 'CHIRP_USER' | 'CHIRP_PASS' | 'MIVAS_ALLOW_PUBLIC_NOAUTH' | 'MIVAS_HOST'>;

/** The rules that span variables: the credential pair and the bind address with auth off. */
function authProblems(env: AuthEnv): string[] {
  const problems: string[] = [];
  if ((env.CHIRP_USER === undefined) !== (env.CHIRP_PASS === undefined)) {
    problems.push('CHIRP_USER / CHIRP_PASS: set both to require Basic auth, or neither to turn auth off');
  }
  const auth = env.CHIRP_USER !== undefined && env.CHIRP_PASS !== undefined;
  const host = env.MIVAS_HOST ?? (auth || env.MIVAS_ALLOW_PUBLIC_NOAUTH ? '0.0.0.0' : '127.0.0.1');
  if (!auth && !env.MIVAS_ALLOW_PUBLIC_NOAUTH && !isLoopback(host)) {
    problems.push(`MIVAS_HOST: ${host} is not a loopback address, and auth is off; set CHIRP_USER and CHIRP_PASS or MIVAS_ALLOW_PUBLIC_NOAUTH=1`);
  }
  return problems;
}

function toConfig(env: Env): ConfigResult {
  const problems = authProblems(env);
  if (problems.length) return { ok: false, problems };
  const auth = env.CHIRP_USER !== undefined && env.CHIRP_PASS !== undefined ? { user: env.CHIRP_USER, pass: env.CHIRP_PASS } : null;
  const host = env.MIVAS_HOST ?? (auth || env.MIVAS_ALLOW_PUBLIC_NOAUTH ? '0.0.0.0' : '127.0.0.1');
  const snapshots: SnapshotTarget = env.MIVAS_SNAPSHOT_BUCKET
    ? {
        kind: 's3',
        bucket: env.MIVAS_SNAPSHOT_BUCKET,
        prefix: env.MIVAS_SNAPSHOT_PREFIX.replace(/^\/+|\/+$/g, ''),
        endpoint: env.MIVAS_S3_ENDPOINT,
        region: env.MIVAS_S3_REGION,
        forcePathStyle: env.MIVAS_S3_FORCE_PATH_STYLE,
        requestTimeoutMs: env.MIVAS_S3_TIMEOUT_S * 1000,
        maxAttempts: env.MIVAS_S3_ATTEMPTS,
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
    toolsToken: env.MIVAS_TOOLS_TOKEN,
    toolsIdleMs: env.MIVAS_TOOLS_IDLE_S * 1000,
    dataDir: env.MIVAS_DATA_DIR,
    scoresDir: env.MIVAS_SCORES_DIR,
    snapshots,
    s3: { endpoint: env.MIVAS_S3_ENDPOINT, region: env.MIVAS_S3_REGION, forcePathStyle: env.MIVAS_S3_FORCE_PATH_STYLE, requestTimeoutMs: env.MIVAS_S3_TIMEOUT_S * 1000, maxAttempts: env.MIVAS_S3_ATTEMPTS },
    uploadConcurrency: env.MIVAS_UPLOAD_CONCURRENCY,
    maxCalls: env.MIVAS_MAX_CALLS,
    maxCallMs: env.MIVAS_MAX_CALL_S * 1000,
    callerAudioLeadMs: env.MIVAS_CALLER_AUDIO_LEAD_S * 1000,
    callerSilenceMs: env.MIVAS_CALLER_SILENCE_S * 1000,
    endCallMaxWaitMs: env.MIVAS_END_CALL_MAX_WAIT_S * 1000,
    nudgeRetryDelayMs: env.MIVAS_NUDGE_RETRY_DELAY_S * 1000,
    nudgeMaxAttempts: env.MIVAS_NUDGE_MAX_ATTEMPTS,
    noopWaitMs: env.MIVAS_NOOP_WAIT_S * 1000,
    pingIntervalMs: env.MIVAS_PING_INTERVAL_S * 1000,
    drainMs: env.MIVAS_DRAIN_S * 1000,
    httpTimeoutMs: env.MIVAS_HTTP_TIMEOUT_S * 1000,
    fast: env.MIVAS_FAST,
    logLevel: env.MIVAS_LOG_LEVEL,
    bluejay: {
      apiKey: env.BLUEJAY_API_KEY,
      apiUrl: env.BLUEJAY_API_URL,
      otlpEndpoint: env.BLUEJAY_OTLP_ENDPOINT,
      serviceName: env.BLUEJAY_SERVICE_NAME,
      tracingOn: env.BLUEJAY_API_KEY !== undefined && env.MIVAS_OTEL,
      otelQueueSize: env.MIVAS_OTEL_QUEUE,
      settleMs: env.MIVAS_UPSERT_SETTLE_SECONDS * 1000,
    },
    providers: providerSettings(env),
  };
  return { ok: true, config: Object.freeze(config) };
}

function providerSettings(env: Env): ProviderSettings {
  const transcriptionModel = env.MIVAS_OPENAI_TRANSCRIPTION_MODEL;
  return {
    openai: { apiKey: env.OPENAI_API_KEY, model: env.MIVAS_OPENAI_MODEL, voice: env.MIVAS_OPENAI_VOICE, baseUrl: env.MIVAS_OPENAI_BASE_URL, transcriptionModel },
    azure: { apiKey: env.AZURE_OPENAI_API_KEY, model: env.MIVAS_AZURE_DEPLOYMENT, voice: env.MIVAS_AZURE_VOICE, baseUrl: env.MIVAS_AZURE_BASE_URL, transcriptionModel },
    xai: { apiKey: env.XAI_API_KEY, model: env.MIVAS_XAI_MODEL, voice: env.MIVAS_XAI_VOICE, baseUrl: env.MIVAS_XAI_BASE_URL },
    qwen: { apiKey: env.DASHSCOPE_API_KEY, model: env.MIVAS_QWEN_MODEL, voice: env.MIVAS_QWEN_VOICE, baseUrl: env.MIVAS_QWEN_BASE_URL, workspace: env.MIVAS_QWEN_WORKSPACE },
    turnDetection: env.MIVAS_TURN_DETECTION,
  };
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
    const problems = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message} (got ${JSON.stringify(merged[String(i.path[0])])})`);
    // The cross-variable rules still run, so one attempt reports every bad variable.
    const authEnv = envSchema.pick({ CHIRP_USER: true, CHIRP_PASS: true, MIVAS_ALLOW_PUBLIC_NOAUTH: true, MIVAS_HOST: true }).safeParse(merged);
    return { ok: false, problems: authEnv.success ? [...problems, ...authProblems(authEnv.data)] : problems };
  }
  return toConfig(parsed.data);
}

/** Names of every variable the schema reads. */
export function configKeys(): string[] {
  return Object.keys(envSchema.shape);
}
