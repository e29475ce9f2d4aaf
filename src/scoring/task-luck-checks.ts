import { duplexProblems } from './duplex-task-checks.ts';
import { agentOwnsTool, callerScriptOf, effectivePolicy, sameWords, type CallerPin, type Pack, type Task } from '../packs/index.ts';

/**
 * The checks of `mivas tasks validate` that catch a task passed or failed by luck (issue 30): a
 * faithful agent must not fail because its caller had no line for what the route asks of it,
 * because the prompt invites an act the task grades as wrong and the caller cannot refuse, or
 * because a script it must read word for word cannot be said as written.
 * Mechanical where they can be: they read the task's pins, its route, the desks' prompts and the
 * compare policy, never a model. What they cannot read is the audit's (docs/task-audit.md).
 *
 * - `pins`: two pins with different lines that react to the same kind of agent act, with no NOT
 *   clause in either naming an act of the other, can both fire on one agent turn.
 * - `route-lines`: the route's confirmations and offers have a caller line: a read-back before a
 *   write, a held time or quote to accept, and a quote to decline when the task never confirms it.
 * - `offers`: every write a route desk's prompt invites the agent to offer is graded as allowed
 *   (the state comparison tolerates it) or the caller can decline it with a pin that does not
 *   begin with a consent word.
 * - `state-writers`: every graded table the task expects written is written by a tool its desk's
 *   prompt names, so an agent following its prompt can know the tool.
 * - `scripts`: every script, next-step line and refusal message a tool returns on the reference
 *   route (the agent reads them word for word) is written as it is spoken: no digits or symbols,
 *   which the desks' rules forbid saying.
 * - `duplex`: a correction task's graded values are the corrected ones, and its stale value is
 *   nowhere in the expected state or calls (`duplex-task-checks.ts`).
 */
export type LuckCheck = 'pins' | 'route-lines' | 'offers' | 'state-writers' | 'scripts' | 'duplex';

export const LUCK_CHECKS: readonly LuckCheck[] = ['pins', 'route-lines', 'offers', 'state-writers', 'scripts', 'duplex'];

/** A problem found by one of the checks, prefixed `<check>: ` in the validation output. */
export interface LuckProblem {
  readonly check: LuckCheck;
  readonly message: string;
}

/** Words that read as yes when a line starts with them ("Okay. Then could you..." accepts whatever was just offered). */
const CONSENT = /^(okay|ok|yes|yeah|yep|sure|alright|all right|fine|great|perfect|please|go ahead|that works|sounds good)\b/i;
/** Words that read as no when a line starts with them. */
const DECLINE = /^(no|not|nope|i'?d rather not|i don'?t|i'?ll pass|that'?s all right|maybe later)\b/i;

/** The kinds of agent act a pin reacts to, read from its situation. Order matters only for messages. */
const ACTS: readonly (readonly [string, RegExp])[] = [
  ['read-back', /\b(reads? (it |them |the \w+ |your \w+ )?back|repeats? (it |them |your \w+ )?back|whether (they|it|that|those|the details) (is|are) (right|correct))\b/i],
  ['fee', /\b(fees?|costs?|price|charges?|how (it|the firm) gets paid)\b/i],
  ['consultation', /\b(consultation|meeting with an attorney)\b/i],
  ['forms', /\bforms?\b/i],
  ['records', /\b(records|records? (request|release))\b/i],
  ['note', /\bnotes?\b/i],
  ['waitlist', /\bwait ?list\b/i],
  ['text', /\b(a text|by text|to text|texts? (you|me|it|them|a|the)|confirmation text)\b/i],
  ['email', /\be-?mail\b/i],
  ['phone', /\b(phone number|mobile number|number to reach)\b/i],
  ['date-of-birth', /\b(date of birth|birthday|born)\b/i],
  ['date', /\b(date(?! of birth)|when it happened)\b/i],
  ['times', /\b((appointment|consultation|consult|meeting|specific|visit|bench|new|another|more) times?|slots?|openings?)\b/i],
  ['anything-else', /\banything else\b/i],
  ['person', /\b(member of (our|the) (staff|team)|connect(s|ing)? you|transfer)\b/i],
  ['question', /\basks? (you )?(for|what|which|when|who|where|how|whether|if)\b/i],
];

function actsOf(text: string): Set<string> {
  return new Set(ACTS.filter(([, re]) => re.test(text)).map(([name]) => name));
}

/** A pin's situation split into what triggers it and its NOT clauses. */
function splitSituation(situation: string): { trigger: string; not: string } {
  const i = situation.search(/\bNOT\b/);
  return i < 0 ? { trigger: situation, not: '' } : { trigger: situation.slice(0, i), not: situation.slice(i) };
}

/** Two lines that answer alike: the same words, or both a plain yes (or both a plain no) to whatever was asked. */
function sameAnswer(a: string, b: string): boolean {
  const polarity = (line: string): string => (CONSENT.test(line.trim()) ? 'yes' : DECLINE.test(line.trim()) ? 'no' : line);
  return sameWords(a, b) || (polarity(a) === polarity(b) && polarity(a) !== a);
}

/** Words that say nothing about which act a pin reacts to. */
const FILLER = new Set(['agent', 'asks', 'says', 'tells', 'when', 'your', 'you', 'that', 'this', 'with', 'from', 'they', 'them', 'then', 'only', 'still', 'first', 'whether', 'about', 'what', 'which', 'have', 'there', 'their', 'will', 'would', 'could', 'some', 'once', 'it', 'the', 'and', 'for', 'not', 'has', 'been', 'being', 'after', 'before', 'again', 'just', 'also', 'does', 'other']);

function contentWords(text: string): Set<string> {
  return new Set((text.toLowerCase().match(/[a-z]+/g) ?? []).filter((w) => w.length >= 4 && !FILLER.has(w)).map((w) => w.replace(/(s|es|ed|ing)$/, '')));
}

function trigrams(text: string): Set<string> {
  const words = text.toLowerCase().match(/[a-z]+/g) ?? [];
  return new Set(words.slice(2).map((w, i) => `${words[i]} ${words[i + 1]} ${w}`));
}

/** True when a NOT clause of `a` names something only `b`'s trigger says (a word, or three words in a row: "one eight two"): the clause tells the two apart. */
function namesOther(a: { trigger: string; not: string }, b: { trigger: string }): boolean {
  const words = (f: (t: string) => Set<string>): boolean => {
    const own = f(a.trigger);
    const excluded = f(a.not);
    return [...f(b.trigger)].some((w) => !own.has(w) && excluded.has(w));
  };
  return words(contentWords) || words(trigrams);
}

/** `pins`: two pins that react to the same act with different lines, and no NOT clause telling them apart. */
export function overlappingPins(task: Task): string[] {
  const script = callerScriptOf(task);
  // Duplex pins are played over the agent on their own phrase trigger, never chosen for a turn.
  const parsed = script.pins.filter((p) => !p.duplex).map((p) => ({ pin: p, ...splitSituation(p.situation), acts: actsOf(splitSituation(p.situation).trigger) }));
  const problems: string[] = [];
  for (let i = 0; i < parsed.length; i++) {
    for (let j = i + 1; j < parsed.length; j++) {
      const a = parsed[i];
      const b = parsed[j];
      if (!a || !b || sameAnswer(a.pin.line, b.pin.line) || a.pin.closes || b.pin.closes) continue;
      // The same kind of act: one pin's acts contain the other's (a read-back of a phone number is not a question for one).
      const shared = [...a.acts].filter((act) => b.acts.has(act) && act !== 'question');
      const nested = [...a.acts].every((act) => b.acts.has(act)) || [...b.acts].every((act) => a.acts.has(act));
      if (!shared.length || !nested) continue;
      const separated = namesOther(a, b) || namesOther(b, a) || sameTriggerApart(a.trigger, b.trigger);
      if (!separated) problems.push(`pins ${a.pin.number} and ${b.pin.number} both fire when the agent's turn is about ${shared.join(', ')}, answer differently, and no NOT clause tells them apart`);
    }
  }
  return problems;
}

/** Two triggers that name the same act at different moments: before and after it is done, or the first time and again. */
function sameTriggerApart(a: string, b: string): boolean {
  const moment = (t: string): string => (/\b(sent|on its way|done|booked|opened|written up|created|added|cancelled)\b/i.test(t) ? 'after' : /\b(asks?|offers?|whether|would you like|confirm)\b/i.test(t) ? 'before' : 'other');
  const turn = (t: string): string => (/\b(again|repeats|after you (asked|said|have))\b/i.test(t) ? 'again' : /\bthe first time\b/i.test(t) ? 'first' : 'any');
  const apart = (x: string, y: string, open: string): boolean => x !== y && x !== open && y !== open;
  return apart(moment(a), moment(b), 'other') || apart(turn(a), turn(b), 'any');
}

/** The desks of the reference route, entry first. */
function routeAgents(pack: Pack, task: Task): string[] {
  return [pack.entryAgent, ...task.exp_handoff_path.flatMap((hop) => pack.catalog.get(hop)?.handoffTo ?? [])];
}

function hasPin(pins: readonly CallerPin[], situation: RegExp, line: RegExp): boolean {
  return pins.some((p) => situation.test(splitSituation(p.situation).trigger) && line.test(p.line.trim()));
}

/** A pin's trigger that asks the caller to agree: a read-back, a held time, a quote, an offer. */
const ASKS_AGREEMENT = /\b(reads?|repeats?|confirms?|confirming|whether|is that right|correct|go ahead|agree|offers?|would you like|wants?|holds?|quotes?)\b/i;

/** `route-lines`: a caller line for every confirmation and offer on the reference route. */
export function missingRouteLines(pack: Pack, task: Task): string[] {
  const pins = callerScriptOf(task).pins;
  const problems: string[] = [];
  const tools = task.exp_tool_calls.flatMap((c) => {
    const t = pack.catalog.get(c.name);
    return t?.definition && t.kind !== 'session' ? [t.definition] : [];
  });
  const firstWrite = tools.find((d) => d.effect === 'write');
  if (firstWrite && !hasPin(pins, ASKS_AGREEMENT, CONSENT)) problems.push(`no pin says yes when the agent reads details back or asks to go ahead before ${firstWrite.name} (a pin for that moment whose line begins with a yes)`);
  const confirmed = new Set(tools.flatMap((t) => (t.confirms ? [t.confirms] : [])));
  for (const d of tools.filter((t) => isQuote(pack, t.name) && !confirmed.has(t.name))) {
    if (!hasPin(pins, ASKS_AGREEMENT, DECLINE)) problems.push(`${d.name} runs but is never confirmed: no pin declines its offer (a line that begins with a no)`);
  }
  return problems;
}

/** A quote or hold: a tool some other tool confirms. */
function isQuote(pack: Pack, name: string): boolean {
  return [...pack.catalog.values()].some((t) => t.definition?.confirms === name);
}

/** The words a pin uses for a tool's act: the last word of its name ("add_case_note" → note, "join_waitlist" → waitlist). */
function actWord(tool: string): string {
  const last = tool.split('_').at(-1) ?? tool;
  return last.replace(/s$/, '');
}

/** Words that invite the agent to offer or capture something. */
const INVITES = /\b(offer|offers|capture|the caller adds|details the caller|if the caller wants|if they want|would like|ask (whether|if|which))\b/i;

/**
 * The writes a desk's prompt invites the agent to offer on this route: the tool's own line in the
 * desk's tool list, or a refusal's line (`- CODE: ... offer ...`) when that refusal is on the route.
 * Offers that hang on who the caller is or on what the caller says (`- A spouse...`, `After a
 * booking...`) are left to the audit. Session tools (a human transfer) follow the caller's request
 * or a failure; confirm steps are the `route-lines` check's.
 */
function invitedTools(pack: Pack, agent: string, codesOnRoute: ReadonlySet<string>): string[] {
  const bullets = (pack.prompts.get(agent) ?? '').split(/\n(?=- |#)/);
  const invites = (name: string, b: string): boolean => {
    if (!new RegExp(`\\b${name}\\b`).test(b) || !INVITES.test(b)) return false;
    if (b.startsWith(`- ${name}:`)) return true;
    const code = /^- ([A-Z][A-Z_]+):/.exec(b)?.[1];
    return code !== undefined && codesOnRoute.has(code);
  };
  return [...pack.catalog.values()]
    .filter((t) => t.kind !== 'session' && t.definition?.effect === 'write' && t.definition.confirms === undefined && agentOwnsTool(pack, agent, t.name))
    .filter((t) => bullets.some((b) => invites(t.name, b)))
    .map((t) => t.name);
}

/** True when the task's state comparison lets the tool's write through (unscored tables, or a subset mode that allows extras). */
function tolerated(pack: Pack, task: Task, tool: string): boolean {
  const policy = effectivePolicy(pack.compare, task.compare);
  return (pack.catalog.get(tool)?.definition?.writes ?? []).every((table) => {
    const p = policy.tables[table];
    if (!p || !p.scored) return true;
    return p.mode === 'subset' && ((task.exp_db_state[table]?.length ?? 0) > 0 || p.extra_when_empty === true);
  });
}

/** `offers`: an act a route desk's prompt invites, graded as wrong, that the caller cannot refuse. */
export function unrefusableOffers(pack: Pack, task: Task): string[] {
  const expected = new Set(task.exp_tool_calls.map((c) => c.name));
  const pins = callerScriptOf(task).pins;
  const codes = new Set(task.exp_tool_calls.flatMap((c) => (c.output?.error_code ? [c.output.error_code] : [])));
  const problems: string[] = [];
  for (const agent of routeAgents(pack, task)) {
    for (const tool of invitedTools(pack, agent, codes)) {
      if (expected.has(tool) || tolerated(pack, task, tool)) continue;
      const word = new RegExp(`\\b${actWord(tool)}s?\\b`, 'i');
      const answering = pins.filter((p) => word.test(splitSituation(p.situation).trigger));
      const declines = answering.filter((p) => !CONSENT.test(p.line.trim()) && DECLINE.test(p.line.trim()));
      if (!declines.length) {
        const graded = (pack.catalog.get(tool)?.definition?.writes ?? []).filter((t) => effectivePolicy(pack.compare, task.compare).tables[t]?.scored);
        const consenting = answering.filter((p) => CONSENT.test(p.line.trim())).map((p) => p.number);
        const why = consenting.length ? `pin ${consenting.join(', ')} answers it beginning with a consent word` : 'no pin answers it';
        problems.push(`${agent} is invited to offer ${tool}, whose write the task grades as wrong (${graded.join(', ')}), and ${why}: add a pin that declines it, or grade the write as allowed`);
      }
    }
  }
  return problems;
}

/** `state-writers`: every table the task expects written is written by an expected tool its desk's prompt names. */
export function unnamedWriters(pack: Pack, task: Task, seed: Readonly<Record<string, readonly unknown[]>>): string[] {
  const agents = routeAgents(pack, task);
  const policy = effectivePolicy(pack.compare, task.compare);
  const problems: string[] = [];
  for (const [table, rows] of Object.entries(task.exp_db_state)) {
    if (!policy.tables[table]?.scored || JSON.stringify(rows) === JSON.stringify(seed[table] ?? [])) continue;
    const writers = task.exp_tool_calls.map((c) => c.name).filter((name) => pack.catalog.get(name)?.definition?.writes.includes(table));
    const named = writers.filter((name) => agents.some((a) => agentOwnsTool(pack, a, name) && new RegExp(`\\b${name}\\b`).test(pack.prompts.get(a) ?? '')));
    if (writers.length && !named.length) problems.push(`${table} is graded as written by ${writers.join(', ')}, which no desk on the route names in its prompt`);
  }
  return problems;
}

/** Output fields the agent reads word for word. */
const READ_ALOUD = /(^|_)script$|^next_step$|^safe_message$/;
/** What a spoken line never holds: digits and the symbols a voice would have to spell. */
const UNSPEAKABLE = /[0-9$%#@&/_]/;

function readAloud(value: unknown, key: string, out: string[]): void {
  if (typeof value === 'string') {
    if (READ_ALOUD.test(key) && UNSPEAKABLE.test(value)) out.push(`${key} "${value.slice(0, 100)}"`);
  } else if (Array.isArray(value)) value.forEach((v) => readAloud(v, key, out));
  else if (value && typeof value === 'object') for (const [k, v] of Object.entries(value)) readAloud(v, k, out);
}

/** `scripts`: a line the agent reads word for word, returned on the reference route, that holds digits or symbols. */
export function unspeakableScripts(task: Task, outputs: readonly Readonly<Record<string, unknown>>[]): string[] {
  return outputs.flatMap((output, i) => {
    const found: string[] = [];
    readAloud(output, '', found);
    return found.map((f) => `#${i + 1} ${task.exp_tool_calls[i]?.name ?? '?'} returns ${f}: write it as it is spoken`);
  });
}

/** Every problem of the checks, each with its check's name; `outputs` are the reference route's tool outputs in order. */
export function luckProblems(pack: Pack, task: Task, seed: Readonly<Record<string, readonly unknown[]>>, outputs: readonly Readonly<Record<string, unknown>>[]): LuckProblem[] {
  return [
    ...overlappingPins(task).map((message) => ({ check: 'pins' as const, message })),
    ...missingRouteLines(pack, task).map((message) => ({ check: 'route-lines' as const, message })),
    ...unrefusableOffers(pack, task).map((message) => ({ check: 'offers' as const, message })),
    ...unnamedWriters(pack, task, seed).map((message) => ({ check: 'state-writers' as const, message })),
    ...unspeakableScripts(task, outputs).map((message) => ({ check: 'scripts' as const, message })),
    ...duplexProblems(task, seed).map((message) => ({ check: 'duplex' as const, message })),
  ];
}
