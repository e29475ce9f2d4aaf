import { isDeepStrictEqual } from 'node:util';
import type { Task } from '../packs/index.ts';

/** Every string and number inside a value (keys aside), as lowercase text. */
function leavesOf(value: unknown, out: string[] = []): string[] {
  if (typeof value === 'string' || typeof value === 'number') out.push(String(value).toLowerCase());
  else if (Array.isArray(value)) value.forEach((v) => leavesOf(v, out));
  else if (value && typeof value === 'object') Object.values(value).forEach((v) => leavesOf(v, out));
  return out;
}

/**
 * Whether a value is in any leaf, as a whole: not run on from a letter or digit before it, nor into
 * a digit after it ("2026-10-12" is in "2026-10-12T09:00"; "6" is not in "60", "2026-10-06" or "MT6WS").
 */
export function holdsValue(value: unknown, needle: string): boolean {
  const n = needle.toLowerCase().replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const whole = new RegExp(`(?<![a-z0-9])${n}(?![0-9])`);
  return leavesOf(value).some((leaf) => whole.test(leaf));
}

/** The rows of the expected state that the task writes: every row not already in the seed. */
function writtenRows(task: Task, seed: Readonly<Record<string, readonly unknown[]>>): unknown[] {
  return Object.entries(task.exp_db_state).flatMap(([table, rows]) => rows.filter((row) => !(seed[table] ?? []).some((s) => isDeepStrictEqual(s, row))));
}

/**
 * The `duplex` check of `mivas tasks validate` (docs/packs.md §3.4): a correction task grades the
 * corrected value and only it. Its corrected value must be in what is graded (a parameter of an
 * expected call, or a row the task writes), and its stale value nowhere in the expected state or
 * calls, so an agent that kept the first value fails the state or tool gate and one that took the
 * correction cannot fail them by luck.
 */
export function duplexProblems(task: Task, seed: Readonly<Record<string, readonly unknown[]>>): string[] {
  const problems: string[] = [];
  task.scripted_responses.forEach((pin, i) => {
    const d = pin.duplex;
    if (d?.act !== 'correction' || d.stale_value === undefined || d.corrected_value === undefined) return;
    const where = `pin ${i + 1} (correction ${JSON.stringify(d.stale_value)} → ${JSON.stringify(d.corrected_value)})`;
    if (holdsValue(task.exp_db_state, d.stale_value)) problems.push(`${where}: the stale value is in exp_db_state; the expected state carries the corrected value only`);
    if (holdsValue(task.exp_tool_calls, d.stale_value)) problems.push(`${where}: the stale value is in exp_tool_calls; the expected calls carry the corrected value only`);
    const graded = [...task.exp_tool_calls.map((c) => c.parameters ?? {}), ...writtenRows(task, seed)];
    if (!holdsValue(graded, d.corrected_value)) problems.push(`${where}: the corrected value is in no expected call parameter and no row the task writes, so no gate grades it`);
  });
  return problems;
}
