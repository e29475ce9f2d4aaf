import { END_CALL } from './catalog.ts';
import type { Blueprint, Task } from './schema.ts';
import type { PackToolsModule } from './tool-kit.ts';

/**
 * The four generated blocks of a pack README (packs.md §1.7). Each sits between
 * `<!-- generated:<name> -->` and `<!-- /generated:<name> -->` and is compared with its
 * regeneration, so counts and numbers cannot drift from the blueprint, the policy, the seed or
 * the tasks.
 */
export const README_BLOCK_NAMES = ['graph', 'policy', 'seed', 'tasks'] as const;
export type ReadmeBlockName = (typeof README_BLOCK_NAMES)[number];
export type ReadmeBlocks = Readonly<Record<ReadmeBlockName, string>>;

/** Row counts per table of the built template database. */
export type SeedCounts = Readonly<Record<string, number>>;

/** What the generators read from a pack. */
export interface ReadmeSources {
  readonly blueprint: Blueprint;
  readonly module: Pick<PackToolsModule, 'policy' | 'graphRules'>;
  readonly tasks: Iterable<Task>;
  readonly seedCounts: SeedCounts;
}

const WEEKDAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const DIFFICULTIES = ['easy', 'medium', 'hard'] as const;
const AUDIO_CONDITIONS = ['perfect', 'background_noise', 'bad_signal'] as const;

/** The opening marker of a block. */
export function blockStart(name: ReadmeBlockName): string {
  return `<!-- generated:${name} -->`;
}

/** The closing marker of a block. */
export function blockEnd(name: ReadmeBlockName): string {
  return `<!-- /generated:${name} -->`;
}

/** Session tools other than end_call: the pack's human-transfer tool, if any, per agent. */
function humanTransferOf(agent: Blueprint['agents'][number]): string | undefined {
  return agent.tools.find((t) => t.session && t.name !== END_CALL)?.name;
}

/** Mermaid flowchart of the specialist graph: start, handoffs, sinks and human transfers. */
export function renderGraphBlock(blueprint: Blueprint, sinks: readonly string[]): string {
  const entry = blueprint.agents[0]?.name ?? '';
  const lines = ['```mermaid', 'flowchart TD', '  call_start(["Call starts"])'];
  for (const agent of blueprint.agents) lines.push(`  ${agent.name}["${agent.name}"]`);
  lines.push(`  call_start --> ${entry}`);
  for (const agent of blueprint.agents) {
    for (const ref of agent.tools) if (ref.handoff && ref.handoff_to) lines.push(`  ${agent.name} -->|${ref.name}| ${ref.handoff_to}`);
  }
  if (sinks.length) lines.push('  call_ends(["Call ends"])');
  for (const sink of sinks) lines.push(`  ${sink} --> call_ends`);
  const humans = blueprint.agents.flatMap((a) => {
    const tool = humanTransferOf(a);
    return tool ? [{ agent: a.name, tool }] : [];
  });
  if (humans.length) lines.push('  human_staff[["Human staff"]]');
  for (const { agent, tool } of humans) lines.push(`  ${agent} -.->|${tool}| human_staff`);
  lines.push('```');
  return lines.join('\n');
}

const INCLUDED = 'the value itself is included';
/** Ordered rules: the first whose pattern matches the constant's name states its boundary. */
const BOUNDARY_RULES: readonly (readonly [RegExp, string])[] = [
  [/_time$/, 'time of day'],
  [/(^|_)notice(_|$)/, '`<` strictly less notice than the value triggers the rule; the value itself does not'],
  [/(^|_)lock(_|$)/, '`≥` reaching the value triggers the rule'],
  [/(^|_)(min|minimum|least|low|open)(_|$)/, `\`≥\` ${INCLUDED}`],
  [/(^|_)close(_|$)/, '`<` the rule ends at the value'],
  [/(^|_)(under|below)(_|$)/, '`<` strictly below the value'],
  [/(^|_)(over|above)(_|$)/, '`>` strictly above the value'],
  [/(^|_)(max|maximum|most|limit|within|cap|high|horizon|valid|per|span)(_|$)/, `\`≤\` ${INCLUDED}`],
  [/_(minutes|hours|days|business_days|months|years)$/, `\`≤\` within the value, ${INCLUDED}`],
];

/** The comparison a policy constant sets, read from the words of its name. */
export function policyBoundary(key: string): string {
  return BOUNDARY_RULES.find(([pattern]) => pattern.test(key))?.[1] ?? 'fixed value';
}

function formatCents(cents: number): string {
  const dollars = Math.trunc(Math.abs(cents) / 100).toLocaleString('en-US');
  const rest = Math.abs(cents) % 100;
  return `${cents < 0 ? '-' : ''}$${dollars}${rest ? `.${String(rest).padStart(2, '0')}` : ''}`;
}

/** A policy value as a reader says it: money in dollars, units from the name's suffix. */
export function formatPolicyValue(key: string, value: PackToolsModule['policy'][string]): string {
  if (Array.isArray(value)) return value.map((v) => formatPolicyValue(key, v)).join(', ');
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  if (typeof value === 'string') return value;
  if (typeof value !== 'number') return String(value);
  if (key.endsWith('_cents')) return formatCents(value);
  if (key.endsWith('weekday') && WEEKDAYS[value]) return `${value} (${WEEKDAYS[value]})`;
  if (key.endsWith('_hour')) return `${value}:00`;
  const unit = /_(minutes|hours|days|business_days|months|years|percent|pct|bps)$/.exec(key)?.[1];
  if (!unit) return String(value);
  if (unit === 'percent' || unit === 'pct') return `${value}%`;
  if (unit === 'bps') return `${value / 100}%`;
  const spoken = unit.replace('_', ' ');
  return `${value} ${value === 1 ? spoken.replace(/s$/, '') : spoken}`;
}

/** Markdown table of the pack's policy constants with the boundary each one sets. */
export function renderPolicyBlock(policy: PackToolsModule['policy']): string {
  const lines = ['| Constant | Value | Boundary |', '|---|---|---|'];
  for (const key of Object.keys(policy).sort()) {
    const value = policy[key];
    if (value === undefined) continue;
    lines.push(`| \`${key}\` | ${formatPolicyValue(key, value)} | ${policyBoundary(key)} |`);
  }
  return lines.join('\n');
}

/** Markdown table of row counts per table in the template database. */
export function renderSeedBlock(counts: SeedCounts): string {
  const names = Object.keys(counts).sort();
  const lines = ['| Table | Seed rows |', '|---|---|'];
  for (const name of names) lines.push(`| \`${name}\` | ${counts[name] ?? 0} |`);
  const total = names.reduce((sum, n) => sum + (counts[n] ?? 0), 0);
  lines.push(`| **total** | ${total} |`);
  return lines.join('\n');
}

/** Task counts per category, difficulty and audio condition. */
export interface TaskGrid {
  /** Categories in first-seen order after sorting tasks by id. */
  readonly categories: readonly { readonly category: string; readonly slug: string; readonly counts: Readonly<Record<string, number>> }[];
  readonly totals: Readonly<Record<string, number>>;
  readonly taskCount: number;
}

/** Counts tasks per category × difficulty and per category × audio condition. */
export function taskGrid(tasks: Iterable<Task>): TaskGrid {
  const sorted = [...tasks].sort((a, b) => (a.task_id < b.task_id ? -1 : a.task_id > b.task_id ? 1 : 0));
  const rows = new Map<string, { category: string; slug: string; counts: Record<string, number> }>();
  const totals: Record<string, number> = {};
  const bump = (counts: Record<string, number>, key: string): void => {
    counts[key] = (counts[key] ?? 0) + 1;
  };
  for (const task of sorted) {
    const { category, category_slug: slug, difficulty, audio_condition: audio } = task.metadata;
    const row = rows.get(category) ?? { category, slug, counts: {} };
    rows.set(category, row);
    for (const key of [difficulty, audio, 'total']) {
      bump(row.counts, key);
      bump(totals, key);
    }
  }
  const order = (c: string): string => (c === 'R' ? `~${c}` : c);
  const categories = [...rows.values()].sort((a, b) => (order(a.category) < order(b.category) ? -1 : 1));
  return { categories, totals, taskCount: sorted.length };
}

const GRID_COLUMNS = [...DIFFICULTIES, ...AUDIO_CONDITIONS, 'total'] as const;

/** The task grid as a Markdown table. */
export function renderTaskGridBlock(tasks: Iterable<Task>): string {
  const grid = taskGrid(tasks);
  const lines = [
    '| Category | Slug | Easy | Medium | Hard | Perfect | Background noise | Bad signal | Total |',
    '|---|---|---|---|---|---|---|---|---|',
  ];
  for (const row of grid.categories) {
    lines.push(`| ${row.category} | \`${row.slug}\` | ${GRID_COLUMNS.map((c) => row.counts[c] ?? 0).join(' | ')} |`);
  }
  lines.push(`| **all** | | ${GRID_COLUMNS.map((c) => grid.totals[c] ?? 0).join(' | ')} |`);
  return lines.join('\n');
}

/** All four blocks for a pack. */
export function renderReadmeBlocks(sources: ReadmeSources): ReadmeBlocks {
  return {
    graph: renderGraphBlock(sources.blueprint, sources.module.graphRules.sinks),
    policy: renderPolicyBlock(sources.module.policy),
    seed: renderSeedBlock(sources.seedCounts),
    tasks: renderTaskGridBlock(sources.tasks),
  };
}

function blockPattern(name: ReadmeBlockName): RegExp {
  return new RegExp(`${blockStart(name)}\\n([\\s\\S]*?)\\n?${blockEnd(name).replace('/', '\\/')}`);
}

/** The current content of each block in a README (undefined when its markers are missing). */
export function readReadmeBlocks(text: string): Partial<Record<ReadmeBlockName, string>> {
  const found: Partial<Record<ReadmeBlockName, string>> = {};
  for (const name of README_BLOCK_NAMES) {
    const match = blockPattern(name).exec(text);
    if (match) found[name] = match[1] ?? '';
  }
  return found;
}

/**
 * Rewrites every block in place. A block whose markers are missing is appended at the end
 * under a heading, so a new README picks up all four blocks on its first generation.
 */
export function rewriteReadmeBlocks(text: string, blocks: ReadmeBlocks): string {
  let out = text;
  for (const name of README_BLOCK_NAMES) {
    const wrapped = `${blockStart(name)}\n${blocks[name]}\n${blockEnd(name)}`;
    const pattern = blockPattern(name);
    out = pattern.test(out) ? out.replace(pattern, () => wrapped) : `${out.replace(/\n*$/, '\n\n')}${wrapped}\n`;
  }
  return out;
}
