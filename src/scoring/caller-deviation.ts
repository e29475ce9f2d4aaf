import { callerScriptOf, sameWords, wordsOf, type CallerScript, type Task } from '../packs/index.ts';
import { selectCallEvents, type CallerFile, type TimelineEvent } from '../snapshot/index.ts';

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

function linesFromTimeline(script: CallerScript, events: readonly TimelineEvent[]): Line[] {
  return events.flatMap((e) =>
    e.type === 'transcript' && e.text.trim()
      ? [{ side: e.side, text: e.text.trim(), scripted: e.side === 'caller' && isScripted(script, e.text), closing: e.side === 'caller' && script.closingLines.some((l) => sameWords(l, e.text)) }]
      : [],
  );
}

/** Expected calls of the task that never executed during the call (the graded work still missing). */
function missingGradedCalls(task: Task, events: readonly TimelineEvent[]): string[] {
  const executed = new Set(events.flatMap((e) => (e.type === 'tool' && e.executed ? [e.name] : [])));
  return [...new Set(task.exp_tool_calls.map((c) => c.name))].filter((name) => !executed.has(name));
}

/** The input of the check: the task, the call's timeline, and the caller's own record when there is one. */
export interface DeviationInput {
  readonly task: Task;
  readonly events: readonly TimelineEvent[];
  readonly caller: CallerFile | null;
}

/** Every deviation of one call, in the order hung_up_early, invented_fact, repeated_past_exit. */
export function detectCallerDeviations(input: DeviationInput): CallerDeviation[] {
  const script = callerScriptOf(input.task);
  const call = selectCallEvents(input.events);
  const lines = input.caller ? linesFromFile(script, input.caller) : linesFromTimeline(script, call);
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
  const known = new Set<string>();
  for (const text of [script.intent, ...script.traits.map((t) => t.value), ...script.pins.map((p) => p.line), ...script.closingLines]) for (const f of factsIn(text)) known.add(f);
  for (const line of lines) {
    if (line.side === 'agent') {
      for (const f of factsIn(line.text)) known.add(f);
      continue;
    }
    if (line.scripted) continue;
    const invented = [...factsIn(line.text)].filter((f) => !isKnownFact(f, known));
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

const MONTHS = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'];
const CARDINALS = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten', 'eleven', 'twelve', 'thirteen', 'fourteen', 'fifteen', 'sixteen', 'seventeen', 'eighteen', 'nineteen'];
const ORDINALS = ['zeroth', 'first', 'second', 'third', 'fourth', 'fifth', 'sixth', 'seventh', 'eighth', 'ninth', 'tenth', 'eleventh', 'twelfth', 'thirteenth', 'fourteenth', 'fifteenth', 'sixteenth', 'seventeenth', 'eighteenth', 'nineteenth'];
const TENS = ['twenty', 'thirty', 'forty', 'fifty', 'sixty', 'seventy', 'eighty', 'ninety'];
const TENTHS = ['twentieth', 'thirtieth', 'fortieth', 'fiftieth', 'sixtieth', 'seventieth', 'eightieth', 'ninetieth'];

/** A number word's value and kind, or null for any other word. */
function numberWord(word: string): { value: number; kind: 'unit' | 'tens' | 'scale'; ordinal: boolean } | null {
  if (word === 'oh') return { value: 0, kind: 'unit', ordinal: false };
  if (CARDINALS.includes(word)) return { value: CARDINALS.indexOf(word), kind: 'unit', ordinal: false };
  if (ORDINALS.includes(word)) return { value: ORDINALS.indexOf(word), kind: 'unit', ordinal: true };
  if (TENS.includes(word)) return { value: 20 + 10 * TENS.indexOf(word), kind: 'tens', ordinal: false };
  if (TENTHS.includes(word)) return { value: 20 + 10 * TENTHS.indexOf(word), kind: 'tens', ordinal: true };
  if (word === 'hundred') return { value: 100, kind: 'scale', ordinal: false };
  if (word === 'thousand') return { value: 1000, kind: 'scale', ordinal: false };
  return null;
}

/** The digits of one run of number words: a scaled number ("two hundred forty" → 240), else its groups joined as said ("nineteen eighty two" → 1982, "five five five" → 555). */
function runValue(words: readonly { value: number; kind: 'unit' | 'tens' | 'scale' }[]): string {
  if (words.some((w) => w.kind === 'scale')) {
    let total = 0;
    let chunk = 0;
    for (const w of words) {
      if (w.kind === 'scale' && w.value === 100) chunk = (chunk || 1) * 100;
      else if (w.kind === 'scale') {
        total += (chunk || 1) * 1000;
        chunk = 0;
      } else chunk += w.value;
    }
    return String(total + chunk);
  }
  const groups: number[] = [];
  for (const w of words) {
    const last = groups.length - 1;
    if (w.kind === 'unit' && w.value < 10 && last >= 0 && (groups[last] ?? 0) >= 20 && (groups[last] ?? 0) % 10 === 0) groups[last] = (groups[last] ?? 0) + w.value;
    else groups.push(w.value);
  }
  return groups.map(String).join('');
}

/**
 * Spelled numbers as digits: "nineteen eighty-two" → 1982, "June fifth" → "June 5", "five five
 * five" → 555, "two hundred forty" → 240, "twenty twenty-six" → 2026. An ordinal ends its run, so
 * "March fourth nineteen eighty" is a day and a year, not one number.
 */
export function spelledToDigits(text: string): string {
  const parts = text.replace(/([A-Za-z])-([A-Za-z])/g, '$1 $2').split(/(\s+)/);
  const out: string[] = [];
  let run: { value: number; kind: 'unit' | 'tens' | 'scale' }[] = [];
  let runSpace = '';
  const flush = (): void => {
    if (run.length) out.push(runSpace, runValue(run));
    run = [];
    runSpace = '';
  };
  let space = '';
  for (const part of parts) {
    if (/^\s*$/.test(part)) {
      space = part;
      continue;
    }
    const word = part.toLowerCase().replace(/[.,!?;:]+$/, '');
    const punct = part.slice(word.length);
    const n = numberWord(word);
    const joins = word === 'and' && run.some((w) => w.kind === 'scale');
    if (n || joins) {
      if (!run.length) runSpace = space;
      if (n) run.push(n);
      space = '';
      if (n?.ordinal || punct) {
        flush();
        out.push(punct);
      }
      continue;
    }
    flush();
    out.push(space, part);
    space = '';
  }
  flush();
  return out.join('').trim();
}

/**
 * The facts of a text that a caller could invent and an agent would write down: calendar dates
 * (`date:MM-DD`, from "March 4", "4 March", "2026-03-04", "3/4/2026"), and every number of two
 * digits or more (`num:<digits>`, leading zeros dropped), spelled numbers included.
 */
export function factsIn(text: string): Set<string> {
  const facts = new Set<string>();
  // Digits read one by one ("1-0-4-4-7", "5 5 5") are one number.
  const digits = spelledToDigits(text)
    .toLowerCase()
    .replace(/(\d+)(st|nd|rd|th)\b/g, '$1')
    .replace(/\b\d(?:[ -]\d\b)+/g, (m) => m.replace(/[ -]/g, ''));
  const date = (month: number, day: number): void => {
    if (month >= 1 && month <= 12 && day >= 1 && day <= 31) facts.add(`date:${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`);
  };
  for (const m of digits.matchAll(/\b(\d{4})-(\d{2})-(\d{2})\b/g)) date(Number(m[2]), Number(m[3]));
  for (const m of digits.matchAll(/\b(\d{1,2})\/(\d{1,2})(?:\/\d{2,4})?\b/g)) date(Number(m[1]), Number(m[2]));
  const monthNames = MONTHS.join('|');
  for (const m of digits.matchAll(new RegExp(`\\b(${monthNames})\\s+(?:the\\s+)?(\\d{1,2})\\b`, 'g'))) date(MONTHS.indexOf(m[1] ?? '') + 1, Number(m[2]));
  for (const m of digits.matchAll(new RegExp(`\\b(\\d{1,2})\\s+(?:of\\s+)?(${monthNames})\\b`, 'g'))) date(MONTHS.indexOf(m[2] ?? '') + 1, Number(m[1]));
  for (const m of digits.matchAll(/\d+/g)) {
    const n = m[0].replace(/^0+(?=\d)/, '');
    if (n.length >= 2) facts.add(`num:${n}`);
  }
  // A number written in groups ("555-0142", "4111 1111") is also known whole.
  for (const m of digits.matchAll(/\d+(?:[-. ]\d+)+/g)) if (!/^\d{4}-\d{2}-\d{2}$/.test(m[0])) facts.add(`num:${m[0].replace(/\D/g, '').replace(/^0+(?=\d)/, '')}`);
  return facts;
}

/** True when a fact is known: a date exactly; a number exactly or as part of a known number (the last four of a card, a ZIP inside an address). */
export function isKnownFact(fact: string, known: ReadonlySet<string>): boolean {
  if (known.has(fact)) return true;
  if (!fact.startsWith('num:')) return false;
  const digits = fact.slice(4);
  for (const k of known) if (k.startsWith('num:') && k.slice(4).includes(digits)) return true;
  return false;
}
