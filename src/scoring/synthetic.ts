import type { ExpectedCall, Matcher, Pack } from '../packs/index.ts';
import { emptyUsage, Timeline, type EndReason, type FinalState, type Summary, type TimelineEvent, type TimelineEventInput } from '../snapshot/index.ts';
import { dumpDatabase, type CallDatabase } from '../store/index.ts';
import { CarryForward, executeTool, runtimeRefusal, type ToolExecution } from '../tools/index.ts';
import type { LoadedSnapshot } from './sources.ts';

/**
 * Synthetic conversations for validation mutants and tests: a timeline built through the real
 * `Timeline` recorder and, for replays, final state from the real tool executor.
 */

/** One step of a hand-written timeline (media offsets advance by 1 s per step). */
export type SyntheticStep =
  | { readonly kind: 'speech'; readonly side: 'caller' | 'agent'; readonly text?: string }
  | { readonly kind: 'tool'; readonly event: Omit<Extract<TimelineEventInput, { type: 'tool' }>, 'type'> }
  | { readonly kind: 'handoff'; readonly from: string; readonly to: string }
  | { readonly kind: 'provider_error'; readonly fatal: boolean };

/** How a synthetic call starts and ends. */
export interface SyntheticCallOptions {
  readonly callId: string;
  readonly pack: string;
  readonly taskId: string | null;
  readonly harness?: string;
  readonly runId?: string | null;
  /** Greeting by the agent and a first caller utterance before the steps (default true). */
  readonly greet?: boolean;
  readonly callerSpeaks?: boolean;
  readonly endReason?: EndReason;
  readonly closeCode?: number | null;
  /** Media offset of the call end; default 60 s or 1 s after the last step. */
  readonly endAtMs?: number;
  /** Leave out call.ended (a truncated timeline). */
  readonly omitEnd?: boolean;
}

function addSpeech(timeline: Timeline, side: 'caller' | 'agent', atMs: number, id: string, text: string): void {
  timeline.add({ type: 'speech.started', side, utterance_id: id }, atMs);
  timeline.add({ type: 'transcript', side, text, utterance_id: id }, atMs + 400);
  timeline.add({ type: 'speech.completed', side, utterance_id: id, interrupted: false }, atMs + 800);
}

function addStep(timeline: Timeline, step: SyntheticStep, atMs: number, index: number): void {
  switch (step.kind) {
    case 'speech':
      return addSpeech(timeline, step.side, atMs, `u${index}`, step.text ?? `${step.side} line ${index}`);
    case 'tool':
      timeline.add({ type: 'tool', ...step.event }, atMs);
      return;
    case 'handoff':
      timeline.add({ type: 'handoff', from: step.from, to: step.to }, atMs);
      return;
    case 'provider_error':
      timeline.add({ type: 'provider.error', code: 'server_error', message: 'synthetic', fatal: step.fatal }, atMs);
      return;
  }
}

/** Builds a timeline: call.started, optional greeting and caller line, the steps, then call.ended. */
export function syntheticTimeline(steps: readonly SyntheticStep[], options: SyntheticCallOptions): TimelineEvent[] {
  const timeline = new Timeline(() => 0);
  timeline.add({ type: 'call.started', call_id: options.callId, pack: options.pack, harness: options.harness ?? 'scripted', task_id: options.taskId, run_id: options.runId ?? null }, 0);
  if (options.greet !== false) addSpeech(timeline, 'agent', 500, 'greeting', 'Hello, how can I help?');
  if (options.callerSpeaks !== false) addSpeech(timeline, 'caller', 2000, 'opening', 'Hi, I have a request.');
  let atMs = 4000;
  steps.forEach((step, i) => {
    addStep(timeline, step, atMs, i);
    atMs += 1000;
  });
  if (!options.omitEnd) timeline.add({ type: 'call.ended', end_reason: options.endReason ?? 'agent_end_call', close_code: options.closeCode ?? 1000 }, options.endAtMs ?? Math.max(60_000, atMs));
  return [...timeline.events()];
}

/** A tool-event step from an execution as the runtime would record it. */
export function toolStep(execution: Pick<ToolExecution, 'name' | 'agent' | 'arguments' | 'canonicalArguments' | 'output' | 'executed' | 'refusal' | 'internalFault' | 'durationMs'>, kind: 'industry' | 'handoff' | 'session'): SyntheticStep {
  return {
    kind: 'tool',
    event: {
      kind,
      name: execution.name,
      agent: execution.agent,
      tool_call_id: null,
      arguments: execution.arguments,
      canonical_arguments: execution.canonicalArguments,
      output: { ...execution.output },
      duration_ms: execution.durationMs,
      executed: execution.executed,
      refusal: execution.refusal,
      internal_fault: execution.internalFault,
    },
  };
}

/** A summary consistent with a synthetic timeline; fields can be overridden. */
export function syntheticSummary(pack: Pick<Pack, 'id' | 'packVersion' | 'templateHash'>, options: SyntheticCallOptions & { readonly startedAt?: string; readonly model?: string | null }, overrides: Partial<Summary> = {}): Summary {
  return {
    call_id: options.callId,
    run_id: options.runId ?? null,
    task_id: options.taskId,
    pack: pack.id,
    pack_version: pack.packVersion,
    template_hash: pack.templateHash,
    harness: options.harness ?? 'scripted',
    model: options.model ?? null,
    started_at: options.startedAt ?? '2026-10-05T13:00:00.000Z',
    ended_at: '2026-10-05T13:01:00.000Z',
    duration_ms: 60_000,
    end_reason: options.endReason ?? 'agent_end_call',
    close_code: options.closeCode ?? 1000,
    void_reason: null,
    smoke: { both_sides_spoke: true, tools_recorded: true, trace_id_present: null, dead_air_max_s: 2, dead_air_ok: true, outbound_dropouts: 0, clipping_events: 0, clean_audio: true, first_agent_audio_ms: 500, first_audio_ok: true, pass: true },
    usage: emptyUsage(),
    cost_usd_est: null,
    price_table_version: null,
    truncated: false,
    trace_id: null,
    counts: { tool_calls: 0, handoffs: 0, rows_written: 0 },
    ...overrides,
  };
}

/** A loaded snapshot from in-memory parts, as the scorer would read it from storage. */
export function syntheticSnapshot(pack: string, callId: string, summary: Summary | null, events: TimelineEvent[] | null, final: FinalState | null): LoadedSnapshot {
  const problems = [...(summary ? [] : ['missing:summary.json']), ...(events ? [] : ['missing:timeline.json']), ...(final ? [] : ['missing:final.json', 'missing:db'])];
  return { pack, callId, summary, events, final, finalFrom: final ? 'json' : null, problems, snapshotUri: `${pack}/${callId}`, audioUri: null };
}

/** One action of a replayed conversation: a hop the runtime applies or refuses, or a tool call. */
export type RouteAction =
  | { readonly kind: 'hop'; readonly to: string }
  | {
      readonly kind: 'call';
      readonly name: string;
      readonly parameters?: Readonly<Record<string, Matcher>>;
      /** Values that replace resolved arguments (perturbations, blanks); undefined deletes the key. */
      readonly overrides?: Readonly<Record<string, unknown>>;
      /** Forces the call to execute as this agent even when it does not own the tool (a scope leak). */
      readonly asAgent?: string;
    };

function hopSteps(pack: Pack, agent: string, to: string): { steps: SyntheticStep[]; agent: string } {
  const name = `transfer_to_${to}`;
  const allowed = pack.blueprint.agents.some((a) => a.name === agent && a.tools.some((t) => t.name === name && t.handoff));
  const base = { name, agent, arguments: {}, canonicalArguments: allowed ? {} : null, durationMs: 0, internalFault: null };
  if (!allowed) return { steps: [toolStep({ ...base, output: runtimeRefusal('HANDOFF_NOT_ALLOWED'), executed: false, refusal: 'HANDOFF_NOT_ALLOWED' }, 'handoff')], agent };
  return { steps: [toolStep({ ...base, output: { ok: true, data: { assistant: to } }, executed: true, refusal: null }, 'handoff'), { kind: 'handoff', from: agent, to }], agent: to };
}

function callArguments(pack: Pack, carry: CarryForward, action: Extract<RouteAction, { kind: 'call' }>): Record<string, unknown> {
  const expected: ExpectedCall = action.parameters ? { name: action.name, parameters: { ...action.parameters } } : { name: action.name };
  const args = carry.argumentsFor(pack, expected);
  for (const [key, value] of Object.entries(action.overrides ?? {})) {
    if (value === undefined) delete args[key];
    else args[key] = value;
  }
  return args;
}

/**
 * Replays actions through the real executor on a call database, as the graph runtime would:
 * a tool the active agent does not own is refused (TOOL_NOT_AVAILABLE) unless `asAgent` forces it.
 */
export function replayConversation(pack: Pack, database: CallDatabase, actions: readonly RouteAction[], callId = 'synthetic'): { steps: SyntheticStep[]; final: FinalState; executions: ToolExecution[] } {
  const steps: SyntheticStep[] = [];
  const executions: ToolExecution[] = [];
  const carry = new CarryForward();
  let agent = pack.entryAgent;
  for (const action of actions) {
    if (action.kind === 'hop') {
      const hop = hopSteps(pack, agent, action.to);
      steps.push(...hop.steps);
      agent = hop.agent;
      continue;
    }
    const tool = pack.catalog.get(action.name);
    const actor = action.asAgent ?? agent;
    const owns = pack.blueprint.agents.some((a) => a.name === actor && a.tools.some((t) => t.name === action.name));
    const args = callArguments(pack, carry, action);
    if (!tool || (!owns && !action.asAgent)) {
      const refusal = tool ? 'TOOL_NOT_AVAILABLE' : 'UNKNOWN_TOOL';
      steps.push(toolStep({ name: action.name, agent: actor, arguments: args, canonicalArguments: null, output: runtimeRefusal(refusal), executed: false, refusal, internalFault: null, durationMs: 0 }, tool?.kind ?? 'industry'));
      continue;
    }
    const execution = executeTool({ pack, callId, database, nowMs: () => 0 }, actor, tool, args);
    carry.record(pack, execution);
    executions.push(execution);
    steps.push(toolStep(execution, tool.kind));
  }
  return { steps, final: dumpDatabase(database.sqlite), executions };
}
