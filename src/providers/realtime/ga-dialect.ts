import type { RealtimeAudioInputTurnDetection, RealtimeSessionCreateRequest } from 'openai/resources/realtime/realtime';
import { fixedHeaders, flatTools, realtimeUrl, type RealtimeDialect } from './dialect.ts';

/** GA PCM runs at 24 kHz only (wire.md §2.3). */
const GA_RATE_HZ = 24_000;

/** Upgrade headers of a GA service, fetched before each connection. */
export type AuthHeaders = () => Promise<Readonly<Record<string, string>>>;

/** What a GA dialect needs from configuration. */
export interface GaDialectOptions {
  readonly provider: 'openai' | 'azure';
  readonly baseUrl: string;
  readonly model: string;
  readonly voice: string;
  /**
   * The `audio.input.transcription.model`: an OpenAI model name, or on Azure the name of a
   * transcription deployment (Azure's one documented deviation). Null sends no transcription.
   */
  readonly transcriptionModel: string | null;
  readonly turnDetection: 'semantic_vad' | 'server_vad';
  /**
   * OpenAI authenticates with a bearer key, Azure with an `api-key` header or an Entra ID bearer
   * token (wire.md §3.1, docs/providers.md); a function is called before each connection.
   */
  readonly auth: { readonly kind: 'bearer' | 'api-key'; readonly key: string } | AuthHeaders;
}

/** Both VAD modes interrupt the response on caller speech, which is what barge-in relies on (§1.5). */
function turnDetection(kind: GaDialectOptions['turnDetection']): RealtimeAudioInputTurnDetection {
  if (kind === 'semantic_vad') return { type: 'semantic_vad', interrupt_response: true };
  return { type: 'server_vad', threshold: 0.5, prefix_padding_ms: 300, silence_duration_ms: 500, create_response: true, interrupt_response: true };
}

function authHeadersOf(auth: GaDialectOptions['auth']): AuthHeaders {
  if (typeof auth === 'function') return auth;
  return fixedHeaders(auth.kind === 'bearer' ? { Authorization: `Bearer ${auth.key}` } : { 'api-key': auth.key });
}

/** The GA protocol of OpenAI Realtime and Azure OpenAI (wire.md §2, §3.1). */
export function gaDialect(options: GaDialectOptions): RealtimeDialect {
  const transcription = options.transcriptionModel === null ? {} : { transcription: { model: options.transcriptionModel } };
  return {
    provider: options.provider,
    model: options.model,
    url: realtimeUrl(options.baseUrl, options.model),
    authHeaders: authHeadersOf(options.auth),
    inputRateHz: GA_RATE_HZ,
    outputRateHz: GA_RATE_HZ,
    tools: flatTools,
    sessionUpdate: (agent) => {
      const session: RealtimeSessionCreateRequest = {
        type: 'realtime',
        instructions: agent.instructions,
        tools: flatTools(agent),
        tool_choice: 'auto',
        output_modalities: ['audio'],
        audio: {
          input: { format: { type: 'audio/pcm', rate: GA_RATE_HZ }, ...transcription, turn_detection: turnDetection(options.turnDetection) },
          output: { format: { type: 'audio/pcm', rate: GA_RATE_HZ }, voice: options.voice },
        },
        tracing: null,
      };
      return { type: 'session.update', session };
    },
    // Voice, VAD and formats stay as they are; only the agent changes (wire.md §2.6).
    agentUpdate: (agent) => ({ type: 'session.update', session: { type: 'realtime', instructions: agent.instructions, tools: flatTools(agent) } }),
    responseCreate: () => ({ type: 'response.create' }),
    seedText: null,
    truncates: true,
  };
}
