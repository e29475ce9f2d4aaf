/**
 * Tolerant preprocessing shared by every pack (packs.md §2.4): turn what people and speech
 * recognition produce into the canonical forms the schemas advertise. Each function returns the
 * input unchanged when it cannot read it, so the strict parse reports the field.
 */

const MONTHS = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'];

function pad(n: number): string {
  return String(n).padStart(2, '0');
}

/** True for a YYYY-MM-DD that is a day on the calendar (not "2026-13-45"). */
export function isCalendarDate(value: string): boolean {
  const [y = 0, m = 0, d = 0] = value.split('-').map(Number);
  return validDate(y, m, d) !== undefined;
}

function validDate(y: number, m: number, d: number): string | undefined {
  const dt = new Date(Date.UTC(y, m - 1, d));
  if (dt.getUTCFullYear() !== y || dt.getUTCMonth() !== m - 1 || dt.getUTCDate() !== d) return undefined;
  return `${y}-${pad(m)}-${pad(d)}`;
}

/** "2026-10-07", "2026-10-07T10:00:00Z", "October 7th", "Oct 7, 2026", "10/7/2026" → "2026-10-07". */
export function normalizeDate(value: unknown, referenceYear: number): unknown {
  if (typeof value !== 'string') return value;
  const text = value.trim().toLowerCase();
  const iso = /^(\d{4})-(\d{1,2})-(\d{1,2})(?:[t ].*)?$/.exec(text);
  if (iso) return validDate(Number(iso[1]), Number(iso[2]), Number(iso[3])) ?? value;
  const us = /^(\d{1,2})\/(\d{1,2})\/(\d{4})$/.exec(text);
  if (us) return validDate(Number(us[3]), Number(us[1]), Number(us[2])) ?? value;
  const spoken = /^(?:[a-z]+day,?\s+)?([a-z]+)\.?\s+(\d{1,2})(?:st|nd|rd|th)?(?:,?\s+(\d{4}))?$/.exec(text);
  if (spoken) {
    const month = MONTHS.findIndex((m) => m.startsWith(spoken[1] ?? '-') && (spoken[1]?.length ?? 0) >= 3);
    if (month >= 0) return validDate(Number(spoken[3] ?? referenceYear), month + 1, Number(spoken[2])) ?? value;
  }
  return value;
}

/** "2026-10-07T10:00:00-04:00", "2026-10-07 10:00" → "2026-10-07T10:00" (a zone is dropped; the time is read as office time). */
export function normalizeDateTime(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  const m = /^(\d{4}-\d{2}-\d{2})[T ](\d{1,2}):(\d{2})(?::\d{2}(?:\.\d+)?)?(?:z|[+-]\d{2}:?\d{2})?$/i.exec(value.trim());
  return m ? `${m[1]}T${pad(Number(m[2]))}:${m[3]}` : value;
}

/**
 * The one reading of a phone number as E.164, shared by tool input parsing and the scorer
 * (issue 18, defect 11): digits and phone punctuation only; ten digits are a North American
 * number (+1), eleven starting with 1 likewise, and a number written with a leading `+` keeps its
 * 8–15 digits. Anything else is not read (null).
 */
export function phoneE164(value: unknown): string | null {
  if (typeof value !== 'string' || !/^[\d\s()+.-]+$/.test(value)) return null;
  const digits = value.replace(/\D/g, '');
  if (digits.length === 10) return `+1${digits}`;
  if (digits.length === 11 && digits.startsWith('1')) return `+${digits}`;
  if (value.trim().startsWith('+') && digits.length >= 8 && digits.length <= 15) return `+${digits}`;
  return null;
}

/** "(212) 555-0100", "212.555.0100", "1 212 555 0100" → "+12125550100"; a number it cannot read is left as given. */
export function normalizePhone(value: unknown): unknown {
  return phoneE164(value) ?? value;
}

/** "$45", "45.00", 4500 → integer cents (a number is already cents). */
export function normalizeMoneyCents(value: unknown): unknown {
  if (typeof value === 'number') return value;
  if (typeof value !== 'string') return value;
  const m = /^\$?\s*(\d+)(?:\.(\d{1,2}))?$/.exec(value.trim().replaceAll(',', ''));
  if (!m) return value;
  return Number(m[1]) * 100 + Number((m[2] ?? '0').padEnd(2, '0'));
}

/** Lower case, trims, and turns spaces and hyphens into underscores: "Park Ave" → "park_ave". */
export function normalizeCode(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  return value.trim().toLowerCase().replace(/[\s-]+/g, '_');
}

/** Maps a spoken alias to its canonical value after normalizeCode; unknown values pass through. */
export function normalizeAlias(value: unknown, aliases: Readonly<Record<string, string>>): unknown {
  const code = normalizeCode(value);
  return typeof code === 'string' ? (aliases[code] ?? code) : value;
}

/** Applies per-field normalisers to a raw argument object. */
export function normalizeFields(
  raw: Readonly<Record<string, unknown>>,
  fields: Readonly<Record<string, (value: unknown) => unknown>>,
): Record<string, unknown> {
  const out: Record<string, unknown> = { ...raw };
  for (const [field, fn] of Object.entries(fields)) {
    if (field in out) out[field] = fn(out[field]);
  }
  return out;
}
