import { canonicalJson } from '../core/index.ts';
import { phoneE164, type NormaliserName } from '../packs/index.ts';

/** A value after a normaliser ran: the normalised value, or the raw one flagged `unparsed`. */
export interface Normalised {
  readonly value: unknown;
  readonly unparsed: boolean;
}

/**
 * The one shared text fold (scoring.md §4.1): NFKC, trim, collapse inner whitespace, then a full
 * case fold. Upper-then-lower casing folds ß to ss, which plain `toLowerCase` does not.
 */
export function caseFold(text: string): string {
  return text.normalize('NFKC').trim().replace(/\s+/g, ' ').toUpperCase().toLowerCase().normalize('NFKC');
}

const parsed = (value: unknown): Normalised => ({ value, unparsed: false });
const raw = (value: unknown): Normalised => ({ value, unparsed: true });

function isCalendarDate(y: number, m: number, d: number): boolean {
  const dt = new Date(Date.UTC(y, m - 1, d));
  return dt.getUTCFullYear() === y && dt.getUTCMonth() === m - 1 && dt.getUTCDate() === d;
}

const DATE_ONLY = /^(\d{4})-(\d{2})-(\d{2})$/;
const LOCAL_DATETIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?$/;

function normaliseDate(value: unknown): Normalised {
  const m = typeof value === 'string' ? DATE_ONLY.exec(value) : null;
  if (!m || !isCalendarDate(Number(m[1]), Number(m[2]), Number(m[3]))) return raw(value);
  return parsed(value);
}

function normaliseDateTimeMinute(value: unknown): Normalised {
  const m = typeof value === 'string' ? LOCAL_DATETIME.exec(value) : null;
  if (!m) return raw(value);
  const [hour, minute, second] = [Number(m[4]), Number(m[5]), Number(m[6] ?? '0')];
  if (!isCalendarDate(Number(m[1]), Number(m[2]), Number(m[3])) || hour > 23 || minute > 59 || second > 59) return raw(value);
  return parsed(`${m[1]}-${m[2]}-${m[3]}T${m[4]}:${m[5]}`);
}

/** The packs' one E.164 reading (`phoneE164`), so a tool and the scorer never disagree on a number. */
function normalisePhone(value: unknown): Normalised {
  const e164 = phoneE164(value);
  return e164 === null ? raw(value) : parsed(e164);
}

const DOLLARS = /^\$?\s*(\d+|\d{1,3}(?:,\d{3})+)(?:\.(\d{1,2}))?$/;

function normaliseMoney(value: unknown): Normalised {
  if (typeof value === 'number') return Number.isInteger(value) ? parsed(value) : raw(value);
  if (typeof value !== 'string') return raw(value);
  const text = value.trim();
  if (/^-?\d+$/.test(text)) return parsed(Number(text));
  const m = DOLLARS.exec(text);
  if (!m || (!text.includes('$') && !text.includes('.'))) return raw(value);
  const cents = (m[2] ?? '0').padEnd(2, '0');
  return parsed(Number((m[1] ?? '0').replaceAll(',', '')) * 100 + Number(cents));
}

function normaliseNumber(value: unknown): Normalised {
  if (typeof value === 'number' && Number.isFinite(value)) return parsed(value);
  if (typeof value === 'string' && /^-?\d+(\.\d+)?$/.test(value.trim())) return parsed(Number(value.trim()));
  return raw(value);
}

function normaliseBool(value: unknown): Normalised {
  if (typeof value === 'boolean') return parsed(value);
  if (value === 1 || value === 0) return parsed(value === 1);
  if (value === 'true' || value === 'false') return parsed(value === 'true');
  return raw(value);
}

function listOf(value: unknown): unknown[] | undefined {
  if (Array.isArray(value)) return value;
  if (typeof value !== 'string') return undefined;
  try {
    const decoded: unknown = JSON.parse(value);
    return Array.isArray(decoded) ? decoded : undefined;
  } catch {
    return undefined;
  }
}

function normaliseSetText(value: unknown): Normalised {
  const list = listOf(value);
  if (!list || !list.every((v): v is string => typeof v === 'string')) return raw(value);
  return parsed([...new Set(list.map(caseFold))].sort());
}

/** Applies one normaliser of the closed set; a value it cannot read comes back raw and `unparsed`. */
export function normalise(name: NormaliserName, value: unknown): Normalised {
  // A SQL NULL is an absent value, not an unreadable one: it passes through every normaliser.
  if (value === null || value === undefined) return parsed(null);
  switch (name) {
    case 'exact':
      return parsed(value);
    case 'text':
      return typeof value === 'string' ? parsed(caseFold(value)) : raw(value);
    case 'date':
      return normaliseDate(value);
    case 'datetime_minute':
      return normaliseDateTimeMinute(value);
    case 'phone_e164':
      return normalisePhone(value);
    case 'money_cents':
      return normaliseMoney(value);
    case 'number':
      return normaliseNumber(value);
    case 'bool':
      return normaliseBool(value);
    case 'set_text':
      return normaliseSetText(value);
    default:
      return assertNever(name);
  }
}

/** Strict equality after normalising: canonical JSON, so key order never matters and `1` equals `1.0`. */
export function sameValue(a: unknown, b: unknown): boolean {
  return canonicalJson(a ?? null) === canonicalJson(b ?? null);
}

/** Exhaustiveness guard for closed unions. */
export function assertNever(value: never): never {
  throw new Error(`unexpected value ${JSON.stringify(value)}`);
}
