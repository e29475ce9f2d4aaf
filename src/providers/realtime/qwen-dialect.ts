import type { AgentSetup } from '../model-session.ts';
import { fixedHeaders, realtimeUrl, type NestedFunctionTool, type RealtimeDialect } from './dialect.ts';

/** A bare response.create is rejected on an empty Qwen conversation, so one user item goes first (wire.md §3.3). */
export const QWEN_SEED_TEXT = 'The caller is connected.';

/** Qwen's input transcription model: the one its reference names, and not configurable (docs/providers.md). */
export const QWEN_TRANSCRIPTION_MODEL = 'qwen3-asr-flash-realtime';

/** What the Qwen dialect needs from configuration. */
export interface QwenDialectOptions {
  readonly baseUrl: string;
  readonly model: string;
  readonly voice: string;
  readonly apiKey: string;
  readonly workspace: string | undefined;
}

/** The agent's tools nested beta style, as DashScope's realtime models take them. */
export function nestedTools(agent: AgentSetup): NestedFunctionTool[] {
  return agent.tools.map((t) => ({ type: 'function', function: { name: t.name, description: t.description, parameters: t.parameters } }));
}

/** DashScope's upgrade headers: the bearer key, and the workspace when one is set. */
export function dashScopeHeaders(apiKey: string, workspace: string | undefined): Record<string, string> {
  return workspace ? { Authorization: `Bearer ${apiKey}`, 'X-DashScope-WorkSpace': workspace } : { Authorization: `Bearer ${apiKey}` };
}

/**
 * Qwen omni realtime: the beta session shape and event names. The format is named `pcm` both ways,
 * which Qwen runs at 16 kHz in and 24 kHz out; `tool_choice` is not a Qwen session field and
 * `conversation.item.truncate` not a Qwen client event, so neither is sent (docs/providers.md).
 */
export function qwenDialect(options: QwenDialectOptions): RealtimeDialect {
  return dashScopeDialect(options, {
    inputRateHz: 16_000,
    outputRateHz: 24_000,
    sessionAudio: { input_audio_format: 'pcm', output_audio_format: 'pcm', input_audio_transcription: { model: QWEN_TRANSCRIPTION_MODEL } },
    response: { modalities: ['audio', 'text'] },
  });
}

/** What differs between DashScope's realtime models (Qwen-Omni, Qwen-Audio) on their one session shape. */
export interface DashScopeWire {
  readonly inputRateHz: number;
  readonly outputRateHz: number;
  /** Session fields about audio beyond the shared ones (formats, input transcription). */
  readonly sessionAudio: Readonly<Record<string, unknown>>;
  /** The `response` field of `response.create`, or null to send a bare one. */
  readonly response: Readonly<Record<string, unknown>> | null;
}

/**
 * A DashScope realtime dialect: the key and workspace headers, server VAD, nested tools, a handoff
 * that updates only instructions and tools, the seed text before the greeting, and no
 * `conversation.item.truncate` (neither model's client events list it; docs/providers.md).
 */
export function dashScopeDialect(options: QwenDialectOptions, wire: DashScopeWire): RealtimeDialect {
  return {
    provider: 'qwen',
    model: options.model,
    url: realtimeUrl(options.baseUrl, options.model),
    authHeaders: fixedHeaders(dashScopeHeaders(options.apiKey, options.workspace)),
    inputRateHz: wire.inputRateHz,
    outputRateHz: wire.outputRateHz,
    tools: nestedTools,
    sessionUpdate: (agent) => ({
      type: 'session.update',
      session: {
        modalities: ['text', 'audio'],
        voice: options.voice,
        instructions: agent.instructions,
        ...wire.sessionAudio,
        turn_detection: { type: 'server_vad', threshold: 0.5, silence_duration_ms: 800 },
        tools: nestedTools(agent),
      },
    }),
    agentUpdate: (agent) => ({ type: 'session.update', session: { instructions: agent.instructions, tools: nestedTools(agent) } }),
    responseCreate: () => (wire.response ? { type: 'response.create', response: wire.response } : { type: 'response.create' }),
    seedText: QWEN_SEED_TEXT,
    truncates: false,
  };
}
