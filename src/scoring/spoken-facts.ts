/**
 * The fact reader of the caller-deviation check (docs/caller.md#caller-deviation): which dates and
 * numbers a line states, however a person says them, and whether each was known to the caller.
 * It must never void a correct call, so every spoken form the suites' facts take reads back as a
 * known fact: dates with or without commas, ordinals, years said in pairs ("nineteen
 * seventy-nine"), digits one by one, "oh" for zero, "double five", thousands separators, times.
 */

const MONTHS = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'];
const CARDINALS = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten', 'eleven', 'twelve', 'thirteen', 'fourteen', 'fifteen', 'sixteen', 'seventeen', 'eighteen', 'nineteen'];
const ORDINALS = ['zeroth', 'first', 'second', 'third', 'fourth', 'fifth', 'sixth', 'seventh', 'eighth', 'ninth', 'tenth', 'eleventh', 'twelfth', 'thirteenth', 'fourteenth', 'fifteenth', 'sixteenth', 'seventeenth', 'eighteenth', 'nineteenth'];
const TENS = ['twenty', 'thirty', 'forty', 'fifty', 'sixty', 'seventy', 'eighty', 'ninety'];
const TENTHS = ['twentieth', 'thirtieth', 'fortieth', 'fiftieth', 'sixtieth', 'seventieth', 'eightieth', 'ninetieth'];
const REPEATS: Readonly<Record<string, number>> = { double: 2, triple: 3 };

interface NumberWord {
  readonly value: number;
  readonly kind: 'unit' | 'tens' | 'scale';
  readonly ordinal: boolean;
}

/** A number word's value and kind, or null for any other word. */
function numberWord(word: string): NumberWord | null {
  if (word === 'oh') return { value: 0, kind: 'unit', ordinal: false };
  if (CARDINALS.includes(word)) return { value: CARDINALS.indexOf(word), kind: 'unit', ordinal: false };
  if (ORDINALS.includes(word)) return { value: ORDINALS.indexOf(word), kind: 'unit', ordinal: true };
  if (TENS.includes(word)) return { value: 20 + 10 * TENS.indexOf(word), kind: 'tens', ordinal: false };
  if (TENTHS.includes(word)) return { value: 20 + 10 * TENTHS.indexOf(word), kind: 'tens', ordinal: true };
  if (word === 'hundred') return { value: 100, kind: 'scale', ordinal: false };
  if (word === 'thousand') return { value: 1000, kind: 'scale', ordinal: false };
  return null;
}

/** One number being said: thousands so far, the part under a thousand, and whether it can grow. */
interface Piece {
  total: number;
  chunk: number;
  closed: boolean;
}

/** Adds a word to the number being said, or returns false when the word starts a new number. */
function extend(p: Piece, w: NumberWord): boolean {
  if (p.closed) return false;
  const under100 = p.chunk % 100;
  if (w.kind === 'scale' && w.value === 100) {
    if (p.chunk >= 100 || (p.total > 0 && p.chunk >= 10)) return false;
    p.chunk = (p.chunk || 1) * 100;
    return true;
  }
  if (w.kind === 'scale') {
    if (p.total > 0) return false;
    p.total = (p.chunk || 1) * 1000;
    p.chunk = 0;
    return true;
  }
  if (w.value === 0) return false;
  const fits = w.value < 10 ? under100 % 10 === 0 && (under100 === 0 || under100 >= 20) : under100 === 0;
  if (!fits) return false;
  p.chunk += w.value;
  return true;
}

/**
 * The digits of one run of number words: numbers said one after another, each built as counted
 * ("two hundred forty" → 240, "two thousand five" → 2005), joined as said ("nineteen seventy-nine"
 * → 19|79 → 1979, "five five five" → 555, "one twenty-three forty-five" → 12345). Zero never
 * grows, so "twenty oh five" is 2005.
 */
function runValue(words: readonly NumberWord[]): string {
  const pieces: Piece[] = [];
  for (const w of words) {
    const last = pieces.at(-1);
    if (last && extend(last, w)) continue;
    const piece: Piece = { total: 0, chunk: 0, closed: w.value === 0 && w.kind === 'unit' };
    if (!piece.closed) extend(piece, w);
    pieces.push(piece);
  }
  return pieces.map((p) => String(p.total + p.chunk)).join('');
}

/** "double five" → "five five", "triple 7" → "7 7 7": how phone digits are often read. */
function expandRepeats(text: string): string {
  return text.replace(/\b(double|triple)\s+([a-z]+|\d)\b/gi, (_, rep: string, word: string) => Array.from({ length: REPEATS[rep.toLowerCase()] ?? 1 }, () => word).join(' '));
}

/**
 * Spelled numbers as digits: "nineteen eighty-two" → 1982, "June fifth" → "June 5", "five five
 * five" → 555, "two hundred forty" → 240, "twenty twenty-six" → 2026. An ordinal ends its run, so
 * "March fourth nineteen eighty" is a day and a year, not one number.
 */
export function spelledToDigits(text: string): string {
  const parts = expandRepeats(text.replace(/([A-Za-z])-([A-Za-z])/g, '$1 $2')).split(/(\s+)/);
  const out: string[] = [];
  let run: NumberWord[] = [];
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

/** A date fact `date:MM-DD`, when month and day can be a calendar day. */
function dateFact(month: number, day: number): string | null {
  return month >= 1 && month <= 12 && day >= 1 && day <= 31 ? `date:${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}` : null;
}

function numFact(digits: string): string | null {
  const n = digits.replace(/^0+(?=\d)/, '');
  return n.length >= 2 ? `num:${n}` : null;
}

/** The text with spelled numbers as digits, a datetime's date and time apart, ordinal suffixes and thousands separators dropped, digits read one by one joined. */
function digitsOf(text: string): string {
  return spelledToDigits(text)
    .toLowerCase()
    .replace(/(\d{4}-\d{2}-\d{2})t(\d)/g, '$1 $2')
    .replace(/(\d+)(st|nd|rd|th)\b/g, '$1')
    .replace(/(\d),(?=\d{3}\b)/g, '$1')
    .replace(/\b\d(?:[ -]\d\b)+/g, (m) => m.replace(/[ -]/g, ''));
}

function datesIn(digits: string): string[] {
  const monthNames = MONTHS.join('|');
  const month = (name: string | undefined): number => MONTHS.indexOf(name ?? '') + 1;
  return [
    ...[...digits.matchAll(/\b(\d{4})-(\d{2})-(\d{2})\b/g)].map((m) => dateFact(Number(m[2]), Number(m[3]))),
    ...[...digits.matchAll(/\b(\d{1,2})\/(\d{1,2})(?:\/\d{2,4})?\b/g)].map((m) => dateFact(Number(m[1]), Number(m[2]))),
    ...[...digits.matchAll(new RegExp(`\\b(${monthNames})\\s+(?:the\\s+)?(\\d{1,2})\\b`, 'g'))].map((m) => dateFact(month(m[1]), Number(m[2]))),
    ...[...digits.matchAll(new RegExp(`\\b(\\d{1,2})\\s+(?:of\\s+)?(${monthNames})\\b`, 'g'))].map((m) => dateFact(month(m[2]), Number(m[1]))),
  ].filter((f): f is string => f !== null);
}

/** A clock time as said on either dial: "14:30" is also "2:30", and "2:30" also "14:30". */
function timesIn(digits: string): string[] {
  return [...digits.matchAll(/\b(\d{1,2}):(\d{2})\b/g)].flatMap((m) => {
    const hour = Number(m[1]);
    const other = hour > 12 ? hour - 12 : hour >= 1 && hour < 12 ? hour + 12 : null;
    return [`${hour}${m[2]}`, ...(other === null ? [] : [`${other}${m[2]}`])];
  });
}

/**
 * The facts a text states, the ones a caller could invent and an agent would write down: calendar
 * dates (`date:MM-DD`, from "March 4", "4 March", "2026-03-04", "3/4/2026"), and every number of
 * two digits or more (`num:<digits>`, leading zeros dropped), spelled numbers included, and a clock
 * time ("2:30") read whole.
 */
export function factsIn(text: string): Set<string> {
  const digits = digitsOf(text);
  const numbers = [...[...digits.matchAll(/\d+/g)].map((m) => m[0]), ...timesIn(digits)];
  return new Set([...datesIn(digits), ...numbers.map(numFact).filter((f): f is string => f !== null)]);
}

/**
 * The facts a text makes known: its stated facts, and a number written in groups ("555-0142",
 * "4111 1111") also whole, so a caller may say it in one breath. A caller's own line is not read
 * this way: "October 7 2026" states a day and a year, not the number 72026.
 */
export function knownFactsOf(texts: readonly string[]): Set<string> {
  return new Set(
    texts.flatMap((text) => {
      const grouped = [...digitsOf(text).matchAll(/\d+(?:[-. ]\d+)+/g)].map((m) => m[0]).filter((g) => !/^\d{4}-\d{2}-\d{2}$/.test(g));
      return [...factsIn(text), ...grouped.map((g) => numFact(g.replace(/\D/g, ''))).filter((f): f is string => f !== null)];
    }),
  );
}

/** Digit strings a piece of a spoken number may come from: known numbers, and known dates' months and days. */
function sources(known: ReadonlySet<string>): { numbers: string[]; dateParts: Set<string> } {
  const numbers: string[] = [];
  const dateParts = new Set<string>();
  for (const k of known) {
    if (k.startsWith('num:')) numbers.push(k.slice(4));
    else for (const part of k.slice(5).split('-')) dateParts.add(part).add(String(Number(part)));
  }
  return { numbers, dateParts };
}

/**
 * True when a fact is known: a date exactly; a number when it is part of a known number (the last
 * four of a card, a ZIP inside an address), or when it splits into pieces that each are: two
 * digits or more of a known number, or a known date's month or day (a date said without commas,
 * "November nineteen nineteen seventy-nine", reads as the one number 191979: the day 19 and the
 * year 1979; "October seven twenty twenty-six" as 72026).
 */
export function isKnownFact(fact: string, known: ReadonlySet<string>): boolean {
  if (known.has(fact)) return true;
  if (!fact.startsWith('num:')) return false;
  const digits = fact.slice(4);
  const { numbers, dateParts } = sources(known);
  const isPiece = (s: string): boolean => dateParts.has(s) || (s.length >= 2 && numbers.some((n) => n.includes(s)));
  const reach = [true];
  for (let end = 1; end <= digits.length; end++) {
    reach[end] = false;
    for (let start = 0; start < end && !reach[end]; start++) reach[end] = reach[start] === true && isPiece(digits.slice(start, end));
  }
  return reach[digits.length] === true;
}
