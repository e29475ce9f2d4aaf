import type { TypedEmitter } from '../core/index.ts';
import type { AgentSetup } from '../conversation/index.ts';
import type { Pack } from '../packs/index.ts';
import type { Usage } from '../snapshot/index.ts';

export type { AgentSetup, ToolSpec } from '../conversation/index.ts';

/** A function call the model made. `arguments` is the model's raw JSON text. */
export interface FunctionCall {
  readonly callId: string;
  readonly name: string;
  readonly arguments: string;
}

/**
 * A call the platform under test already made on its own side (a relay: a transfer the platform
 * executed, reported after the fact): recorded on the timeline with its origin and applied to the
 * conversation, with nothing sent back. `inferred` marks a hop mivas deduced (observe mode), not
 * one the platform reported.
 */
export interface PlatformCall {
  readonly name: string;
  /** The arguments as JSON text, as the platform reported them. */
  readonly arguments: string;
  readonly origin: 'platform' | 'inferred';
}

/** A provider-side failure, typed by who is at fault and whether the call can go on. */
export interface ProviderFailure {
  readonly code: string;
  readonly message: string;
  /** True when the model connection is gone or unusable: the call ends with provider_error. */
  readonly fatal: boolean;
}

/** One of the provider's rate limits as last reported: how much of it is left. */
export interface RateLimitReading {
  readonly name: string;
  readonly remaining: number;
}

/**
 * One caller turn's latency split, in milliseconds on the harness's clock (cascaded harness):
 * from the end of the caller's speech (the endpoint) to the first agent audio, and its parts.
 * A part that never happened (no speech followed, a barge-in cut it) is null.
 */
export interface TurnLatency {
  /** Silence the endpointing waited before it closed the turn (0 when CHIRP's speech.completed closed it). */
  readonly endpointMs: number;
  /** Endpoint → transcript. */
  readonly sttMs: number;
  /** Chat request → its first streamed token (text or tool call), of the turn's first completion. */
  readonly llmFirstTokenMs: number | null;
  /** Speech request → its first audio byte, of the turn's first spoken sentence. */
  readonly ttsFirstByteMs: number | null;
  /** Endpoint → first agent audio handed to the call. */
  readonly totalMs: number | null;
}

/** Events every harness emits, normalised across providers (style: events typed by name). */
export type ModelSessionEvents = {
  /** The session is configured (first session.updated): buffered caller audio may flow. */
  ready: [];
  /** Agent audio at `outputRateHz`; the first chunk of a new item opens an utterance. */
  audio: [itemId: string, pcm: Buffer];
  /** The item's audio is complete. */
  audioDone: [itemId: string];
  transcript: [side: 'caller' | 'agent', text: string, itemId: string | null];
  functionCall: [call: FunctionCall];
  responseStarted: [responseId: string | null];
  responseDone: [done: { responseId: string | null; status: string; usage: Usage | null }];
  /** The provider's own speech detection heard the caller start (barge-in trigger). */
  callerSpeechStarted: [];
  /** The caller stopped speaking (provider detection, or the CHIRP event for local harnesses): a response may follow. */
  callerSpeechStopped: [];
  /** A recorded error; fatal ones end the call. */
  failure: [failure: ProviderFailure];
  /** The harness put an item into the conversation that no one said (Qwen's seed, wire.md §3.3). */
  itemInjected: [role: 'user', text: string];
  /** The provider's rate limits changed (realtime `rate_limits.updated`); limits it reports no remainder for are left out. */
  rateLimits: [limits: readonly RateLimitReading[]];
  /** A caller turn's latency split (harnesses that measure one: cascaded). */
  turnLatency: [latency: TurnLatency];
  /** A call the platform already made (relays): recorded and applied, never answered. */
  platformCall: [call: PlatformCall];
  /** The agent's side hung up (a relay's bot closed its socket): the call ends as the agent's ending once its audio has played. */
  agentHangup: [];
};

/**
 * The one seam between a call and the model under test (docs/architecture.md, "Words used throughout"). It carries audio,
 * applies agent switches natively and owns no policy, prices or schema. The call's turn driver
 * decides when to create responses, answers tool calls and applies handoffs.
 */
export interface ModelSession {
  readonly provider: string;
  readonly model: string | null;
  /** Rate of the PCM16 mono audio the session accepts. */
  readonly inputRateHz: number;
  /** Rate of the PCM16 mono audio the session emits. */
  readonly outputRateHz: number;
  readonly events: TypedEmitter<ModelSessionEvents>;
  /** True when the agent greets on its own (a relay to a team's agent): the call never nudges it. */
  readonly speaksFirst?: boolean;
  /** The id the platform under test knows this call by (a relay), fixed before audio starts; platform webhooks name the call with it. */
  readonly platformCallId?: string;
  /** Opens the connection and configures the session for the entry agent. */
  connect(agent: AgentSetup, signal: AbortSignal): Promise<void>;
  sendAudio(pcm: Buffer): void;
  /** Replaces instructions and tools (a handoff); history stays. */
  applyAgent(agent: AgentSetup): void;
  sendToolOutput(callId: string, output: string): void;
  /** Asks for a response (the bare nudge, or after tool outputs). */
  requestResponse(): void;
  /** Stops the response in progress, if any (barge-in); its responseDone still follows. */
  cancelResponse(): void;
  /** Tells the model how much of an item the caller actually heard. */
  truncate(itemId: string, audioEndMs: number): void;
  /** The caller's CHIRP speech events; harnesses with their own detection ignore them (wire.md §1.4). */
  callerSpeech(kind: 'started' | 'completed'): void;
  close(): Promise<void>;
}

/** What a harness factory knows about the call it serves. */
export interface CallInfo {
  readonly callId: string;
  readonly pack: Pack;
  readonly taskId: string | null;
  /** The base URL of this call's platform routes, for a relay to hand its platform (docs/platforms.md). */
  readonly callbackUrl?: string;
}

/** Builds model sessions for one harness; validates a call before its upgrade is accepted. */
export interface HarnessFactory {
  readonly name: string;
  /** A reason to refuse the call before upgrade (400), or null. */
  refuse(call: CallInfo): string | null;
  create(call: CallInfo): ModelSession;
  /** The agent's tools exactly as this harness offers them to its model (`mivas check`); absent for keyless harnesses. */
  offeredTools?(agent: AgentSetup): readonly unknown[];
}
