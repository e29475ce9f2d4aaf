import type { DuplexTrigger, Task } from './schema.ts';

/** The caller's opening line from a task intent ("Open with exactly: ..."), or a plain hello. */
export function openingLineOf(intent: string): string {
  const m = /Open with exactly:\s*["“](.+?)["”]/.exec(intent);
  return m?.[1] ?? 'Hello.';
}

/** One scripted response of a task (a pin): said word for word when its situation holds. */
export interface CallerPin {
  /** 1-based, in task order: the number the caller model names. */
  readonly number: number;
  /** The agent behaviour that triggers the pin (with its "NOT when ..." clauses). */
  readonly situation: string;
  /** The exact words. */
  readonly line: string;
  /** How often the pin may be said (null: always). */
  readonly maxUses: number | null;
  /** True when the line is one of the intent's closing lines: saying it ends the caller's side. */
  readonly closes: boolean;
  /** Set when the pin is a duplex act: said over the agent when its trigger holds, never as a turn. */
  readonly duplex: DuplexTrigger | null;
}

/**
 * What a digital human is made of, read from a task JSON (packs.md §3.1, §3.3, §3.4): who the
 * caller is, what it knows, what it wants, its exact first and last lines and its pins. The
 * `llm` caller (`src/caller/`) and the scorer's caller-deviation check read a task through this
 * one shape.
 */
export interface CallerScript {
  readonly taskId: string;
  readonly persona: string;
  readonly intent: string;
  readonly traits: readonly { readonly name: string; readonly value: string }[];
  readonly openingLine: string;
  /** Lines that end the caller's side ("Thanks, that's everything.", "Okay, thank you."). */
  readonly closingLines: readonly string[];
  readonly pins: readonly CallerPin[];
}

/** Every `exactly: "..."` quote of an intent, in order. */
function exactQuotes(intent: string): { before: string; line: string }[] {
  return [...intent.matchAll(/exactly(?: this)?:\s*["“]([^"”]+)["”]/gi)].map((m) => ({ before: intent.slice(Math.max(0, (m.index ?? 0) - 40), m.index ?? 0), line: (m[1] ?? '').trim() }));
}

/**
 * The intent's closing lines, after which the caller hangs up: every "close with exactly" quote,
 * plus the last quoted line when it is not the opening line. Lines the caller is told to say
 * mid-call (a prompt injection the task tests) are neither, and nor is the line said when the agent
 * says it is connecting the caller to a person ("Okay, thank you."): a caller waits on the line for
 * the transfer, which ends the call. Hanging up there left an agent that announced the transfer
 * before making it nobody to transfer (legal R-H4, R-H4-COR, R-M4, session 10).
 */
export function closingLinesOf(intent: string): string[] {
  const quotes = exactQuotes(intent);
  const opening = openingLineOf(intent);
  const lines = quotes.filter((q) => /\b(close|end|finish)\s+with\s*$/i.test(q.before)).map((q) => q.line);
  const last = quotes.at(-1);
  if (last && last.line !== opening && !/\bopen\s+with\s*$/i.test(last.before)) lines.push(last.line);
  const awaiting = new Set(quotes.filter((q) => AWAITS_TRANSFER.test(q.before)).map((q) => q.line));
  return [...new Set(lines)].filter((line) => !awaiting.has(line));
}

/** The words before a quote said when the agent is connecting the caller to a person. */
const AWAITS_TRANSFER = /\bconnecting you\b/i;

/** Builds the caller script of a task. */
export function callerScriptOf(task: Pick<Task, 'task_id' | 'intent' | 'traits' | 'customer_name' | 'scripted_responses'>): CallerScript {
  const closingLines = closingLinesOf(task.intent);
  const closes = (line: string): boolean => closingLines.some((c) => sameWords(c, line));
  return {
    taskId: task.task_id,
    persona: task.customer_name,
    intent: task.intent,
    traits: task.traits.map((t) => ({ name: t.trait_name, value: String(t.value) })),
    openingLine: openingLineOf(task.intent),
    closingLines,
    pins: task.scripted_responses.map((r, i) => ({
      number: i + 1,
      situation: r.match_phrase,
      line: r.response_value,
      maxUses: r.occurrence_mode === 'first_n' ? (r.occurrence_n ?? 1) : null,
      closes: closes(r.response_value),
      duplex: r.duplex ?? null,
    })),
  };
}

/** Lowercase words only: how two spoken lines are compared ("Thanks, that's everything." = "thanks that's everything"). */
export function wordsOf(text: string): string {
  return text
    .toLowerCase()
    .replace(/[’‘]/g, "'")
    .replace(/[^a-z0-9' ]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

/** True when two lines say the same words. */
export function sameWords(a: string, b: string): boolean {
  return wordsOf(a) === wordsOf(b);
}
