import { effectivePolicy, type ComparePolicy, type Pack, type Task } from '../packs/index.ts';
import type { Summary, TimelineEvent, VoidReason } from '../snapshot/index.ts';
import { diagnosticsOf } from './diagnostics.ts';
import { costOf, evidenceOf, qualityOf } from './evidence.ts';
import { judgeHandoff, rewardOf } from './handoff-gate.ts';
import { isPending, resolveTaskId, type MappingEntry } from './mapping.ts';
import type { ToolShape } from './matchers.ts';
import type { LoadedSnapshot } from './sources.ts';
import { judgeState, scoredTablesOf } from './state-gate.ts';
import { describeToolFailures, judgeTools } from './tool-gate.ts';
import type { ConversationVerdict, HandoffGateResult, StateDiffEntry, StateGateResult, Status, ToolGateResult, UnmappedReason } from './types.ts';
import { detectVoids } from './voids.ts';

/** What every conversation is scored against: the loaded packs and the void thresholds. */
export interface ScoringContext {
  readonly packs: ReadonlyMap<string, Pack>;
  readonly minCallMs: number;
  readonly allowPackDrift: boolean;
}

/** One conversation to score: its snapshot (if any) and its mapping entry (if any). */
export interface ConversationInput {
  readonly conversationId: string;
  readonly snapshot: LoadedSnapshot | null;
  readonly entry: MappingEntry | undefined;
  /** The pack to assume when neither the snapshot nor the mapping names one (`--pack`). */
  readonly packHint: string | null;
}

/** The tool shapes the argument matchers read, from a pack's catalogue. */
export function toolShapes(pack: Pack): Map<string, ToolShape> {
  return new Map([...pack.catalog.values()].map((t) => [t.name, { name: t.name, inputSchema: t.inputSchema, writes: t.definition?.writes ?? [] }]));
}

/** Each pack's tool shapes and each task's effective policy, built once (a run scores each task many times; the state gate compiles per policy). */
const shapesByPack = new WeakMap<Pack, Map<string, ToolShape>>();
const policyByTask = new WeakMap<Task, ComparePolicy>();

function packShapes(pack: Pack): Map<string, ToolShape> {
  const shapes = shapesByPack.get(pack) ?? toolShapes(pack);
  shapesByPack.set(pack, shapes);
  return shapes;
}

function taskPolicy(pack: Pack, task: Task): ComparePolicy {
  const policy = policyByTask.get(task) ?? effectivePolicy(pack.compare, task.compare);
  policyByTask.set(task, policy);
  return policy;
}

interface GateResults {
  readonly state: StateGateResult;
  readonly tools: ToolGateResult;
  readonly handoff: HandoffGateResult;
}

function recordedTaskIds(snapshot: LoadedSnapshot | null): (string | null)[] {
  const started = snapshot?.events?.find((e) => e.type === 'call.started');
  return [snapshot?.summary?.task_id ?? null, started?.type === 'call.started' ? started.task_id : null, snapshot?.caller?.task_id ?? null];
}

function resolvePack(input: ConversationInput, ctx: ScoringContext, taskId: string | null): string {
  const named = input.snapshot?.pack ?? input.entry?.pack ?? input.packHint;
  if (named) return named;
  const holders = [...ctx.packs.values()].filter((p) => taskId !== null && p.tasks.has(taskId));
  return holders.length === 1 && holders[0] ? holders[0].id : 'unknown';
}

function describeState(d: StateDiffEntry): string {
  const key = d.key ? JSON.stringify(d.key) : 'row';
  // Expected and actual named: an arrow read as "changed from X to Y", the opposite of what it meant.
  if (d.kind === 'changed') return `state: ${d.table} ${key} ${d.field}: expected ${JSON.stringify(d.expected)}, got ${JSON.stringify(d.actual)} (${d.rule}${d.unparsed ? ', unparsed' : ''})`;
  return `state: ${d.table} ${d.kind} ${key} (${d.rule})`;
}

/** One line per reason a conversation failed: the diff row, call or hop and the rule that decided it. */
export function failReasons(gates: GateResults): string[] {
  const lines = gates.state.diff.filter((d) => !d.allowed).map(describeState);
  lines.push(...describeToolFailures(gates.tools));
  if (!gates.handoff.pass) {
    lines.push(`handoff: ${gates.handoff.verdict}, first unmatched hop ${gates.handoff.first_unmatched ?? '-'} (actual: ${gates.handoff.actual_path.join(' > ') || 'none'})`);
  }
  return lines;
}

function runGates(pack: Pack, task: Task, policy: ComparePolicy, shapes: Map<string, ToolShape>, snapshot: LoadedSnapshot): GateResults | { missingTables: readonly string[] } {
  const events: readonly TimelineEvent[] = snapshot.events ?? [];
  const state = judgeState(task.exp_db_state, snapshot.final ?? {}, policy);
  if (state.kind === 'missing_tables') return { missingTables: state.tables };
  const tools = judgeTools({ expected: task.exp_tool_calls, forbidden: task.forbidden_tools, policy, blueprint: pack.blueprint, tools: shapes }, events);
  const handoff = judgeHandoff(task.exp_handoff_path, pack.entryAgent, events);
  return { state: state.result, tools, handoff };
}

interface Outcome {
  readonly status: Status;
  readonly unmapped?: UnmappedReason;
  readonly voidReason?: VoidReason;
  readonly voidDetail?: readonly string[];
  readonly gates?: GateResults;
  readonly drift?: boolean;
}

function judge(input: ConversationInput, ctx: ScoringContext, pack: Pack | undefined, task: Task | undefined, mapped: { unmapped: UnmappedReason | null }): Outcome {
  const snap = input.snapshot;
  if (!snap?.summary && isPending(input.entry)) return { status: 'PENDING' };
  // Parts that cannot be read took the task id with them: a broken snapshot, not a missing mapping.
  if (mapped.unmapped === 'no_task' && snap?.problems.length) return { status: 'VOID', voidReason: 'snapshot_missing', voidDetail: [...snap.problems] };
  if (mapped.unmapped) return { status: 'UNMAPPED', unmapped: mapped.unmapped };
  if (!pack || !task) return { status: 'UNMAPPED', unmapped: 'unknown_task' };
  const drift = snap?.summary ? snap.summary.pack_version !== pack.packVersion : false;
  if (drift && !ctx.allowPackDrift) return { status: 'UNMAPPED', unmapped: 'pack_version_mismatch' };
  const policy = taskPolicy(pack, task);
  const problems = snap ? [...snap.problems] : ['missing:snapshot'];
  if (snap?.final) problems.push(...scoredTablesOf(policy).filter((t) => !Object.hasOwn(snap.final ?? {}, t)).map((t) => `table_absent:${t}`));
  const found = detectVoids({ snapshotProblems: problems, summary: snap?.summary ?? null, events: snap?.events ?? null, platformStatus: input.entry?.platform_status ?? null, minCallMs: ctx.minCallMs, task, caller: snap?.caller ?? null });
  if (found.reason || !snap) return { status: 'VOID', voidReason: found.reason ?? 'snapshot_missing', voidDetail: found.detail, drift };
  const gates = runGates(pack, task, policy, packShapes(pack), snap);
  if ('missingTables' in gates) return { status: 'VOID', voidReason: 'snapshot_missing', voidDetail: gates.missingTables.map((t) => `table_absent:${t}`), drift };
  const pass = gates.state.pass && gates.tools.pass && gates.handoff.pass;
  return { status: pass ? 'PASS' : 'FAIL', gates, drift };
}

function durationOf(summary: Summary | null): number | null {
  return summary ? Math.round(summary.duration_ms) / 1000 : null;
}

/** Scores one conversation: the mapping, then voids, then the three gates (scoring.md §3). */
export function scoreConversation(input: ConversationInput, ctx: ScoringContext): ConversationVerdict {
  const snap = input.snapshot;
  const mapped = resolveTaskId(recordedTaskIds(snap), input.entry);
  const packId = resolvePack(input, ctx, mapped.taskId);
  const pack = ctx.packs.get(packId);
  const task = mapped.taskId ? pack?.tasks.get(mapped.taskId) : undefined;
  const outcome = judge(input, ctx, pack, task, mapped);
  const gates = outcome.gates;
  const summary = snap?.summary ?? null;
  const started = snap?.events?.find((e) => e.type === 'call.started');
  const ended = snap?.events?.find((e) => e.type === 'call.ended');
  return {
    conversation_id: input.conversationId,
    run_id: summary?.run_id ?? (started?.type === 'call.started' ? started.run_id : null),
    task_id: mapped.taskId,
    pack: packId,
    pack_version: summary?.pack_version ?? null,
    harness: summary?.harness ?? (started?.type === 'call.started' ? started.harness : null),
    model: summary?.model ?? null,
    category: task?.metadata.category ?? null,
    difficulty: task?.metadata.difficulty ?? null,
    audio_condition: task?.metadata.audio_condition ?? null,
    trial_index: null,
    started_at: summary?.started_at ?? null,
    duration_s: durationOf(summary),
    end_reason: ended?.type === 'call.ended' ? ended.end_reason : (summary?.end_reason ?? null),
    status: outcome.status,
    unmapped_reason: outcome.unmapped ?? null,
    void_reason: outcome.voidReason ?? null,
    void_detail: outcome.voidDetail ?? [],
    pack_drift: outcome.drift ?? false,
    combined_pass: gates ? outcome.status === 'PASS' : null,
    reward: gates && task ? rewardOf(outcome.status === 'PASS', task.exp_handoff_path.length, gates.handoff.actual_path.length) : null,
    fail_reasons: gates && outcome.status === 'FAIL' ? failReasons(gates) : [],
    state: gates?.state ?? null,
    tools: gates?.tools ?? null,
    handoff: gates?.handoff ?? null,
    quality: qualityOf(summary, snap?.events ?? null),
    cost: costOf(summary),
    evidence: evidenceOf(summary, snap?.events ?? null, { snapshot: snap?.snapshotUri ?? null, audio: snap?.audioUri ?? null }),
    diagnostics: diagnosticsOf(snap?.events ?? null, snap?.caller, task, pack, snap?.final ?? null),
  };
}

/** Numbers trials from 1 per (harness, model, pack, task) by start time, voids included (scoring.md §2.3). */
export function assignTrialIndexes<V extends Pick<ConversationVerdict, 'conversation_id' | 'started_at' | 'task_id' | 'status' | 'harness' | 'model' | 'pack' | 'trial_index'>>(verdicts: readonly V[]): V[] {
  const order = [...verdicts].sort((a, b) => cmp(a.started_at ?? '\uffff', b.started_at ?? '\uffff') || cmp(a.conversation_id, b.conversation_id));
  const counters = new Map<string, number>();
  const index = new Map<string, number>();
  for (const v of order) {
    if (!v.task_id || (v.status !== 'PASS' && v.status !== 'FAIL' && v.status !== 'VOID')) continue;
    const key = JSON.stringify([v.harness, v.model, v.pack, v.task_id]);
    const next = (counters.get(key) ?? 0) + 1;
    counters.set(key, next);
    index.set(v.conversation_id, next);
  }
  return verdicts.map((v) => ({ ...v, trial_index: index.get(v.conversation_id) ?? null }));
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
