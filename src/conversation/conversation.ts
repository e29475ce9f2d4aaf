import { agentOwnsTool, END_CALL, type CatalogTool, type Pack } from '../packs/index.ts';
import type { TimelineEvent, Timeline } from '../snapshot/index.ts';
import type { CallDatabase, CallDatabases, DatabaseDump } from '../store/index.ts';
import { executeTool, runtimeRefusal, type Envelope, type Refusal, type ToolExecution } from '../tools/index.ts';
import { agentSetupOf, type AgentSetup } from './agent-view.ts';

/** What a dispatched call does to the conversation besides its output; the context's applier acts on it. */
export type DispatchEffect =
  | { readonly kind: 'none' }
  | { readonly kind: 'handoff'; readonly from: string; readonly to: string }
  | { readonly kind: 'end_call' }
  | { readonly kind: 'human_transfer' };

/** The output the model receives, the effect, and the recorded timeline event. */
export interface DispatchResult {
  readonly output: Readonly<Record<string, unknown>>;
  readonly effect: DispatchEffect;
  readonly event: Extract<TimelineEvent, { type: 'tool' }>;
}

/** One function call as the model (or an external harness over HTTP) made it. */
export interface DispatchRequest {
  readonly toolCallId: string | null;
  readonly name: string;
  readonly rawArguments: unknown;
  /**
   * Who made the call when not the model over its own session: `http` an external harness through
   * the tool routes, `platform` a platform under test that executed it on its side (a relay),
   * `inferred` a hop mivas deduced in observe mode (recorded as such).
   */
  readonly origin?: 'http' | 'platform' | 'inferred';
}

/** How a conversation is opened. */
export interface ConversationSpec {
  readonly pack: Pack;
  readonly id: string;
  readonly databases: CallDatabases;
  readonly timeline: Timeline;
  readonly nowMs: () => number;
  /** Hold the database in memory instead of a file (text episodes: nothing else reads it while it runs). */
  readonly inMemory?: boolean;
}

/** What closing a conversation leaves: its final rows and its database file's bytes. */
export interface ClosedConversation {
  readonly final: DatabaseDump;
  readonly db: Buffer;
}

/** Raised when something asks a closed conversation to act. */
export class ConversationClosedError extends Error {}

/**
 * One conversation (a voice call, an offline replay, a text episode): it owns its database (a
 * fresh template copy, refused when the id already has one), the active agent, the timeline and
 * dispatch, the only place a tool call is decided (architecture.md §7, §16). Dispatch never throws
 * for anything the caller sent; it returns the call's effect for the context's applier.
 */
export class Conversation {
  private active: string;
  private database: CallDatabase | null;

  private readonly spec: ConversationSpec;

  private constructor(
    spec: ConversationSpec,
    database: CallDatabase,
  ) {
    this.spec = spec;
    this.database = database;
    this.active = spec.pack.entryAgent;
  }

  /** Opens a conversation on a fresh database; throws CallIdUsedError when the id has one. */
  static open(spec: ConversationSpec): Conversation {
    return new Conversation(spec, spec.inMemory ? spec.databases.createInMemory(spec.id) : spec.databases.create(spec.id));
  }

  get id(): string {
    return this.spec.id;
  }

  get pack(): Pack {
    return this.spec.pack;
  }

  get timeline(): Timeline {
    return this.spec.timeline;
  }

  /** True once close() or discard() ran. */
  isClosed(): boolean {
    return this.database === null;
  }

  /** The agent whose instructions and tools the model has now. */
  activeAgent(): string {
    return this.active;
  }

  /** Instructions and tools for an agent (the entry agent's carry the greeting line). */
  agentSetup(agent: string = this.active): AgentSetup {
    return agentSetupOf(this.spec.pack, agent);
  }

  /** The database's tables as they are now. */
  state(): DatabaseDump {
    return this.open().dump();
  }

  /** Runs one call for the active agent and records it. */
  dispatch(request: DispatchRequest): DispatchResult {
    const database = this.open();
    const tool = this.spec.pack.catalog.get(request.name);
    if (!tool) return this.refused(request, 'industry', 'UNKNOWN_TOOL');
    if (!agentOwnsTool(this.spec.pack, this.active, tool.name)) {
      return this.refused(request, tool.kind, tool.kind === 'handoff' ? 'HANDOFF_NOT_ALLOWED' : 'TOOL_NOT_AVAILABLE');
    }
    if (tool.kind === 'handoff') return this.handoff(request, tool);
    if (tool.name === END_CALL) return this.endCall(request, tool);
    const executor = { pack: this.spec.pack, callId: this.spec.id, database, nowMs: this.spec.nowMs };
    const execution = executeTool(executor, this.active, tool, request.rawArguments);
    const event = this.record(request, tool.kind, execution);
    const effect: DispatchEffect = tool.kind === 'session' && execution.output.ok ? { kind: 'human_transfer' } : { kind: 'none' };
    return { output: execution.output, effect, event };
  }

  /** Freezes the conversation: dumps its rows, closes and deletes its file, returns both. */
  close(): ClosedConversation {
    const database = this.open();
    const image = database.inMemory ? this.spec.databases.imageOf(this.spec.id) : null;
    // Given the image, the tables a conversation left as they were are not read again.
    const final = database.dump(image ?? undefined);
    this.spec.databases.release(this.spec.id);
    this.database = null;
    if (image) return { final, db: image };
    try {
      return { final, db: this.spec.databases.bytesOf(this.spec.id) };
    } finally {
      this.spec.databases.remove(this.spec.id);
    }
  }

  /** Drops the conversation and its database without keeping anything (a reaped scratch session). */
  discard(): void {
    this.database = null;
    this.spec.databases.remove(this.spec.id);
  }

  private open(): CallDatabase {
    if (!this.database) throw new ConversationClosedError(`conversation ${this.spec.id} is closed`);
    return this.database;
  }

  private handoff(request: DispatchRequest, tool: CatalogTool): DispatchResult {
    const from = this.active;
    const to = tool.handoffTo ?? from;
    // next_desk is advisory (wire.md §2.6): the edge is what the runtime enforces.
    const output = { assistant: to };
    const event = this.recordRuntimeTool(request, tool, output);
    this.active = to;
    this.spec.timeline.add({ type: 'handoff', from, to });
    return { output, effect: { kind: 'handoff', from, to }, event };
  }

  private endCall(request: DispatchRequest, tool: CatalogTool): DispatchResult {
    const output: Envelope = { ok: true };
    return { output, effect: { kind: 'end_call' }, event: this.recordRuntimeTool(request, tool, output) };
  }

  /** Records a tool the runtime answers itself (handoffs, end_call): always executed, instant. */
  private recordRuntimeTool(request: DispatchRequest, tool: CatalogTool, output: Readonly<Record<string, unknown>>): Extract<TimelineEvent, { type: 'tool' }> {
    const parsed = tool.input.safeParse(request.rawArguments ?? {});
    return this.record(request, tool.kind, {
      canonicalArguments: parsed.success ? (parsed.data as Record<string, unknown>) : null,
      output,
      executed: true,
      refusal: null,
      internalFault: null,
      durationMs: 0,
    });
  }

  private refused(request: DispatchRequest, kind: CatalogTool['kind'], refusal: Refusal): DispatchResult {
    const output = runtimeRefusal(refusal);
    const event = this.record(request, kind, { canonicalArguments: null, output, executed: false, refusal, internalFault: null, durationMs: 0 });
    return { output, effect: { kind: 'none' }, event };
  }

  private record(
    request: DispatchRequest,
    kind: CatalogTool['kind'],
    outcome: Pick<ToolExecution, 'canonicalArguments' | 'executed' | 'refusal' | 'internalFault' | 'durationMs'> & { output: Readonly<Record<string, unknown>> },
  ): Extract<TimelineEvent, { type: 'tool' }> {
    return this.spec.timeline.add({
      type: 'tool',
      kind,
      name: request.name,
      agent: this.active,
      tool_call_id: request.toolCallId,
      ...(request.origin ? { origin: request.origin } : {}),
      arguments: request.rawArguments ?? null,
      canonical_arguments: outcome.canonicalArguments,
      output: { ...outcome.output },
      duration_ms: Math.max(0, outcome.durationMs),
      executed: outcome.executed,
      refusal: outcome.refusal,
      internal_fault: outcome.internalFault,
    }) as Extract<TimelineEvent, { type: 'tool' }>;
  }
}
