/**
 * Numbers, money, dates and times written as they are said, for the scripts a tool returns and the
 * agent reads word for word: the desks' rules forbid speaking digits and symbols, so a script that
 * holds "$40.00" or "October 7" makes a faithful agent break one rule or the other
 * (`mivas tasks validate`, the `scripts` check; issue 30).
 */

const UNITS = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten', 'eleven', 'twelve', 'thirteen', 'fourteen', 'fifteen', 'sixteen', 'seventeen', 'eighteen', 'nineteen'];
const TENS = ['', '', 'twenty', 'thirty', 'forty', 'fifty', 'sixty', 'seventy', 'eighty', 'ninety'];
const ORDINAL_UNITS = ['zeroth', 'first', 'second', 'third', 'fourth', 'fifth', 'sixth', 'seventh', 'eighth', 'ninth', 'tenth', 'eleventh', 'twelfth', 'thirteenth', 'fourteenth', 'fifteenth', 'sixteenth', 'seventeenth', 'eighteenth', 'nineteenth'];
const ORDINAL_TENS = ['', '', 'twentieth', 'thirtieth', 'fortieth', 'fiftieth', 'sixtieth', 'seventieth', 'eightieth', 'ninetieth'];
export const WEEKDAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
export const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

/** A whole number from 0 to 999,999 in words: 48 → "forty-eight", 1249 → "one thousand two hundred forty-nine". */
export function numberInWords(n: number): string {
  if (!Number.isInteger(n) || n < 0 || n > 999_999) throw new RangeError(`numberInWords: ${n} is not a whole number from 0 to 999999`);
  if (n < 20) return UNITS[n] ?? '';
  if (n < 100) return n % 10 ? `${TENS[Math.floor(n / 10)]}-${UNITS[n % 10]}` : (TENS[n / 10] ?? '');
  if (n < 1000) return `${UNITS[Math.floor(n / 100)]} hundred${n % 100 ? ` ${numberInWords(n % 100)}` : ''}`;
  return `${numberInWords(Math.floor(n / 1000))} thousand${n % 1000 ? ` ${numberInWords(n % 1000)}` : ''}`;
}

/** A day of the month (1–31) as an ordinal: 7 → "seventh", 21 → "twenty-first". */
export function ordinalInWords(n: number): string {
  if (!Number.isInteger(n) || n < 1 || n > 99) throw new RangeError(`ordinalInWords: ${n} is not from 1 to 99`);
  if (n < 20) return ORDINAL_UNITS[n] ?? '';
  return n % 10 ? `${TENS[Math.floor(n / 10)]}-${ORDINAL_UNITS[n % 10]}` : (ORDINAL_TENS[n / 10] ?? '');
}

/** Cents as said: 4000 → "forty dollars", 2499 → "twenty-four dollars and ninety-nine cents", 99 → "ninety-nine cents". */
export function moneyInWords(cents: number): string {
  if (!Number.isInteger(cents)) throw new RangeError(`moneyInWords: ${cents} is not whole cents`);
  const sign = cents < 0 ? 'minus ' : '';
  const dollars = Math.floor(Math.abs(cents) / 100);
  const rest = Math.abs(cents) % 100;
  const dollarPart = `${numberInWords(dollars)} ${dollars === 1 ? 'dollar' : 'dollars'}`;
  const centPart = `${numberInWords(rest)} ${rest === 1 ? 'cent' : 'cents'}`;
  if (dollars === 0 && rest > 0) return `${sign}${centPart}`;
  return `${sign}${dollarPart}${rest ? ` and ${centPart}` : ''}`;
}

/** A year as said: 2027 → "twenty twenty-seven", 2005 → "two thousand five", 1979 → "nineteen seventy-nine", 1905 → "nineteen oh five". */
export function yearInWords(y: number): string {
  const century = Math.floor(y / 100);
  const rest = y % 100;
  if (rest === 0) return century % 10 === 0 ? numberInWords(y) : `${numberInWords(century)} hundred`;
  if (y > 2000 && y < 2010) return `two thousand ${numberInWords(rest)}`;
  return `${numberInWords(century)} ${rest < 10 ? `oh ${numberInWords(rest)}` : numberInWords(rest)}`;
}

/**
 * A calendar date (YYYY-MM-DD) as said: "Wednesday, October seventh". Given the year of the pack's
 * clock (`today`, YYYY-MM-DD), a date in any other year says its year too ("Sunday, November
 * twenty-eighth, twenty twenty-seven"), so a caller never hears it as this year's.
 */
export function dateInWords(iso: string, today?: string): string {
  const [y, m, d] = iso.slice(0, 10).split('-').map(Number) as [number, number, number];
  const weekday = WEEKDAYS[new Date(Date.UTC(y, m - 1, d)).getUTCDay()] ?? '';
  const day = `${weekday}, ${MONTHS[m - 1] ?? ''} ${ordinalInWords(d)}`;
  return today === undefined || today.slice(0, 4) === iso.slice(0, 4) ? day : `${day}, ${yearInWords(y)}`;
}

/** A clock time (HH:MM, 24-hour) as said: "10:00" → "ten a.m.", "14:30" → "two thirty p.m.", "09:05" → "nine oh five a.m.". */
export function timeInWords(hhmm: string): string {
  const [h = 0, m = 0] = hhmm.split(':').map(Number);
  const dial = h % 12 === 0 ? 12 : h % 12;
  const minutes = m === 0 ? '' : m < 10 ? ` oh ${numberInWords(m)}` : ` ${numberInWords(m)}`;
  return `${numberInWords(dial)}${minutes} ${h < 12 ? 'a.m.' : 'p.m.'}`;
}
