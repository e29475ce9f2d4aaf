import { agentOwnsTool, MONTHS, WEEKDAYS, type ExpectedCall, type Pack, type Task } from '../packs/index.ts';

/**
 * Two checks of `mivas tasks validate` that read a task as a deployed model would (issue 18):
 * provenance (every constrained argument value can be known from the caller's side, an earlier
 * output on the reference route, or a mapping the tool's schema states) and necessity (every
 * required call says why it is required, and a cited prompt rule exists in its agent's prompt).
 */

/** Where a graded argument value can come from. */
export type ValueSource = 'caller' | 'route' | 'schema' | 'clock';

/** One graded argument and where its value was found (null: nowhere). */
export interface ValueProvenance {
  readonly call: number;
  readonly tool: string;
  readonly field: string;
  readonly value: string | number | boolean;
  readonly source: ValueSource | null;
}

const ORDINALS = ['', 'first', 'second', 'third', 'fourth', 'fifth', 'sixth', 'seventh', 'eighth', 'ninth', 'tenth', 'eleventh', 'twelfth', 'thirteenth', 'fourteenth', 'fifteenth', 'sixteenth', 'seventeenth', 'eighteenth', 'nineteenth', 'twentieth'];
const UNITS = ['', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine'];
const TEENS = ['ten', 'eleven', 'twelve', 'thirteen', 'fourteen', 'fifteen', 'sixteen', 'seventeen', 'eighteen', 'nineteen'];

/** Lower case, punctuation as spaces, single spaces: the form caller text and values are compared in. */
function fold(text: string): string {
  return ` ${text.toLowerCase().replace(/[^a-z0-9@.+]+/g, ' ').replace(/\s+/g, ' ').trim()} `;
}

function ordinalWords(day: number): string[] {
  if (day <= 20) return [ORDINALS[day] ?? ''];
  const tens = day < 30 ? 'twenty' : 'thirty';
  const unit = day % 10;
  return unit === 0 ? [day === 30 ? 'thirtieth' : 'twentieth'] : [`${tens} ${ORDINALS[unit]}`, `${tens}${ORDINALS[unit]}`];
}

function numberWords(n: number): string[] {
  if (!Number.isInteger(n) || n < 0 || n > 99) return [];
  if (n < 10) return [UNITS[n] || 'zero'];
  if (n < 20) return [TEENS[n - 10] ?? ''];
  const tens = ['', '', 'twenty', 'thirty', 'forty', 'fifty', 'sixty', 'seventy', 'eighty', 'ninety'][Math.floor(n / 10)] ?? '';
  return n % 10 === 0 ? [tens] : [`${tens} ${UNITS[n % 10]}`];
}

/** The ways a caller may say a date: the ISO text, or the month with the day in digits or words. */
function spokenDates(iso: string): string[] {
  const month = MONTHS[Number(iso.slice(5, 7)) - 1]?.toLowerCase() ?? '';
  const d = Number(iso.slice(8, 10));
  return [iso, `${month} ${d}`, `${month} ${d}th`, `${month} ${d}st`, `${month} ${d}nd`, `${month} ${d}rd`, ...ordinalWords(d).map((w) => `${month} ${w}`), ...ordinalWords(d).map((w) => `${w} of ${month}`)];
}

/** A date the model can resolve from the conversation's date line and a weekday the caller names. */
function clockDate(pack: Pack, iso: string, callerText: string): boolean {
  const today = pack.clock.today();
  // Whole calendar days from today (the clock's time of day does not matter for a date).
  const ahead = Math.round((Date.parse(`${iso.slice(0, 10)}T00:00:00Z`) - Date.parse(`${today}T00:00:00Z`)) / 86_400_000);
  if (iso.slice(0, 10) === today) return callerText.includes(' today ');
  if (ahead === 1 && callerText.includes(' tomorrow ')) return true;
  const weekday = WEEKDAYS[pack.clock.weekday(iso.slice(0, 10))]?.toLowerCase() ?? '';
  return ahead > 0 && ahead <= 14 && callerText.includes(` ${weekday} `);
}

function inCallerText(pack: Pack, value: string | number | boolean, callerText: string): boolean {
  if (typeof value === 'boolean') return false;
  if (typeof value === 'number') return callerText.includes(` ${value} `) || numberWords(value).some((w) => callerText.includes(` ${w} `));
  if (/^\d{4}-\d{2}-\d{2}/.test(value)) return spokenDates(value).some((form) => callerText.includes(fold(form)));
  const folded = fold(value);
  if (folded.trim() === '') return false;
  if (callerText.includes(folded)) return true;
  // Digits read out one at a time ("five five five, one two three four") or grouped differently.
  const digits = value.replace(/\D/g, '');
  return digits.length >= 4 && digits === value.replace(/[\s().+-]/g, '') && callerText.replace(/\D/g, '').includes(digits);
}

function schemaStates(pack: Pack, tool: string, field: string, value: string | number | boolean): boolean {
  if (typeof value === 'boolean') return true;
  const props = pack.catalog.get(tool)?.inputSchema.properties as Record<string, { enum?: unknown[] }> | undefined;
  return props?.[field]?.enum?.includes(value) === true;
}

function literalValues(matcher: NonNullable<ExpectedCall['parameters']>[string]): (string | number | boolean)[] {
  if (typeof matcher !== 'object') return [matcher];
  return '$any_of' in matcher ? (matcher.$any_of as (string | number | boolean)[]) : [];
}

/** Everything the caller's side of the task says: intent, traits, pins, name. */
export function callerSideText(task: Task): string {
  const parts = [task.intent, task.customer_name ?? '', ...task.traits.map((t) => `${t.trait_name} ${String(t.value)}`), ...task.scripted_responses.map((p) => p.response_value)];
  return fold(parts.join(' \n '));
}

/**
 * The source of every constrained argument value of a task's expected calls. `outputs` are the
 * outputs of those calls on the reference route (from the oracle replay), in order: a value an
 * earlier call returned is one the agent has seen.
 */
export function argumentProvenance(pack: Pack, task: Task, outputs: readonly unknown[]): ValueProvenance[] {
  const callerText = callerSideText(task);
  const out: ValueProvenance[] = [];
  task.exp_tool_calls.forEach((call, i) => {
    const seen = fold(outputs.slice(0, i).map((o) => JSON.stringify(o ?? null)).join(' '));
    for (const [field, matcher] of Object.entries(call.parameters ?? {})) {
      const values = literalValues(matcher);
      if (!values.length) continue;
      const found = values.map((value) => ({ value, source: sourceOf(pack, call.name, field, value, callerText, seen) }));
      const hit = found.find((f) => f.source !== null) ?? found[0];
      if (hit) out.push({ call: i, tool: call.name, field, value: hit.value, source: hit.source });
    }
  });
  return out;
}

function sourceOf(pack: Pack, tool: string, field: string, value: string | number | boolean, callerText: string, seen: string): ValueSource | null {
  if (schemaStates(pack, tool, field, value)) return 'schema';
  if (inCallerText(pack, value, callerText)) return 'caller';
  if (typeof value !== 'boolean' && seen.includes(fold(String(value)))) return 'route';
  if (typeof value === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(value) && clockDate(pack, value, callerText)) return 'clock';
  return null;
}

/** Provenance problems: one per graded value that nothing the agent sees could give. */
export function provenanceProblems(pack: Pack, task: Task, outputs: readonly unknown[]): string[] {
  return argumentProvenance(pack, task, outputs)
    .filter((p) => p.source === null)
    .map((p) => `provenance: exp_tool_calls[${p.call}] ${p.tool}.${p.field}=${JSON.stringify(p.value)} is not said by the caller, returned earlier on the route, or stated by the tool's schema`);
}

function squash(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/** Necessity problems: a call without a `why`, or a prompt rule its agent's prompt does not contain. */
export function necessityProblems(pack: Pack, task: Task): string[] {
  const agents = [pack.entryAgent, ...task.exp_handoff_path.flatMap((hop) => pack.catalog.get(hop)?.handoffTo ?? [])];
  return task.exp_tool_calls.flatMap((call, i) => {
    const where = `necessity: exp_tool_calls[${i}] ${call.name}`;
    if (!call.why) return [`${where}: no why (writes_state, answers_caller or prompt_rule with its quote)`];
    if (call.why.because !== 'prompt_rule') return [];
    const quote = squash(call.why.quote ?? '');
    const owners = agents.filter((a) => agentOwnsTool(pack, a, call.name));
    const quoted = owners.some((a) => squash(pack.prompts.get(a) ?? '').includes(quote));
    return quoted ? [] : [`${where}: the quoted rule is not in the prompt of ${owners.join(' or ') || 'its agent'}: ${JSON.stringify(call.why.quote)}`];
  });
}
