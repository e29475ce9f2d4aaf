import { dateInWords, timeInWords } from './spoken-words.ts';

/** The pack's fixed clock as declared in tools.ts. */
export interface PackClockSpec {
  readonly now: string; // YYYY-MM-DDTHH:MM, local office time
  readonly timezone: string;
  readonly holidays?: readonly string[]; // YYYY-MM-DD
}

/** Calendar arithmetic on local date strings; never reads the wall clock. */
export interface PackClock {
  readonly timezone: string;
  /** The fixed local datetime, YYYY-MM-DDTHH:MM. */
  now(): string;
  /** The fixed local date, YYYY-MM-DD. */
  today(): string;
  addDays(date: string, days: number): string;
  /** Day of week, 0 = Sunday. */
  weekday(date: string): number;
  isBusinessDay(date: string): boolean;
  addBusinessDays(date: string, days: number): string;
  /** Whole minutes from the pack's now until a local datetime (negative when past). */
  minutesUntil(datetime: string): number;
  /**
   * "Wednesday, October seventh" in the clock's year; "Sunday, September thirtieth, twenty
   * twenty-nine" in any other, so a caller never hears a date in another year as this year's.
   * Words, not digits: the desks' rules say dates are spoken in words and tools give them so.
   */
  spokenDate(date: string): string;
  /** "Wednesday, October seventh at ten thirty a.m.": the spoken date and the time in words. */
  spokenDateTime(datetime: string): string;
}

function dateToUtc(date: string): Date {
  const [y, m, d] = date.split('-').map(Number);
  return new Date(Date.UTC(y ?? 1970, (m ?? 1) - 1, d ?? 1));
}

function utcToDate(d: Date): string {
  return d.toISOString().slice(0, 10);
}

function localMinutes(datetime: string): number {
  const [date, time = '00:00'] = datetime.split('T');
  const [hh, mm] = time.split(':').map(Number);
  return dateToUtc(date ?? '1970-01-01').getTime() / 60_000 + (hh ?? 0) * 60 + (mm ?? 0);
}

/** Builds the pack clock from its declaration. */
export function createPackClock(spec: PackClockSpec): PackClock {
  const holidays = new Set(spec.holidays ?? []);
  const clock: PackClock = {
    timezone: spec.timezone,
    now: () => spec.now,
    today: () => spec.now.slice(0, 10),
    addDays: (date, days) => {
      const d = dateToUtc(date);
      d.setUTCDate(d.getUTCDate() + days);
      return utcToDate(d);
    },
    weekday: (date) => dateToUtc(date).getUTCDay(),
    isBusinessDay: (date) => {
      const wd = clock.weekday(date);
      return wd !== 0 && wd !== 6 && !holidays.has(date);
    },
    addBusinessDays: (date, days) => {
      let current = date;
      let left = days;
      while (left > 0) {
        current = clock.addDays(current, 1);
        if (clock.isBusinessDay(current)) left--;
      }
      return current;
    },
    minutesUntil: (datetime) => localMinutes(datetime) - localMinutes(spec.now),
    spokenDate: (date) => dateInWords(date, spec.now),
    spokenDateTime: (datetime) => {
      const [date = '', time = '00:00'] = datetime.split('T');
      return `${dateInWords(date, spec.now)} at ${timeInWords(time)}`;
    },
  };
  return clock;
}
