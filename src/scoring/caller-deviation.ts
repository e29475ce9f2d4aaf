import { callerScriptOf, sameWords, wordsOf, type CallerScript, type Task } from '../packs/index.ts';
import { selectCallEvents, type CallerFile, type TimelineEvent } from '../snapshot/index.ts';
import { factsIn, isKnownFact, knownFactsOf } from './spoken-facts.ts';

/**
 * Caller-deviation detection (issue 16; docs/caller.md): the environment checks the simulated
 * caller against its task, so a simulator fault is a typed VOID, never a FAIL counted against the
 * agent. It reads the caller's own record (`caller.json`) when mivas dialed the call, else the
 * caller transcripts on the timeline (Bluejay's digital humans, or any other caller). Pure and
 * deterministic, like every scorer rule.
 */

/** The deviations, each with the evidence that shows it. */
export type CallerDeviationKind = 'hung_up_early' | 'invented_fact' | 'repeated_past_exit';

export interface CallerDeviation {
  readonly kind: CallerDeviationKind;
  readonly evidence: string;
}

/** A caller line as the check sees it. */
interface Line {
  readonly side: 'agent' | 'caller';
  readonly text: string;
  /** True when the line is one of the task's scripted lines (said from the task, not invented). */
  readonly scripted: boolean;
  readonly closing: boolean;
}

/** Caller end reasons that are the environment's own caps, not the caller leaving early. */
const CAP_REASONS = new Set(['closing_line', 'turn_cap', 'duration_cap', 'agent_silent']);

/** A line said this many times in a row is past any exit rule (the pins close after three repeats). */
export const REPEAT_LIMIT = 4;

function isScripted(script: CallerScript, text: string): boolean {
  return sameWords(text, script.openingLine) || script.closingLines.some((l) => sameWords(l, text)) || script.pins.some((p) => sameWords(p.line, text));
}

function linesFromFile(script: CallerScript, file: CallerFile): Line[] {
  return file.turns.map((t) => ({
    side: t.side,
    text: t.text,
    scripted: t.side === 'caller' && (t.source === 'opening' || t.source === 'pin' || t.source === 'closing' || isScripted(script, t.text)),
    closing: t.side === 'caller' && (t.source === 'closing' || script.closingLines.some((l) => sameWords(l, t.text))),
  }));
}

function linesFromTimeline(task: TaskScript, events: readonly TimelineEvent[]): Line[] {
  const judge = (text: string): { readonly scripted: boolean; readonly closing: boolean } => ({ scripted: isScripted(task.script, text), closing: task.script.closingLines.some((l) => sameWords(l, text)) });
  return events.flatMap((e) => {
    if (e.type !== 'transcript' || !e.text.trim()) return [];
    const caller = e.side === 'caller' ? remembered(task.judged, e.text, judge) : null;
    return [{ side: e.side, text: e.text.trim(), scripted: caller?.scripted ?? false, closing: caller?.closing ?? false }];
  });
}

/** Expected calls of the task that never executed during the call (the graded work still missing). */
function missingGradedCalls(task: Task, events: readonly TimelineEvent[]): string[] {
  const executed = new Set(events.flatMap((e) => (e.type === 'tool' && e.executed ? [e.name] : [])));
  return [...new Set(task.exp_tool_calls.map((c) => c.name))].filter((name) => !executed.has(name));
}

/** Everything the caller's task tells it: the facts it may state without inventing them. */
export function scriptTexts(script: CallerScript): string[] {
  return [script.intent, ...script.traits.map((t) => t.value), ...script.pins.map((p) => p.line), ...script.closingLines];
}

/** The input of the check: the task, the call's timeline, and the caller's own record when there is one. */
export interface DeviationInput {
  readonly task: Task;
  readonly events: readonly TimelineEvent[];
  readonly caller: CallerFile | null;
}

/** A task's caller script and the facts its script makes known, worked out once per task (a run scores each task many times). */
interface TaskScript {
  readonly script: CallerScript;
  readonly known: ReadonlySet<string>;
  /** Whether a caller text is scripted and whether it closes, by text (bounded). */
  readonly judged: Map<string, { readonly scripted: boolean; readonly closing: boolean }>;
}

const scriptsByTask = new WeakMap<Task, TaskScript>();

function taskScript(task: Task): TaskScript {
  const known = scriptsByTask.get(task);
  if (known) return known;
  const script = callerScriptOf(task);
  const compiled = { script, known: knownFactsOf(scriptTexts(script)), judged: new Map() };
  scriptsByTask.set(task, compiled);
  return compiled;
}

/** At most this many texts are remembered per memo below; past it the memo starts over. */
const TEXT_MEMO_CAP = 10_000;

function remembered<T>(memo: Map<string, T>, text: string, work: (text: string) => T): T {
  const known = memo.get(text);
  if (known !== undefined) return known;
  if (memo.size >= TEXT_MEMO_CAP) memo.clear();
  const value = work(text);
  memo.set(text, value);
  return value;
}

/** The facts a line states, and those an agent line makes known, by text: the same lines recur across a run's calls. */
const statedFacts = new Map<string, ReadonlySet<string>>();
const madeKnown = new Map<string, ReadonlySet<string>>();

/** Every deviation of one call, in the order hung_up_early, invented_fact, repeated_past_exit. */
export function detectCallerDeviations(input: DeviationInput): CallerDeviation[] {
  const compiled = taskScript(input.task);
  const call = selectCallEvents(input.events);
  const lines = input.caller ? linesFromFile(compiled.script, input.caller) : linesFromTimeline(compiled, call);
  const callerLines = lines.filter((l) => l.side === 'caller');
  const found: CallerDeviation[] = [];

  // 1. Hung up before the graded work, with no closing line (a cap is the environment's rule, not a fault).
  const ended = call.find((e): e is Extract<TimelineEvent, { type: 'call.ended' }> => e.type === 'call.ended');
  const callerHungUp = input.caller ? input.caller.hung_up && !CAP_REASONS.has(input.caller.end_reason ?? '') : ended?.end_reason === 'caller_hangup' && callerLines.length > 0;
  if (callerHungUp && !callerLines.some((l) => l.closing)) {
    const missing = missingGradedCalls(input.task, call);
    if (missing.length) found.push({ kind: 'hung_up_early', evidence: `${input.caller?.end_reason ?? 'caller_hangup'} before ${missing.join(',')}` });
  }

  // 2. Stated a date or number that is in neither its traits, its intent, its pins nor anything the agent said before.
  const known = new Set(compiled.known);
  for (const line of lines) {
    if (line.side === 'agent') {
      for (const f of remembered(madeKnown, line.text, (text) => knownFactsOf([text]))) known.add(f);
      continue;
    }
    if (line.scripted) continue;
    const invented = [...remembered(statedFacts, line.text, factsIn)].filter((f) => !isKnownFact(f, known));
    if (invented.length) found.push({ kind: 'invented_fact', evidence: `${invented.join(',')} in "${line.text.slice(0, 120)}"` });
  }

  // 3. Repeated past its exit rule: one line said REPEAT_LIMIT times in a row, or talking on after its closing line.
  let run = 0;
  for (let i = 0; i < callerLines.length; i++) {
    const line = callerLines[i] as Line;
    run = i > 0 && sameWords(line.text, callerLines[i - 1]?.text ?? '') ? run + 1 : 1;
    if (run === REPEAT_LIMIT && !line.closing) found.push({ kind: 'repeated_past_exit', evidence: `said ${REPEAT_LIMIT} times in a row: "${line.text.slice(0, 80)}"` });
  }
  const firstClosing = callerLines.findIndex((l) => l.closing);
  const after = firstClosing < 0 ? [] : callerLines.slice(firstClosing + 1).filter((l) => !l.closing && wordsOf(l.text).split(' ').length >= 4);
  if (after.length) found.push({ kind: 'repeated_past_exit', evidence: `${after.length} line(s) after the closing line: "${after[0]?.text.slice(0, 80)}"` });
  return found;
}
