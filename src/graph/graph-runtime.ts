import { agentOwnsTool, END_CALL, toolsOfAgent, type CatalogTool, type Pack } from '../packs/index.ts';
import type { AgentSetup } from './agent-setup.ts';
import type { TimelineEvent, Timeline } from '../snapshot/index.ts';
import { executeTool, runtimeRefusal, type Envelope, type ExecutorContext, type Refusal, type ToolExecution } from '../tools/index.ts';

/** What a dispatched call does to the conversation besides its output. */
export type DispatchEffect =
  | { readonly kind: 'none' }
  | { readonly kind: 'handoff'; readonly from: string; readonly to: string }
  | { readonly kind: 'end_call' }
  | { readonly kind: 'human_transfer' };

/** The output the model receives, the effect, and the recorded timeline event. */
export interface DispatchResult {
  readonly output: Readonly<Record<string, unknown>>;
  readonly effect: DispatchEffect;
  readonly event: TimelineEvent;
}

/** One function call as the model made it. */
export interface DispatchRequest {
  readonly toolCallId: string | null;
  readonly name: string;
  readonly rawArguments: unknown;
}

/** Instructions and tools an agent offers the model; pure, so `mivas check` can show them without a call. */
export function agentSetupOf(pack: Pack, agent: string): AgentSetup {
  const prompt = pack.prompts.get(agent) ?? '';
  const greeting = pack.blueprint.greeting;
  const instructions = agent === pack.entryAgent && greeting ? `${prompt.trimEnd()}\n\nOpen the call with exactly these words: "${greeting}"\n` : prompt;
  const tools = toolsOfAgent(pack, agent).map((t) => ({ name: t.name, description: t.description, parameters: t.inputSchema }));
  return { name: agent, instructions, tools };
}

/**
 * The provider-agnostic specialist graph (DESIGN.md §7): the active agent, what it may call, and
 * the effect of each call. Tool kinds come from the blueprint flags alone.
 */
export class GraphRuntime {
  private active: string;

  constructor(
    private readonly pack: Pack,
    private readonly executor: ExecutorContext,
    private readonly timeline: Timeline,
  ) {
    this.active = pack.entryAgent;
  }

  /** The agent whose instructions and tools the model has now. */
  activeAgent(): string {
    return this.active;
  }

  /** Instructions and tools for an agent (the entry agent's carry the greeting line). */
  agentSetup(agent: string = this.active): AgentSetup {
    return agentSetupOf(this.pack, agent);
  }

  /** Runs one call for the active agent and records it; never throws. */
  dispatch(request: DispatchRequest): DispatchResult {
    const tool = this.pack.catalog.get(request.name);
    if (!tool) return this.refused(request, 'industry', 'UNKNOWN_TOOL');
    if (!agentOwnsTool(this.pack, this.active, tool.name)) {
      return this.refused(request, tool.kind, tool.kind === 'handoff' ? 'HANDOFF_NOT_ALLOWED' : 'TOOL_NOT_AVAILABLE');
    }
    if (tool.kind === 'handoff') return this.handoff(request, tool);
    if (tool.name === END_CALL) return this.endCall(request, tool);
    const execution = executeTool(this.executor, this.active, tool, request.rawArguments);
    const event = this.record(request, tool.kind, execution);
    const effect: DispatchEffect = tool.kind === 'session' && execution.output.ok ? { kind: 'human_transfer' } : { kind: 'none' };
    return { output: execution.output, effect, event };
  }

  private handoff(request: DispatchRequest, tool: CatalogTool): DispatchResult {
    const from = this.active;
    const to = tool.handoffTo ?? from;
    // next_desk is advisory (wire.md §2.6): the edge is what the runtime enforces.
    const output = { assistant: to };
    const event = this.recordRuntimeTool(request, tool, output);
    this.active = to;
    this.timeline.add({ type: 'handoff', from, to });
    return { output, effect: { kind: 'handoff', from, to }, event };
  }

  private endCall(request: DispatchRequest, tool: CatalogTool): DispatchResult {
    const output: Envelope = { ok: true };
    return { output, effect: { kind: 'end_call' }, event: this.recordRuntimeTool(request, tool, output) };
  }

  /** Records a tool the runtime answers itself (handoffs, end_call): always executed, instant. */
  private recordRuntimeTool(request: DispatchRequest, tool: CatalogTool, output: Readonly<Record<string, unknown>>): TimelineEvent {
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
  ): TimelineEvent {
    return this.timeline.add({
      type: 'tool',
      kind,
      name: request.name,
      agent: this.active,
      tool_call_id: request.toolCallId,
      arguments: request.rawArguments ?? null,
      canonical_arguments: outcome.canonicalArguments,
      output: { ...outcome.output },
      duration_ms: Math.max(0, outcome.durationMs),
      executed: outcome.executed,
      refusal: outcome.refusal,
      internal_fault: outcome.internalFault,
    });
  }
}
