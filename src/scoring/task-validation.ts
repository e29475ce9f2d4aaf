import { canonicalJson } from '../core/index.ts';
import { effectivePolicy, projectState, type ComparePolicy, type Pack, type Task } from '../packs/index.ts';
import type { FinalState } from '../snapshot/index.ts';
import type { CallDatabases } from '../store/index.ts';
import { addSnapshotNoise, equivalentsOf } from './equivalents.ts';
import { matchOutput } from './matchers.ts';
import { mutantsOf, type Variant } from './mutants.ts';
import { interleave } from './route-search.ts';
import { judgeState } from './state-gate.ts';
import { replayOffline, type DispatchResult, type RouteAction } from '../conversation/index.ts';
import { syntheticSnapshot, syntheticSummary } from './offline-snapshot.ts';
import type { TimelineEvent } from '../snapshot/index.ts';
import { staticTaskProblems, type SchemaColumns } from './task-checks.ts';
import { necessityProblems, provenanceProblems } from './task-provenance.ts';
import { luckProblems } from './task-luck-checks.ts';
import type { ConversationVerdict } from './types.ts';
import { scoreConversation } from './verdict.ts';

/** What validation needs besides the task: the pack, fresh databases, the seed dump and the schema. */
export interface ValidationEnv {
  readonly pack: Pack;
  readonly dbs: CallDatabases;
  readonly seed: FinalState;
  readonly columns: SchemaColumns;
}

/** The outcome of one mutant or equivalent. */
export interface VariantResult {
  readonly kind: 'mutant' | 'equivalent';
  readonly class: Variant['class'];
  readonly description: string;
  readonly status: ConversationVerdict['status'];
  readonly reward: number | null;
  /** A mutant was killed (FAIL), or an equivalent passed with its reward. */
  readonly ok: boolean;
  readonly reclassified: boolean;
}

/** One task's validation: problems make it invalid; survivors and failed equivalents block release. */
export interface TaskValidation {
  readonly task_id: string;
  readonly problems: readonly string[];
  readonly warnings: readonly string[];
  readonly results: readonly VariantResult[];
}

interface Played {
  readonly verdict: ConversationVerdict;
  readonly final: FinalState;
  /** The dispatch of each call action, in order (hops left out). */
  readonly calls: readonly DispatchResult[];
}

/** Replays actions through the engine on a fresh database and scores the snapshot it leaves. */
function play(env: ValidationEnv, task: Task, id: string, actions: readonly RouteAction[], variant?: Pick<Variant, 'noise' | 'relabel'>, policy?: ComparePolicy): Played {
  const callId = `val_${task.task_id.replaceAll('-', '_')}_${id}`;
  try {
    const replayed = replayOffline(actions, { pack: env.pack, databases: env.dbs, callId, taskId: task.task_id });
    const final = variant?.noise && policy ? addSnapshotNoise(replayed.final, policy) : replayed.final;
    const relabelled = variant?.relabel ? relabel(replayed.events, replayed.results[variant.relabel.action], variant.relabel.agent) : replayed.events;
    const calls = replayed.results.filter((_, i) => actions[i]?.kind === 'call');
    return { final, calls, verdict: judgeEvidence(env.pack, task, callId, relabelled, final) };
  } finally {
    env.dbs.remove(callId);
  }
}

function relabel(events: readonly TimelineEvent[], target: DispatchResult | undefined, agent: string): TimelineEvent[] {
  return events.map((e) => (target && e.seq === target.event.seq && e.type === 'tool' ? { ...e, agent } : e));
}

function judgeEvidence(pack: Pack, task: Task, callId: string, events: TimelineEvent[], final: FinalState): ConversationVerdict {
  const options = { callId, pack: pack.id, taskId: task.task_id };
  const snapshot = syntheticSnapshot(pack.id, callId, syntheticSummary(pack, options), events, final);
  // Score against the task under validation, which may differ from (or be missing in) the pack's files.
  const withTask: Pack = { ...pack, tasks: new Map([...pack.tasks, [task.task_id, task]]) };
  return scoreConversation({ conversationId: callId, snapshot, entry: undefined, packHint: null }, { packs: new Map([[pack.id, withTask]]), minCallMs: 0, allowPackDrift: false });
}

function changedTables(before: FinalState, after: FinalState): string[] {
  return [...new Set([...Object.keys(before), ...Object.keys(after)])].filter((t) => canonicalJson(before[t] ?? []) !== canonicalJson(after[t] ?? [])).sort();
}

function oracleProblems(env: ValidationEnv, task: Task, policy: ComparePolicy, oracle: Played): string[] {
  const problems: string[] = [];
  task.exp_tool_calls.forEach((call, i) => {
    const run = oracle.calls[i]?.event;
    if (!run || run.name !== call.name) return void problems.push(`oracle: #${i + 1} ${call.name} did not run`);
    if (run.refusal) problems.push(`oracle: #${i + 1} ${call.name} refused (${run.refusal})`);
    for (const f of matchOutput(call.output, { ...run.output })) problems.push(`oracle: #${i + 1} ${call.name} ${f.argument} declared ${JSON.stringify(f.expected)}, got ${JSON.stringify(f.actual)}`);
  });
  if (canonicalJson(projectState(oracle.final, policy)) !== canonicalJson(task.exp_db_state)) problems.push('oracle: the replayed state differs from exp_db_state (run `mivas tasks lock`)');
  if (oracle.verdict.status !== 'PASS' || oracle.verdict.reward !== 1) problems.push(`oracle: the synthetic conversation scored ${oracle.verdict.status} (reward ${oracle.verdict.reward}): ${oracle.verdict.fail_reasons.join('; ')}`);
  const noop = play(env, task, 'noop', []).verdict;
  if (noop.status !== 'FAIL') problems.push(`no-op: doing nothing scores ${noop.status}; the task is not measurable`);
  return problems;
}

/** Replays each `$any_of` option and a different `$present` text: scored state must not depend on them. */
function matcherIndependence(env: ValidationEnv, task: Task, policy: ComparePolicy, oracle: readonly RouteAction[]): string[] {
  const problems: string[] = [];
  oracle.forEach((action, i) => {
    if (action.kind !== 'call') return;
    for (const [field, matcher] of Object.entries(action.parameters ?? {})) {
      if (typeof matcher !== 'object') continue;
      const values = '$any_of' in matcher ? matcher.$any_of.slice(1) : ['Other words from the caller.'];
      for (const value of values) {
        const played = play(env, task, `any${i}_${field}`.slice(0, 40), oracle.map((a, j) => (j === i ? { ...action, overrides: { [field]: value } } : a)));
        const judged = judgeState(task.exp_db_state, played.final, policy);
        if (judged.kind !== 'judged' || judged.result.diff.length) problems.push(`matchers: scored state depends on ${action.name}.${field}=${JSON.stringify(value)}`);
      }
    }
  });
  return problems;
}

function evaluate(env: ValidationEnv, task: Task, policy: ComparePolicy, oracleFinal: FinalState, variant: Variant, n: number): VariantResult & { final: FinalState } {
  const played = play(env, task, `v${n}`, variant.actions, variant, policy);
  const v = played.verdict;
  const unchanged = judgeState(projectState(oracleFinal, policy), played.final, policy);
  const reclassified = variant.kind === 'mutant' && variant.reclassifyIfUnchanged === true && unchanged.kind === 'judged' && unchanged.result.diff.length === 0;
  const kind = reclassified ? 'equivalent' : variant.kind;
  const reward = reclassified ? 1 : (variant.reward ?? 1);
  const ok = kind === 'mutant' ? v.status === 'FAIL' : v.status === 'PASS' && Math.abs((v.reward ?? -1) - reward) < 1e-9;
  return { kind, class: variant.class, description: variant.description, status: v.status, reward: v.reward, ok, reclassified, final: played.final };
}

/** Validates one task: scoring.md §11 items 1–9, in order; any problem makes the task invalid. */
export function validateTask(env: ValidationEnv, task: Task): TaskValidation {
  const problems = staticTaskProblems(env.pack, task, env.columns);
  const policy = effectivePolicy(env.pack.compare, task.compare);
  const warnings = Object.entries(policy.tables).flatMap(([t, p]) => (p.scored && !p.key ? [`compare.tables.${t}: no key; rows compare as a multiset`] : []));
  const oracleActions = problems.length ? null : interleave(env.pack, task.exp_handoff_path, task.exp_tool_calls);
  if (!oracleActions) return { task_id: task.task_id, problems: problems.length ? problems : ['route: the expected calls cannot be interleaved with the path'], warnings, results: [] };
  const oracle = play(env, task, 'oracle', oracleActions);
  problems.push(
    ...oracleProblems(env, task, policy, oracle),
    ...matcherIndependence(env, task, policy, oracleActions),
    ...provenanceProblems(env.pack, task, oracle.calls.map((c) => c.output)),
    ...necessityProblems(env.pack, task),
    ...luckProblems(env.pack, task, projectState(env.seed, policy), oracle.calls.map((c) => c.output)).map((p) => `${p.check}: ${p.message}`),
  );
  const variants = [...mutantsOf(env.pack, task, oracleActions), ...equivalentsOf(env.pack, task, oracleActions)];
  const evaluated = variants.map((variant, n) => evaluate(env, task, policy, oracle.final, variant, n));
  // Snapshot-noise variants reorder and restamp rows on purpose; that is not a write.
  const replayed = evaluated.filter((_, n) => !variants[n]?.noise).map((e) => e.final);
  const written = new Set([oracle.final, ...replayed].flatMap((f) => changedTables(env.seed, f)));
  for (const table of [...written].sort()) if (!policy.tables[table]) problems.push(`policy: table ${table} is written but has no compare.json entry`);
  return { task_id: task.task_id, problems, warnings, results: evaluated.map(({ final: _final, ...r }) => r) };
}

/** Columns of every table of a SQLite database (the template), for checking compare overrides. */
export function schemaColumnsOf(sqlite: { prepare(sql: string): { all(): unknown[] } }): Map<string, Set<string>> {
  const tables = sqlite.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '__drizzle%'").all();
  const out = new Map<string, Set<string>>();
  for (const row of tables) {
    const name = (row as { name: string }).name;
    const columns = sqlite.prepare(`PRAGMA table_info("${name.replaceAll('"', '""')}")`).all().map((c) => (c as { name: string }).name);
    out.set(name, new Set(columns));
  }
  return out;
}
