import { fixedHeaders, flatTools, realtimeUrl, type RealtimeDialect } from './dialect.ts';

/** xAI takes PCM at 8 to 48 kHz; declaring CHIRP's 16 kHz skips resampling both ways (docs/providers.md, xAI). */
const XAI_RATE_HZ = 16_000;

/** What the xAI dialect needs from configuration. */
export interface XaiDialectOptions {
  readonly baseUrl: string;
  readonly model: string;
  readonly voice: string;
  readonly apiKey: string;
  /** `audio.input.transcription.model`: named explicitly so caller transcripts never depend on a server default. */
  readonly transcriptionModel: string;
}

/**
 * xAI Grok Voice Agent: GA event names, its own session shape with top-level voice and VAD. Only
 * the session parameters xAI's reference lists are sent (no `tool_choice`, no `type`), and no
 * `conversation.item.truncate`, which xAI lists as unsupported (docs/providers.md).
 */
export function xaiDialect(options: XaiDialectOptions): RealtimeDialect {
  return {
    provider: 'xai',
    model: options.model,
    url: realtimeUrl(options.baseUrl, options.model),
    authHeaders: fixedHeaders({ Authorization: `Bearer ${options.apiKey}` }),
    inputRateHz: XAI_RATE_HZ,
    outputRateHz: XAI_RATE_HZ,
    tools: flatTools,
    sessionUpdate: (agent) => ({
      type: 'session.update',
      session: {
        instructions: agent.instructions,
        voice: options.voice,
        // Upstream's tuning: a higher threshold than OpenAI's keeps hold noise and echo from
        // reading as speech (wire.md §1.8, §3.2).
        turn_detection: { type: 'server_vad', threshold: 0.7, silence_duration_ms: 700, prefix_padding_ms: 400 },
        audio: {
          input: { format: { type: 'audio/pcm', rate: XAI_RATE_HZ }, transcription: { model: options.transcriptionModel } },
          output: { format: { type: 'audio/pcm', rate: XAI_RATE_HZ } },
        },
        tools: flatTools(agent),
      },
    }),
    agentUpdate: (agent) => ({ type: 'session.update', session: { instructions: agent.instructions, tools: flatTools(agent) } }),
    responseCreate: () => ({ type: 'response.create' }),
    seedText: null,
    truncates: false,
  };
}
