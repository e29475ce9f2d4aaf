import { z } from 'zod';

const bool = z
  .enum(['1', '0', 'true', 'false', 'yes', 'no', ''])
  .transform((v) => v === '1' || v === 'true' || v === 'yes');
const seconds = z.coerce.number().positive();
/** A size given in MiB (fractions allowed), read as bytes. */
const mebibytesSetting = z.coerce.number().positive().transform((mb) => Math.floor(mb * 1024 * 1024));
/** A price in USD: empty or unset reads as undefined. */
const optionalPrice = z
  .string()
  .optional()
  .transform((v, ctx) => {
    if (v === undefined || v.trim() === '') return undefined;
    const n = Number(v);
    if (!Number.isFinite(n) || n < 0) {
      ctx.addIssue({ code: 'custom', message: 'expected a non-negative number' });
      return z.NEVER;
    }
    return n;
  });
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
 * Every environment variable mivas reads (architecture.md convention 9: the only reader of process.env).
 * `.env.example` lists the same names; a test keeps the two equal.
 */
/** The `llm` caller's chat endpoint when MIVAS_CALLER_BASE_URL is unset. */
export const DEFAULT_CALLER_BASE_URL = 'https://api.openai.com/v1';

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
  MIVAS_PLATFORM_TOKEN: optionalText,
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
  MIVAS_PROVIDER_READY_S: seconds.default(10),
  MIVAS_DRAIN_S: seconds.default(900),
  MIVAS_HTTP_TIMEOUT_S: seconds.default(30),
  MIVAS_FAST: bool.default(false),
  MIVAS_LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  BLUEJAY_API_KEY: optionalText,
  BLUEJAY_API_URL: httpUrl.default('https://api.getbluejay.ai/v1'),
  BLUEJAY_OTLP_ENDPOINT: httpUrl.default('https://otlp.getbluejay.ai/v1/traces'),
  BLUEJAY_SERVICE_NAME: z.string().min(1).default('mivas'),
  MIVAS_OTEL: bool.default(true),
  OTEL_EXPORTER_OTLP_ENDPOINT: optionalText.pipe(httpUrl.optional()),
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: optionalText.pipe(httpUrl.optional()),
  OTEL_EXPORTER_OTLP_HEADERS: optionalText,
  OTEL_EXPORTER_OTLP_TRACES_HEADERS: optionalText,
  OTEL_SERVICE_NAME: optionalText,
  MIVAS_OTEL_QUEUE: z.coerce.number().int().positive().default(32_768),
  MIVAS_UPSERT_SETTLE_SECONDS: z.coerce.number().nonnegative().default(10),
  MIVAS_BLUEJAY_TIMEOUT_S: seconds.default(30),
  MIVAS_BLUEJAY_MAX_BODY_MB: mebibytesSetting.prefault(8),
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
  MIVAS_AZURE_TRANSCRIPTION_DEPLOYMENT: optionalText,
  MIVAS_AZURE_AUTH: z.enum(['api-key', 'entra']).default('api-key'),
  AZURE_OPENAI_AD_TOKEN: optionalText,
  MIVAS_AZURE_TOKEN_COMMAND: optionalText,
  XAI_API_KEY: optionalText,
  MIVAS_XAI_MODEL: z.string().min(1).default('grok-voice-think-fast-2.0'),
  MIVAS_XAI_VOICE: z.string().min(1).default('eve'),
  MIVAS_XAI_BASE_URL: wsUrl.default('wss://api.x.ai/v1'),
  MIVAS_XAI_TRANSCRIPTION_MODEL: z.string().min(1).default('grok-transcribe'),
  DASHSCOPE_API_KEY: optionalText,
  MIVAS_QWEN_MODEL: z.string().min(1).default('qwen3.5-omni-plus-realtime'),
  MIVAS_QWEN_VOICE: z.string().min(1).default('Tina'),
  MIVAS_QWEN_BASE_URL: wsUrl.default('wss://dashscope-intl.aliyuncs.com/api-ws/v1'),
  MIVAS_QWEN_WORKSPACE: optionalText,
  MIVAS_CALLER_BASE_URL: httpUrl.default(DEFAULT_CALLER_BASE_URL),
  MIVAS_CALLER_MODEL: z.string().min(1).default('gpt-4.1-mini'),
  MIVAS_CALLER_API_KEY: optionalText,
  MIVAS_CALLER_SEED: z.coerce.number().int().nonnegative().default(0),
  MIVAS_CALLER_CACHE: optionalText,
  MIVAS_CALLER_MAX_TURNS: z.coerce.number().int().positive().default(40),
  MIVAS_CALLER_TIMEOUT_S: seconds.default(60),
  MIVAS_CALLER_MAX_BODY_MB: mebibytesSetting.prefault(4),
  MIVAS_CALLER_MAX_AUDIO_MB: mebibytesSetting.prefault(32),
  MIVAS_CALLER_MAX_S: seconds.default(600),
  MIVAS_CALLER_AGENT_SILENCE_S: seconds.default(45),
  MIVAS_CALLER_HANGUP_GRACE_S: seconds.default(4),
  MIVAS_CALLER_STT_BASE_URL: optionalText.pipe(httpUrl.optional()),
  MIVAS_CALLER_STT_MODEL: z.string().min(1).default('gpt-4o-mini-transcribe'),
  MIVAS_CALLER_STT_API_KEY: optionalText,
  MIVAS_CALLER_TTS: z.enum(['espeak', 'endpoint']).default('espeak'),
  MIVAS_CALLER_TTS_BASE_URL: optionalText.pipe(httpUrl.optional()),
  MIVAS_CALLER_TTS_MODEL: z.string().min(1).default('gpt-4o-mini-tts'),
  MIVAS_CALLER_TTS_API_KEY: optionalText,
  MIVAS_CALLER_TTS_VOICES: z.string().min(1).default('alloy,ash,coral,echo,sage,shimmer,verse'),
  MIVAS_CALLER_TTS_RATE: z.coerce.number().int().positive().default(24_000),
  MIVAS_CALLER_AUDIO: z.enum(['task', 'perfect']).default('task'),
  MIVAS_CALLER_PRICE_INPUT: optionalPrice,
  MIVAS_CALLER_PRICE_CACHED_INPUT: optionalPrice,
  MIVAS_CALLER_PRICE_OUTPUT: optionalPrice,
  MIVAS_CALLER_PRICE_STT_MIN: optionalPrice,
  MIVAS_CALLER_PRICE_TTS_MCHARS: optionalPrice,
  MIVAS_RL: bool.default(false),
  MIVAS_RL_TOKEN: optionalText,
  MIVAS_RL_PACKS: optionalText,
  MIVAS_RL_MAX_EPISODES: z.coerce.number().int().positive().default(256),
  MIVAS_RL_IDLE_S: seconds.default(900),
  MIVAS_RL_UNTOUCHED_S: seconds.default(60),
  MIVAS_RL_CALLER_CACHE: optionalText,
  MIVAS_RL_MAX_SOCKETS: z.coerce.number().int().positive().default(256),
  MIVAS_RL_SOCKET_IDLE_S: seconds.default(60),
  MIVAS_RL_SOCKET_BUFFER_KB: z.coerce.number().int().min(16).max(1024 * 1024).default(1024),
  MIVAS_RL_REPLICA: optionalText.pipe(
    z
      .string()
      .regex(/^[a-z0-9][a-z0-9-]{0,30}$/, 'a replica name is lower-case letters, digits and dashes (at most 31), starting with a letter or digit')
      .optional(),
  ),
  MIVAS_POLICY_BASE_URL: optionalText.pipe(httpUrl.optional()),
  MIVAS_POLICY_MODEL: optionalText,
  MIVAS_POLICY_API_KEY: optionalText,
  MIVAS_POLICY_TIMEOUT_S: seconds.default(60),
  MIVAS_POLICY_MAX_BODY_MB: mebibytesSetting.prefault(4),
  MIVAS_JUDGE_BASE_URL: optionalText.pipe(httpUrl.optional()),
  MIVAS_JUDGE_MODEL: optionalText,
  MIVAS_JUDGE_API_KEY: optionalText,
  MIVAS_JUDGE_TIMEOUT_S: seconds.default(60),
  MIVAS_JUDGE_MAX_BODY_MB: mebibytesSetting.prefault(4),
  MIVAS_CASCADE_STT_BASE_URL: optionalText.pipe(httpUrl.optional()),
  MIVAS_CASCADE_STT_MODEL: z.string().min(1).default('gpt-4o-mini-transcribe'),
  MIVAS_CASCADE_STT_API_KEY: optionalText,
  MIVAS_CASCADE_STT_STREAM: bool.default(false),
  MIVAS_CASCADE_LLM_BASE_URL: optionalText.pipe(httpUrl.optional()),
  MIVAS_CASCADE_LLM_MODEL: optionalText,
  MIVAS_CASCADE_LLM_API_KEY: optionalText,
  MIVAS_CASCADE_TTS_BASE_URL: optionalText.pipe(httpUrl.optional()),
  MIVAS_CASCADE_TTS_MODEL: z.string().min(1).default('gpt-4o-mini-tts'),
  MIVAS_CASCADE_TTS_VOICE: z.string().min(1).default('alloy'),
  MIVAS_CASCADE_TTS_API_KEY: optionalText,
  MIVAS_CASCADE_TTS_RATE_HZ: z.coerce.number().int().min(8_000).max(48_000).default(24_000),
  MIVAS_CASCADE_VAD_THRESHOLD_DBFS: z.coerce.number().max(0).default(-35),
  MIVAS_CASCADE_VAD_START_MS: z.coerce.number().int().min(20).default(100),
  MIVAS_CASCADE_ENDPOINT_MS: z.coerce.number().int().min(100).default(500),
  MIVAS_CASCADE_CHIRP_TURNS: bool.default(true),
  MIVAS_CASCADE_RESET_HISTORY: bool.default(false),
  MIVAS_CASCADE_MAX_TOOL_STEPS: z.coerce.number().int().positive().default(16),
  MIVAS_CASCADE_TIMEOUT_S: seconds.default(60),
  MIVAS_CASCADE_MAX_BODY_MB: mebibytesSetting.prefault(4),
  MIVAS_CASCADE_MAX_AUDIO_MB: mebibytesSetting.prefault(32),
  GEMINI_API_KEY: optionalText,
  MIVAS_GEMINI_MODEL: z.string().min(1).default('gemini-3.8-live'),
  MIVAS_GEMINI_VOICE: z.string().min(1).default('Puck'),
  MIVAS_GEMINI_BASE_URL: httpUrl.default('https://generativelanguage.googleapis.com'),
  MIVAS_GEMINI_SILENCE_MS: z.coerce.number().int().min(100).default(500),
  MIVAS_NOVA_MODEL: z.string().min(1).default('amazon.nova-2-sonic-v1:0'),
  MIVAS_NOVA_REGION: z.string().min(1).default('us-east-1'),
  MIVAS_NOVA_VOICE: z.string().min(1).default('matthew'),
  MIVAS_NOVA_ENDPOINT: optionalText.pipe(httpUrl.optional()),
  MIVAS_NOVA_ENDPOINTING: z.enum(['HIGH', 'MEDIUM', 'LOW']).default('MEDIUM'),
  MIVAS_GPT_LIVE_MODEL: z.string().min(1).default('gpt-live-1'),
  MIVAS_GPT_LIVE_VOICE: z.string().min(1).default('marin'),
  MIVAS_GPT_LIVE_BASE_URL: wsUrl.default('wss://api.openai.com/v1'),
  MIVAS_GPT_LIVE_BACKEND_MODEL: z.string().min(1).default('gpt-5-mini'),
  PHONIC_API_KEY: optionalText,
  MIVAS_PHONIC_MODEL: z.string().min(1).default('merritt'),
  MIVAS_PHONIC_VOICE: z.string().min(1).default('sabrina'),
  MIVAS_PHONIC_BASE_URL: wsUrl.default('wss://api.phonic.ai'),
  MIVAS_QWEN_AUDIO_MODEL: z.string().min(1).default('qwen-audio-3.1-realtime-plus'),
  MIVAS_QWEN_AUDIO_VOICE: z.string().min(1).default('longanqian_v3.1'),
  MIVAS_QWEN_AUDIO_BASE_URL: wsUrl.default('wss://dashscope-intl.aliyuncs.com/api-ws/v1'),
  MIVAS_RELAY_TWILIO_URL: optionalText.pipe(wsUrl.optional()),
  MIVAS_RELAY_TWILIO_AUTH_TOKEN: optionalText,
  MIVAS_RELAY_TWILIO_ACCOUNT_SID: optionalText.pipe(z.string().regex(/^AC[0-9a-f]{32}$/, 'expected AC followed by 32 hex digits').optional()),
  MIVAS_RELAY_HANDOFFS: z.enum(['enforce', 'observe']).default('enforce'),
  MIVAS_RELAY_DESK_MAP: optionalText,
  MIVAS_RELAY_CALLBACK_URL: optionalText.pipe(httpUrl.optional()),
  MIVAS_RELAY_ELEVENLABS_AGENT_ID: optionalText,
  MIVAS_RELAY_ELEVENLABS_BASE_URL: wsUrl.default('wss://api.elevenlabs.io'),
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

/**
 * How the Azure harness authenticates: the resource's `api-key`, or a Microsoft Entra ID bearer
 * token, either fixed (`AZURE_OPENAI_AD_TOKEN`) or printed by a command run before each connection.
 */
export type AzureAuthSettings =
  | { readonly kind: 'api-key'; readonly apiKey: string | undefined }
  | { readonly kind: 'entra'; readonly token: string | undefined; readonly tokenCommand: string | undefined };

/** Settings of every realtime provider harness (docs/providers.md). */
export interface ProviderSettings {
  readonly openai: RealtimeProviderSettings & { readonly transcriptionModel: string };
  /** The transcription model is the name of a transcription deployment on the resource (undefined: no caller transcripts). */
  readonly azure: RealtimeProviderSettings & { readonly transcriptionDeployment: string | undefined; readonly auth: AzureAuthSettings };
  readonly xai: RealtimeProviderSettings & { readonly transcriptionModel: string };
  readonly qwen: RealtimeProviderSettings & { readonly workspace: string | undefined };
  /** GA turn detection (OpenAI and Azure): semantic_vad or server_vad, both with interrupt_response. */
  readonly turnDetection: 'semantic_vad' | 'server_vad';
  /** The cascaded STT → LLM → TTS harness (docs/providers.md, "Cascaded"). */
  readonly cascaded: CascadedSettings;
  /** Gemini Live (BidiGenerateContent over WebSocket). */
  readonly gemini: { readonly apiKey: string | undefined; readonly model: string; readonly voice: string; readonly baseUrl: string; readonly silenceMs: number };
  /** Amazon Nova Sonic on Bedrock; credentials come from the AWS SDK's default chain. */
  readonly nova: { readonly model: string; readonly region: string; readonly voice: string; readonly endpoint: string | undefined; readonly endpointing: 'HIGH' | 'MEDIUM' | 'LOW' };
  /** GPT-Live (`/v1/live/sessions`, OpenAI's key); `backendModel` is the Responses model tools are delegated to. */
  readonly gptLive: { readonly apiKey: string | undefined; readonly model: string; readonly voice: string; readonly baseUrl: string; readonly backendModel: string };
  /** Phonic speech-to-speech (`/v1/sts/ws`). */
  readonly phonic: { readonly apiKey: string | undefined; readonly model: string; readonly voice: string; readonly baseUrl: string };
  /** Relays to a team's own agent (docs/platforms.md). */
  readonly relay: RelaySettings;
  /** Qwen-Audio realtime (DashScope's key and optional workspace, its own model, voice and host). */
  readonly qwenAudio: { readonly apiKey: string | undefined; readonly model: string; readonly voice: string; readonly baseUrl: string; readonly workspace: string | undefined };
}

/** Settings of the relay harnesses (docs/platforms.md). */
export interface RelaySettings {
  /** The team's Media Streams bot (`relay/twilio-ms`), dialed as Twilio would. */
  readonly twilioUrl: string | undefined;
  /** The team's Twilio auth token: the upgrade is signed with `X-Twilio-Signature` when set. */
  readonly twilioAuthToken: string | undefined;
  /** The account SID the `start` frame names (a zero placeholder when unset). */
  readonly twilioAccountSid: string | undefined;
  /** `enforce`: a specialist's tool before its transfer is refused; `observe`: the hop is inferred and recorded as such. */
  readonly handoffs: 'enforce' | 'observe';
  /** The team's desk mapping file (platform agent or node → pack desk), or undefined. */
  readonly deskMapFile: string | undefined;
  /** The public base URL a relayed platform calls mivas back on; undefined: the host the caller dialed. */
  readonly callbackUrl: string | undefined;
  /** The team's public ElevenLabs agent (`relay/elevenlabs`). */
  readonly elevenLabsAgentId: string | undefined;
  /** ElevenLabs' WebSocket host; the relay dials `<base>/v1/convai/conversation?agent_id=<id>`. */
  readonly elevenLabsBaseUrl: string;
}

/** One OpenAI-compatible endpoint of the cascade: its base URL (…/v1), model and optional key. */
export interface CascadeEndpoint {
  readonly baseUrl: string | undefined;
  readonly model: string | undefined;
  readonly apiKey: string | undefined;
}

/** Settings of the cascaded harness: three endpoints, the VAD and the graph's history policy. */
export interface CascadedSettings {
  readonly stt: CascadeEndpoint & { readonly stream: boolean };
  readonly llm: CascadeEndpoint;
  readonly tts: CascadeEndpoint & { readonly voice: string; readonly rateHz: number };
  readonly vad: { readonly thresholdDbfs: number; readonly startMs: number; readonly endpointMs: number };
  /** The caller's CHIRP speech.started/completed also take turns (besides the VAD). */
  readonly chirpTurns: boolean;
  /** A handoff clears the chat history (Pipecat-style) instead of carrying it over (LiveKit-style). */
  readonly resetHistory: boolean;
  readonly maxToolSteps: number;
  /** Per request, body included (MIVAS_CASCADE_TIMEOUT_S). */
  readonly timeoutMs: number;
  /** Caps of the STT and LLM answers (JSON, SSE) and of the TTS audio. */
  readonly maxBodyBytes: number;
  readonly maxAudioBytes: number;
}

/** One place spans are exported to (OTLP/HTTP protobuf). */
export interface OtlpDestination {
  readonly name: 'bluejay' | 'otlp';
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
}

/** Where a call's spans go: Bluejay when its key is set, any collector named by the standard OTEL_EXPORTER_OTLP_* variables. */
export interface TracingSettings {
  readonly destinations: readonly OtlpDestination[];
  readonly serviceName: string;
  readonly otelQueueSize: number;
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
  /** Per request, body included, and the answer's cap. */
  readonly timeoutMs: number;
  readonly maxBodyBytes: number;
}

/** One OpenAI-compatible HTTP endpoint of the caller. */
export interface CallerEndpointConfig {
  readonly baseUrl: string;
  readonly apiKey: string | undefined;
  /** Per-request timeout, headers and body (MIVAS_CALLER_TIMEOUT_S). */
  readonly timeoutMs?: number;
  /** Cap of the answer's body (MIVAS_CALLER_MAX_BODY_MB; speech: MIVAS_CALLER_MAX_AUDIO_MB). */
  readonly maxBodyBytes?: number;
}

/**
 * The local caller's settings (docs/caller.md): the `llm` caller's chat endpoint, its ears
 * (transcription, defaulting to the chat endpoint and key) and mouth (espeak-ng, or a speech
 * endpoint), its caps, and the prices of its own usage (kept apart from the agent's).
 */
export interface CallerConfig {
  readonly chat: CallerEndpointConfig & { readonly model: string };
  readonly stt: CallerEndpointConfig & { readonly model: string };
  readonly tts: { readonly kind: 'espeak' | 'endpoint'; readonly model: string; readonly voices: readonly string[]; readonly rateHz: number } & CallerEndpointConfig;
  readonly seedBase: number;
  /** The caller cache's directory (`--caller-cache` defaults to it; speech rollouts use it); undefined: no cache. */
  readonly cacheDir: string | undefined;
  readonly maxTurns: number;
  readonly maxCallMs: number;
  readonly agentSilenceMs: number;
  readonly hangupGraceMs: number;
  /** `task`: render the task's audio condition on the caller's audio; `perfect`: never. */
  readonly audio: 'task' | 'perfect';
  /** USD; null when no caller price is set. */
  readonly prices: { readonly inputPerMTok: number; readonly cachedInputPerMTok: number; readonly outputPerMTok: number; readonly transcriptionPerMin: number; readonly speechPerMChars: number } | null;
}

/** The RL environment routes (docs/rl.md): off unless MIVAS_RL=1. */
export interface RlSettings {
  readonly enabled: boolean;
  /** Bearer token every /rl route then needs; unset: open (loopback only, unless MIVAS_ALLOW_PUBLIC_NOAUTH). */
  readonly token: string | undefined;
  /** Packs mounted under /rl/<pack>; the served pack first. */
  readonly packs: readonly string[];
  /** Live episodes one process holds; past it opening one answers 503 with Retry-After. */
  readonly maxEpisodes: number;
  /** An episode untouched this long is ended (truncated) and scored. */
  readonly idleMs: number;
  /** An episode nobody acted on since its seed is ended (idle) this soon, and the oldest one makes room when the desk is full. */
  readonly untouchedMs: number;
  /** Directory of the `llm` caller's request cache for RL episodes (as `--caller-cache`); unset: none. */
  readonly callerCacheDir: string | undefined;
  /** OpenEnv WebSockets open at once (lowered to fit the open-file limit); past it an upgrade answers 503. */
  readonly maxSockets: number;
  /** An OpenEnv WebSocket without a live episode that sends nothing this long is closed. */
  readonly socketIdleMs: number;
  /** Unsent reply bytes past which an OpenEnv WebSocket is no longer read (and a peer that does not read is dropped). */
  readonly socketBufferBytes: number;
  /**
   * This process's name among several behind one URL (MIVAS_RL_REPLICA): episode ids it mints read
   * `ep_<replica>_<hex>`, so a proxy routes every later request to it (docs/deploy.md "RL replicas").
   */
  readonly replica: string | undefined;
}

/** The OpenAI-compatible chat endpoint the `text/openai-chat` policy harness calls. */
export interface PolicySettings {
  readonly baseUrl: string | undefined;
  readonly model: string | undefined;
  readonly apiKey: string | undefined;
  /** Per request, body included (MIVAS_POLICY_TIMEOUT_S), and the cap of each answer and request (MIVAS_POLICY_MAX_BODY_MB). */
  readonly timeoutMs: number;
  readonly maxBodyBytes: number;
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
  /** Bearer token of the platform routes (relay bots' tools, the Vapi webhook, the per-call MCP endpoint); unset: they are off. */
  readonly platformToken: string | undefined;
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
  /** How long a provider may take, once connected, to confirm its setup (the first session.updated) before the call ends provider_error. */
  readonly providerReadyMs: number;
  readonly drainMs: number;
  /** Longest an HTTP request may take to arrive, and the idle limit of a connection. */
  readonly httpTimeoutMs: number;
  /** Unpaced agent audio (local `--fast` runs only). */
  readonly fast: boolean;
  readonly logLevel: Env['MIVAS_LOG_LEVEL'];
  readonly bluejay: BluejaySettings;
  readonly providers: ProviderSettings;
  readonly tracing: TracingSettings;
  readonly caller: CallerConfig;
  readonly rl: RlSettings;
  readonly policy: PolicySettings;
  /** The optional judge of `mivas score --judge` (scoring.md §10.2): any OpenAI-compatible chat endpoint; never in the scoring path. */
  readonly judge: PolicySettings;
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

/** True when the `llm` caller has an endpoint: a key, or MIVAS_CALLER_BASE_URL naming an endpoint of your own (a local server may take none). */
export function callerEndpointConfigured(caller: Pick<CallerConfig, 'chat'>): boolean {
  return caller.chat.apiKey !== undefined || caller.chat.baseUrl !== DEFAULT_CALLER_BASE_URL;
}

/** Packs the RL routes mount: the served pack, then MIVAS_RL_PACKS (comma-separated), each once. */
function rlPacks(env: Pick<Env, 'MIVAS_PACK' | 'MIVAS_RL_PACKS'>): { packs: string[]; problems: string[] } {
  const listed = (env.MIVAS_RL_PACKS ?? '').split(',').map((p) => p.trim()).filter(Boolean);
  const bad = listed.filter((p) => !/^[a-z][a-z0-9-]*$/.test(p));
  return { packs: [...new Set([env.MIVAS_PACK, ...listed])], problems: bad.map((p) => `MIVAS_RL_PACKS: ${JSON.stringify(p)} is not a pack id`) };
}

/** The RL routes run episodes for whoever reaches them: open routes stay on loopback like open CHIRP. */
function rlProblems(env: Env, host: string): string[] {
  if (!env.MIVAS_RL || env.MIVAS_RL_TOKEN !== undefined || env.MIVAS_ALLOW_PUBLIC_NOAUTH || isLoopback(host)) return [];
  return [`MIVAS_RL_TOKEN: the RL routes are on and ${host} is not a loopback address; set MIVAS_RL_TOKEN or MIVAS_ALLOW_PUBLIC_NOAUTH=1`];
}

function toConfig(env: Env): ConfigResult {
  const earlyHost = env.MIVAS_HOST ?? ((env.CHIRP_USER !== undefined && env.CHIRP_PASS !== undefined) || env.MIVAS_ALLOW_PUBLIC_NOAUTH ? '0.0.0.0' : '127.0.0.1');
  const rl = rlPacks(env);
  const problems = [...authProblems(env), ...rl.problems, ...rlProblems(env, earlyHost)];
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
    platformToken: env.MIVAS_PLATFORM_TOKEN,
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
    providerReadyMs: env.MIVAS_PROVIDER_READY_S * 1000,
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
      timeoutMs: env.MIVAS_BLUEJAY_TIMEOUT_S * 1000,
      maxBodyBytes: env.MIVAS_BLUEJAY_MAX_BODY_MB,
    },
    providers: providerSettings(env),
    tracing: tracingSettings(env),
    caller: callerSettings(env),
    rl: { enabled: env.MIVAS_RL, token: env.MIVAS_RL_TOKEN, packs: rl.packs, maxEpisodes: env.MIVAS_RL_MAX_EPISODES, idleMs: env.MIVAS_RL_IDLE_S * 1000, untouchedMs: env.MIVAS_RL_UNTOUCHED_S * 1000, callerCacheDir: env.MIVAS_RL_CALLER_CACHE, maxSockets: env.MIVAS_RL_MAX_SOCKETS, socketIdleMs: env.MIVAS_RL_SOCKET_IDLE_S * 1000, socketBufferBytes: env.MIVAS_RL_SOCKET_BUFFER_KB * 1024, replica: env.MIVAS_RL_REPLICA },
    policy: { baseUrl: env.MIVAS_POLICY_BASE_URL, model: env.MIVAS_POLICY_MODEL, apiKey: env.MIVAS_POLICY_API_KEY, timeoutMs: env.MIVAS_POLICY_TIMEOUT_S * 1000, maxBodyBytes: env.MIVAS_POLICY_MAX_BODY_MB },
    judge: { baseUrl: env.MIVAS_JUDGE_BASE_URL, model: env.MIVAS_JUDGE_MODEL, apiKey: env.MIVAS_JUDGE_API_KEY, timeoutMs: env.MIVAS_JUDGE_TIMEOUT_S * 1000, maxBodyBytes: env.MIVAS_JUDGE_MAX_BODY_MB },
  };
  return { ok: true, config: Object.freeze(config) };
}

/** `k1=v1,k2=v2` with URL-encoded values, as the OpenTelemetry exporter specification writes headers. */
function otlpHeaders(text: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const pair of (text ?? '').split(',')) {
    const at = pair.indexOf('=');
    if (at <= 0) continue;
    out[decodeURIComponent(pair.slice(0, at).trim())] = decodeURIComponent(pair.slice(at + 1).trim());
  }
  return out;
}

function tracingSettings(env: Env): TracingSettings {
  const destinations: OtlpDestination[] = [];
  if (env.BLUEJAY_API_KEY !== undefined && env.MIVAS_OTEL) destinations.push({ name: 'bluejay', url: env.BLUEJAY_OTLP_ENDPOINT, headers: { 'X-API-KEY': env.BLUEJAY_API_KEY } });
  // The signal-specific endpoint is used as given; the base endpoint gets /v1/traces (OTLP exporter spec).
  const url = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ?? (env.OTEL_EXPORTER_OTLP_ENDPOINT ? `${env.OTEL_EXPORTER_OTLP_ENDPOINT}/v1/traces` : undefined);
  if (url && env.MIVAS_OTEL) destinations.push({ name: 'otlp', url, headers: { ...otlpHeaders(env.OTEL_EXPORTER_OTLP_HEADERS), ...otlpHeaders(env.OTEL_EXPORTER_OTLP_TRACES_HEADERS) } });
  return { destinations, serviceName: env.OTEL_SERVICE_NAME ?? env.BLUEJAY_SERVICE_NAME, otelQueueSize: env.MIVAS_OTEL_QUEUE };
}

function providerSettings(env: Env): ProviderSettings {
  const transcriptionModel = env.MIVAS_OPENAI_TRANSCRIPTION_MODEL;
  return {
    openai: { apiKey: env.OPENAI_API_KEY, model: env.MIVAS_OPENAI_MODEL, voice: env.MIVAS_OPENAI_VOICE, baseUrl: env.MIVAS_OPENAI_BASE_URL, transcriptionModel },
    azure: {
      apiKey: env.AZURE_OPENAI_API_KEY,
      model: env.MIVAS_AZURE_DEPLOYMENT,
      voice: env.MIVAS_AZURE_VOICE,
      baseUrl: env.MIVAS_AZURE_BASE_URL,
      transcriptionDeployment: env.MIVAS_AZURE_TRANSCRIPTION_DEPLOYMENT,
      auth:
        env.MIVAS_AZURE_AUTH === 'entra'
          ? { kind: 'entra', token: env.AZURE_OPENAI_AD_TOKEN, tokenCommand: env.MIVAS_AZURE_TOKEN_COMMAND }
          : { kind: 'api-key', apiKey: env.AZURE_OPENAI_API_KEY },
    },
    xai: { apiKey: env.XAI_API_KEY, model: env.MIVAS_XAI_MODEL, voice: env.MIVAS_XAI_VOICE, baseUrl: env.MIVAS_XAI_BASE_URL, transcriptionModel: env.MIVAS_XAI_TRANSCRIPTION_MODEL },
    qwen: { apiKey: env.DASHSCOPE_API_KEY, model: env.MIVAS_QWEN_MODEL, voice: env.MIVAS_QWEN_VOICE, baseUrl: env.MIVAS_QWEN_BASE_URL, workspace: env.MIVAS_QWEN_WORKSPACE },
    turnDetection: env.MIVAS_TURN_DETECTION,
    cascaded: {
      stt: { baseUrl: env.MIVAS_CASCADE_STT_BASE_URL, model: env.MIVAS_CASCADE_STT_MODEL, apiKey: env.MIVAS_CASCADE_STT_API_KEY, stream: env.MIVAS_CASCADE_STT_STREAM },
      llm: { baseUrl: env.MIVAS_CASCADE_LLM_BASE_URL, model: env.MIVAS_CASCADE_LLM_MODEL, apiKey: env.MIVAS_CASCADE_LLM_API_KEY },
      tts: { baseUrl: env.MIVAS_CASCADE_TTS_BASE_URL, model: env.MIVAS_CASCADE_TTS_MODEL, apiKey: env.MIVAS_CASCADE_TTS_API_KEY, voice: env.MIVAS_CASCADE_TTS_VOICE, rateHz: env.MIVAS_CASCADE_TTS_RATE_HZ },
      vad: { thresholdDbfs: env.MIVAS_CASCADE_VAD_THRESHOLD_DBFS, startMs: env.MIVAS_CASCADE_VAD_START_MS, endpointMs: env.MIVAS_CASCADE_ENDPOINT_MS },
      chirpTurns: env.MIVAS_CASCADE_CHIRP_TURNS,
      resetHistory: env.MIVAS_CASCADE_RESET_HISTORY,
      maxToolSteps: env.MIVAS_CASCADE_MAX_TOOL_STEPS,
      timeoutMs: env.MIVAS_CASCADE_TIMEOUT_S * 1000,
      maxBodyBytes: env.MIVAS_CASCADE_MAX_BODY_MB,
      maxAudioBytes: env.MIVAS_CASCADE_MAX_AUDIO_MB,
    },
    gemini: { apiKey: env.GEMINI_API_KEY, model: env.MIVAS_GEMINI_MODEL, voice: env.MIVAS_GEMINI_VOICE, baseUrl: env.MIVAS_GEMINI_BASE_URL, silenceMs: env.MIVAS_GEMINI_SILENCE_MS },
    nova: { model: env.MIVAS_NOVA_MODEL, region: env.MIVAS_NOVA_REGION, voice: env.MIVAS_NOVA_VOICE, endpoint: env.MIVAS_NOVA_ENDPOINT, endpointing: env.MIVAS_NOVA_ENDPOINTING },
    gptLive: { apiKey: env.OPENAI_API_KEY, model: env.MIVAS_GPT_LIVE_MODEL, voice: env.MIVAS_GPT_LIVE_VOICE, baseUrl: env.MIVAS_GPT_LIVE_BASE_URL, backendModel: env.MIVAS_GPT_LIVE_BACKEND_MODEL },
    phonic: { apiKey: env.PHONIC_API_KEY, model: env.MIVAS_PHONIC_MODEL, voice: env.MIVAS_PHONIC_VOICE, baseUrl: env.MIVAS_PHONIC_BASE_URL },
    relay: { twilioUrl: env.MIVAS_RELAY_TWILIO_URL, twilioAuthToken: env.MIVAS_RELAY_TWILIO_AUTH_TOKEN, twilioAccountSid: env.MIVAS_RELAY_TWILIO_ACCOUNT_SID, handoffs: env.MIVAS_RELAY_HANDOFFS, deskMapFile: env.MIVAS_RELAY_DESK_MAP, callbackUrl: env.MIVAS_RELAY_CALLBACK_URL, elevenLabsAgentId: env.MIVAS_RELAY_ELEVENLABS_AGENT_ID, elevenLabsBaseUrl: env.MIVAS_RELAY_ELEVENLABS_BASE_URL },
    qwenAudio: { apiKey: env.DASHSCOPE_API_KEY, model: env.MIVAS_QWEN_AUDIO_MODEL, voice: env.MIVAS_QWEN_AUDIO_VOICE, baseUrl: env.MIVAS_QWEN_AUDIO_BASE_URL, workspace: env.MIVAS_QWEN_WORKSPACE },
  };
}

function callerSettings(env: Env): CallerConfig {
  const chat = { baseUrl: env.MIVAS_CALLER_BASE_URL, apiKey: env.MIVAS_CALLER_API_KEY, timeoutMs: env.MIVAS_CALLER_TIMEOUT_S * 1000, maxBodyBytes: env.MIVAS_CALLER_MAX_BODY_MB };
  const priced = [env.MIVAS_CALLER_PRICE_INPUT, env.MIVAS_CALLER_PRICE_CACHED_INPUT, env.MIVAS_CALLER_PRICE_OUTPUT, env.MIVAS_CALLER_PRICE_STT_MIN, env.MIVAS_CALLER_PRICE_TTS_MCHARS].some((p) => p !== undefined);
  return {
    chat: { ...chat, model: env.MIVAS_CALLER_MODEL },
    stt: { baseUrl: env.MIVAS_CALLER_STT_BASE_URL ?? chat.baseUrl, apiKey: env.MIVAS_CALLER_STT_API_KEY ?? chat.apiKey, timeoutMs: chat.timeoutMs, maxBodyBytes: chat.maxBodyBytes, model: env.MIVAS_CALLER_STT_MODEL },
    tts: {
      kind: env.MIVAS_CALLER_TTS,
      baseUrl: env.MIVAS_CALLER_TTS_BASE_URL ?? chat.baseUrl,
      apiKey: env.MIVAS_CALLER_TTS_API_KEY ?? chat.apiKey,
      timeoutMs: chat.timeoutMs,
      maxBodyBytes: env.MIVAS_CALLER_MAX_AUDIO_MB,
      model: env.MIVAS_CALLER_TTS_MODEL,
      voices: env.MIVAS_CALLER_TTS_VOICES.split(',').map((v) => v.trim()).filter(Boolean),
      rateHz: env.MIVAS_CALLER_TTS_RATE,
    },
    seedBase: env.MIVAS_CALLER_SEED,
    cacheDir: env.MIVAS_CALLER_CACHE,
    maxTurns: env.MIVAS_CALLER_MAX_TURNS,
    maxCallMs: env.MIVAS_CALLER_MAX_S * 1000,
    agentSilenceMs: env.MIVAS_CALLER_AGENT_SILENCE_S * 1000,
    hangupGraceMs: env.MIVAS_CALLER_HANGUP_GRACE_S * 1000,
    audio: env.MIVAS_CALLER_AUDIO,
    prices: priced
      ? {
          inputPerMTok: env.MIVAS_CALLER_PRICE_INPUT ?? 0,
          cachedInputPerMTok: env.MIVAS_CALLER_PRICE_CACHED_INPUT ?? env.MIVAS_CALLER_PRICE_INPUT ?? 0,
          outputPerMTok: env.MIVAS_CALLER_PRICE_OUTPUT ?? 0,
          transcriptionPerMin: env.MIVAS_CALLER_PRICE_STT_MIN ?? 0,
          speechPerMChars: env.MIVAS_CALLER_PRICE_TTS_MCHARS ?? 0,
        }
      : null,
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
