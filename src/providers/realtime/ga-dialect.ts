import type { RealtimeAudioInputTurnDetection } from 'openai/resources/realtime/realtime';
import { flatTools, realtimeUrl, type RealtimeDialect } from './dialect.ts';

/** GA PCM runs at 24 kHz only (wire.md §2.3). */
const GA_RATE_HZ = 24_000;

/** What a GA dialect needs from configuration. */
export interface GaDialectOptions {
  readonly provider: 'openai' | 'azure';
  readonly baseUrl: string;
  readonly model: string;
  readonly voice: string;
  readonly transcriptionModel: string;
  readonly turnDetection: 'semantic_vad' | 'server_vad';
  /** OpenAI authenticates with a bearer token, Azure with an `api-key` header (wire.md §3.1). */
  readonly auth: { readonly kind: 'bearer' | 'api-key'; readonly key: string };
}

/** Both VAD modes interrupt the response on caller speech, which is what barge-in relies on (§1.5). */
function turnDetection(kind: GaDialectOptions['turnDetection']): RealtimeAudioInputTurnDetection {
  if (kind === 'semantic_vad') return { type: 'semantic_vad', interrupt_response: true };
  return { type: 'server_vad', threshold: 0.5, prefix_padding_ms: 300, silence_duration_ms: 500, create_response: true, interrupt_response: true };
}

/** The GA protocol of OpenAI Realtime and Azure OpenAI (wire.md §2, §3.1). */
export function gaDialect(options: GaDialectOptions): RealtimeDialect {
  const headers: Record<string, string> =
    options.auth.kind === 'bearer' ? { Authorization: `Bearer ${options.auth.key}` } : { 'api-key': options.auth.key };
  return {
    provider: options.provider,
    model: options.model,
    url: realtimeUrl(options.baseUrl, options.model),
    headers,
    inputRateHz: GA_RATE_HZ,
    outputRateHz: GA_RATE_HZ,
    tools: flatTools,
    sessionUpdate: (agent) => ({
      type: 'session.update',
      session: {
        type: 'realtime',
        instructions: agent.instructions,
        tools: flatTools(agent),
        tool_choice: 'auto',
        output_modalities: ['audio'],
        audio: {
          input: {
            format: { type: 'audio/pcm', rate: GA_RATE_HZ },
            transcription: { model: options.transcriptionModel },
            turn_detection: turnDetection(options.turnDetection),
          },
          output: { format: { type: 'audio/pcm', rate: GA_RATE_HZ }, voice: options.voice },
        },
        tracing: null,
      },
    }),
    // Voice, VAD and formats stay as they are; only the agent changes (wire.md §2.6).
    agentUpdate: (agent) => ({ type: 'session.update', session: { type: 'realtime', instructions: agent.instructions, tools: flatTools(agent) } }),
    responseCreate: () => ({ type: 'response.create' }),
    seedText: null,
  };
}
