import fc from 'fast-check';
import { numberInWords, ordinalInWords } from '../../src/packs/index.ts';

/**
 * Ways a person says the facts the suites give their callers (dates, times, phones, card digits,
 * ZIP codes, order, matter and member numbers, money), as a fast-check arbitrary: the property test
 * of the caller-deviation fact reader (src/scoring/spoken-facts.ts) feeds each task's facts
 * through these and expects every one to read back as known.
 */

const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
const UNITS = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine'];
const cardinal = numberInWords;
const ordinal = ordinalInWords;

type Pick = <T>(options: readonly T[]) => T;

/** Digits one by one, zero as "oh" or "zero", runs as "double" and "triple" when chosen. */
function digitByDigit(digits: string, pick: Pick): string {
  const zero = pick(['oh', 'zero']);
  const repeats = pick([true, false]);
  const words: string[] = [];
  for (let i = 0; i < digits.length; ) {
    const d = Number(digits[i]);
    let run = 1;
    while (repeats && run < 3 && digits[i + run] === digits[i]) run++;
    const word = d === 0 ? zero : (UNITS[d] ?? '');
    words.push(run === 1 ? word : `${run === 2 ? 'double' : 'triple'} ${word}`);
    i += run;
  }
  return words.join(pick([' ', '-']) === '-' && !repeats ? '-' : ' ');
}

/** Digits in pairs ("twenty-six oh oh three"): an odd leading digit alone, "0X" as "oh X". */
function inPairs(digits: string): string {
  const chunks = digits.length % 2 ? [digits.slice(0, 1)] : [];
  for (let i = digits.length % 2; i < digits.length; i += 2) chunks.push(digits.slice(i, i + 2));
  return chunks.map((c) => (c.length === 1 ? (UNITS[Number(c)] ?? '') : c[0] === '0' ? `oh ${c[1] === '0' ? 'oh' : UNITS[Number(c[1])]}` : cardinal(Number(c)))).join(' ');
}

/** A digit string said any way a person reads a number. */
function number(digits: string, pick: Pick): string {
  const forms = [digits, digitByDigit(digits, pick), inPairs(digits)];
  if (!digits.startsWith('0') && digits.length <= 4) forms.push(cardinal(Number(digits)));
  return pick(forms);
}

function year(y: number, pick: Pick): string {
  const high = Math.floor(y / 100);
  const low = y % 100;
  const pairs = `${cardinal(high)} ${low === 0 ? 'hundred' : low < 10 ? `oh ${cardinal(low)}` : cardinal(low)}`;
  return pick([String(y), pairs, cardinal(y)]);
}

function date(iso: string, pick: Pick): string {
  const [y, m, d] = iso.split('-').map(Number) as [number, number, number];
  const month = MONTHS[m - 1] ?? '';
  const comma = pick([',', '']);
  const withYear = pick([true, false]);
  const tail = withYear ? `${comma} ${year(y, pick)}` : '';
  return pick([
    `${month} ${pick([ordinal(d), String(d), `${d}th`])}${tail}`,
    // A day said as a number runs into a year said as one ("August twenty two thousand twenty-six" is also August 22): a pause parts them.
    `${month} ${cardinal(d)}${withYear ? `, ${year(y, pick)}` : ''}`,
    `the ${ordinal(d)} of ${month}${tail}`,
    `${m}/${d}/${y}`,
    // Said as numbers, the year comes after a pause: "eight twenty two thousand twenty-six" is also 8|22026.
    `${cardinal(m)} ${d < 10 ? `oh ${cardinal(d)}` : cardinal(d)}${withYear ? `, ${year(y, pick)}` : ''}`,
  ]);
}

function time(hhmm: string, pick: Pick): string {
  const [h, min] = hhmm.split(':').map(Number) as [number, number];
  const dial = h > 12 ? h - 12 : h;
  const minutes = min === 0 ? pick(["o'clock", '']) : min < 10 ? `oh ${cardinal(min)}` : cardinal(min);
  return pick([`${cardinal(dial)} ${minutes}`.trim(), `${dial}:${String(min).padStart(2, '0')} ${h >= 12 ? 'PM' : 'AM'}`, `${cardinal(h)} ${min === 0 ? 'hundred' : minutes}`]);
}

function phone(e164: string, pick: Pick): string {
  const national = e164.slice(-10);
  const groups = [national.slice(0, 3), national.slice(3, 6), national.slice(6)];
  const byDigit = pick([true, false]);
  const said = groups.map((g) => (byDigit ? digitByDigit(g, pick) : number(g, pick)));
  const lead = pick(['', 'one ', 'plus one ']);
  return lead + said.join(byDigit ? pick([', ', ' ', ' - ']) : ', ');
}

/** Letters said one by one, digits as numbers, as an id is read out ("K E, one two three..."). */
function mixedId(id: string, pick: Pick): string {
  return id
    .split(/(\d+)/)
    .filter(Boolean)
    .map((part) => (/^\d+$/.test(part) ? number(part, pick) : part.replace(/-/g, pick([' dash ', ' '])).split('').join(' ')))
    .join(pick([' ', ', ']))
    .replace(/\s+/g, ' ');
}

function money(text: string, pick: Pick): string {
  const [dollars, cents] = text.replace(/[$,]/g, '').split(/[.\s]/) as [string, string | undefined];
  const d = Number(dollars);
  const c = Number(cents ?? '0');
  return pick([`${cardinal(d)} dollars${c ? ` and ${cardinal(c)} cents` : ''}`, `${cardinal(d)}${c ? ` ${cardinal(c)}` : ''}`, `$${d}.${String(c).padStart(2, '0')}`]);
}

/** One spoken form of a trait value, or null when the value states no fact of two digits or more. */
export function spokenForm(value: string, pick: Pick): string | null {
  if (/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}$/.test(value)) return `${date(value.slice(0, 10), pick)} at ${time(value.slice(11), pick)}`;
  if (/^\d{4}-\d{2}-\d{2}$/.test(value)) return date(value, pick);
  if (/^\+\d{11}$/.test(value)) return phone(value, pick);
  if (/^\$\d/.test(value)) return money(value, pick);
  if (/^\d{2,}$/.test(value)) return number(value, pick);
  if (/\d{2}|\d.*\d/.test(value) && /^[A-Z0-9-]+$/.test(value)) return mixedId(value, pick);
  return null;
}

/** fast-check's choice of one option, for `spokenForm`. */
export const picker: fc.Arbitrary<Pick> = fc.gen().map((g) => <T>(options: readonly T[]): T => options[g(fc.nat, { max: options.length - 1 })] as T);
