import type { PackClock } from '../../../src/packs/index.ts';
import { policy, type WindowRule } from './policy.ts';

/** Screening-window arithmetic (packs.md §5.3): calendar years or days from the incident date. */

/** The window of each rule: whole calendar years, or days. */
export const WINDOWS: Readonly<Record<WindowRule, { readonly years?: number; readonly days?: number }>> = {
  injury: { years: policy.injury_window_years },
  product: { years: policy.product_window_years },
  workplace_injury: { years: policy.workplace_injury_window_years },
  employment: { days: policy.employment_window_days },
  wages: { years: policy.wages_window_years },
};

const NUMBER_WORDS = ['zero', 'one', 'two', 'three', 'four', 'five'];

/** "two years" or "two hundred forty days". */
export function windowWords(rule: WindowRule): string {
  const w = WINDOWS[rule];
  if (w.years !== undefined) return `${NUMBER_WORDS[w.years] ?? String(w.years)} year${w.years === 1 ? '' : 's'}`;
  return `${String(w.days ?? 0)} days`;
}

/** Adds calendar years; February 29 becomes February 28 in a year without it. */
export function addYears(date: string, years: number): string {
  const [y = 0, m = 1, d = 1] = date.split('-').map(Number);
  const year = y + years;
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  const day = m === 2 && d === 29 && !leap ? 28 : d;
  return `${year}-${String(m).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
}

/** Whole days from one local date to another (negative when `to` is earlier). */
export function daysBetween(from: string, to: string): number {
  return Math.round((Date.UTC(...ymd(to)) - Date.UTC(...ymd(from))) / 86_400_000);
}

function ymd(date: string): [number, number, number] {
  const [y = 1970, m = 1, d = 1] = date.split('-').map(Number);
  return [y, m - 1, d];
}

/** The screening deadline, days left from today, and the window status. */
export interface WindowFacts {
  readonly deadline: string;
  readonly days_left: number;
  readonly status: 'expired' | 'urgent' | 'open';
}

/** Computes the window from the incident date on the pack clock: urgent at 60 days or fewer, expired once past. */
export function filingWindow(clock: PackClock, rule: WindowRule, incidentDate: string): WindowFacts {
  const w = WINDOWS[rule];
  const deadline = w.years !== undefined ? addYears(incidentDate, w.years) : clock.addDays(incidentDate, w.days ?? 0);
  const daysLeft = daysBetween(clock.today(), deadline);
  const status = daysLeft < 0 ? 'expired' : daysLeft <= policy.urgent_within_days ? 'urgent' : 'open';
  return { deadline, days_left: daysLeft, status };
}
