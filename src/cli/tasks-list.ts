import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { EXIT } from '../core/index.ts';
import { loadPack, taskGrid, type Task, type TaskGrid } from '../packs/index.ts';
import { failWith, type Command } from './io.ts';

const DIFFICULTIES = ['easy', 'medium', 'hard'] as const;
const AUDIO_CONDITIONS = ['perfect', 'background_noise', 'bad_signal'] as const;

function table(rows: readonly (readonly string[])[]): string {
  const widths = rows[0]?.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length))) ?? [];
  return rows.map((r) => r.map((cell, i) => (i < 2 ? cell.padEnd(widths[i] ?? 0) : cell.padStart(widths[i] ?? 0))).join('  ').trimEnd()).join('\n');
}

/** The tasks with duplex acts (docs/packs.md §3.8), by id, one line: the correction variants and any other. */
function duplexLine(tasks: Iterable<Task>): string {
  const ids = [...tasks].filter((t) => t.scripted_responses.some((r) => r.duplex)).map((t) => t.task_id).sort();
  return ids.length ? `\nduplex tasks (${ids.length}): ${ids.join(', ')}\n` : '';
}

/** The category × difficulty grid, the audio-condition counts and the duplex tasks as plain text. */
export function renderTaskList(packId: string, grid: TaskGrid, tasks: Iterable<Task> = []): string {
  const count = (counts: Readonly<Record<string, number>>, key: string): string => String(counts[key] ?? 0);
  const difficultyRows = [
    ['category', 'slug', ...DIFFICULTIES, 'total'],
    ...grid.categories.map((c) => [c.category, c.slug, ...DIFFICULTIES.map((d) => count(c.counts, d)), count(c.counts, 'total')]),
    ['all', '', ...DIFFICULTIES.map((d) => count(grid.totals, d)), count(grid.totals, 'total')],
  ];
  const audioRows = [['audio condition', '', 'tasks'], ...AUDIO_CONDITIONS.map((a) => [a, '', count(grid.totals, a)])];
  return `${packId}: ${grid.taskCount} tasks\n\n${table(difficultyRows)}\n\n${table(audioRows)}\n${duplexLine(tasks)}`;
}

/** `mivas tasks list --pack P`: prints the pack's category × difficulty grid, audio-condition counts and duplex tasks. */
export const tasksListCommand: Command = async (argv, io) => {
  const { values } = parseArgs({ args: [...argv], options: { pack: { type: 'string' }, 'packs-dir': { type: 'string', default: 'packs' } } });
  if (!values.pack) return failWith(io, 'USAGE', 'usage: mivas tasks list --pack P');
  const pack = await loadPack(resolve(io.cwd, values['packs-dir'] ?? 'packs'), values.pack);
  io.stdout.write(renderTaskList(pack.id, taskGrid(pack.tasks.values()), pack.tasks.values()));
  return EXIT.ok;
};
