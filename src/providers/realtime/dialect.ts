import type { RealtimeClientEvent, RealtimeFunctionTool } from 'openai/resources/realtime/realtime';
import type { AgentSetup } from '../model-session.ts';

/** A function tool nested beta style, as Qwen takes it (wire.md §3.3). */
export interface NestedFunctionTool {
  readonly type: 'function';
  readonly function: { readonly name: string; readonly description: string; readonly parameters: unknown };
}

/** A tool exactly as one provider is offered it. */
export type OfferedTool = RealtimeFunctionTool | NestedFunctionTool;

/** Beta-shaped session fields (Qwen): top-level formats, VAD, transcription and voice (wire.md §2.8, §3.3). */
export interface BetaSession {
  readonly modalities?: readonly ('text' | 'audio')[];
  readonly voice?: string;
  readonly instructions?: string;
  readonly input_audio_format?: string;
  readonly output_audio_format?: string;
  readonly input_audio_transcription?: { readonly model: string };
  readonly turn_detection?: { readonly type: 'server_vad'; readonly threshold: number; readonly silence_duration_ms: number };
  readonly tools?: readonly OfferedTool[];
}

/** xAI's own session shape: GA event names, top-level voice and VAD, nested audio formats (wire.md §3.2). */
export interface XaiSession {
  readonly instructions?: string;
  readonly voice?: string;
  readonly turn_detection?: { readonly type: 'server_vad'; readonly threshold: number; readonly silence_duration_ms: number; readonly prefix_padding_ms: number };
  readonly audio?: {
    readonly input: { readonly format: { readonly type: 'audio/pcm'; readonly rate: number }; readonly transcription?: { readonly model: string } };
    readonly output: { readonly format: { readonly type: 'audio/pcm'; readonly rate: number } };
  };
  readonly tools?: readonly OfferedTool[];
}

/** Every client event a realtime session may send: the GA union plus the two non-GA session shapes. */
export type OutboundEvent =
  | RealtimeClientEvent
  | { readonly type: 'session.update'; readonly session: BetaSession | XaiSession }
  | { readonly type: 'response.create'; readonly response: { readonly modalities: readonly ('text' | 'audio')[] } };

/**
 * How one provider variant differs from GA OpenAI: endpoint, auth header, audio rates, session
 * shape, tool shape, the response request and any seeded items. Everything else (events, tool
 * calls, truncation, usage) is the same adapter (wire.md §3).
 */
export interface RealtimeDialect {
  /** Provider family for logs and spans (`openai`, `azure`, `xai`, `qwen`). */
  readonly provider: string;
  /** Model id as priced and reported (Azure: the deployment name). */
  readonly model: string;
  /** Full WebSocket URL, `…/realtime?model=…`. */
  readonly url: string;
  /**
   * Upgrade headers, fetched before each connection (an Entra token may be refreshed); they carry
   * the key, so they are never logged or recorded, and their values are blanked out of any
   * provider answer the session reports.
   */
  authHeaders(): Promise<Readonly<Record<string, string>>>;
  readonly inputRateHz: number;
  readonly outputRateHz: number;
  /** The first session.update: the whole configuration for the entry agent. */
  sessionUpdate(agent: AgentSetup): OutboundEvent;
  /** A handoff's session.update: the target's instructions and tools only (wire.md §2.6 step 1). */
  agentUpdate(agent: AgentSetup): OutboundEvent;
  /** The agent's tools exactly as this provider is offered them. */
  tools(agent: AgentSetup): readonly OfferedTool[];
  /** One response request (the bare nudge and every later create). */
  responseCreate(): OutboundEvent;
  /** Text of a user item seeded once before the first response request, or null (wire.md §3.3). */
  readonly seedText: string | null;
  /** False where the provider lists `conversation.item.truncate` as unsupported (xAI): barge-in then sends none. */
  readonly truncates: boolean;
}

/** The upgrade headers of a fixed key, as an `authHeaders` function. */
export function fixedHeaders(headers: Readonly<Record<string, string>>): () => Promise<Readonly<Record<string, string>>> {
  return () => Promise.resolve(headers);
}

/** `<base>/realtime?model=<model>`: the GA path shape every variant shares. */
export function realtimeUrl(baseUrl: string, model: string): string {
  return `${baseUrl.replace(/\/+$/, '')}/realtime?model=${encodeURIComponent(model)}`;
}

/** Flat GA function tools; `parameters` pass through unchanged (wire.md §2.3: no coercion). */
export function flatTools(agent: AgentSetup): RealtimeFunctionTool[] {
  return agent.tools.map((t) => ({ type: 'function', name: t.name, description: t.description, parameters: t.parameters }));
}
