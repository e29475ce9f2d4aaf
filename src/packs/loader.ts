import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { z } from 'zod';
import { canonicalJson, PackError, sha256Parts } from '../core/index.ts';
import { buildCatalog, END_CALL, toolsJson, type CatalogTool } from './catalog.ts';
import { checkGraph } from './graph-checks.ts';
import { createPackClock, type PackClock } from './pack-clock.ts';
import { blueprintSchema, comparePolicySchema, taskSchema, type Blueprint, type ComparePolicy, type Task } from './schema.ts';
import type { PackDb, PackToolsModule } from './tool-kit.ts';

/** How a pack seeds its template database. */
export type PackSeed = { readonly kind: 'sql'; readonly sql: string } | { readonly kind: 'ts'; readonly run: (db: PackDb) => void };

/** A loaded, cross-checked pack. */
export interface Pack {
  readonly id: string;
  readonly dir: string;
  readonly blueprint: Blueprint;
  readonly entryAgent: string;
  readonly prompts: ReadonlyMap<string, string>;
  readonly catalog: ReadonlyMap<string, CatalogTool>;
  readonly module: PackToolsModule;
  readonly clock: PackClock;
  readonly compare: ComparePolicy;
  readonly tasks: ReadonlyMap<string, Task>;
  readonly migrationsDir: string;
  readonly seed: PackSeed;
  /** Hash of the migrations and seed: names the template database. */
  readonly templateHash: string;
  /** Hash of everything that defines behaviour (tasks, compare.json and README excluded). */
  readonly packVersion: string;
}

const ALLOWED_ENTRIES = new Set(['README.md', 'blueprint.json', 'prompts', 'tools.ts', 'lib', 'tools.json', 'schema.ts', 'seed.sql', 'seed.ts', 'compare.json', 'tasks']);

function describeIssues(file: string, error: z.ZodError): string[] {
  return error.issues.map((issue) => `${file}: ${issue.path.length ? issue.path.join('.') : '(root)'}: ${issue.message}`);
}

function readJson(file: string, problems: string[]): unknown {
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    problems.push(`${file}: ${err instanceof Error ? err.message : 'unreadable'}`);
    return undefined;
  }
}

function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .sort()
    .flatMap((name) => {
      const full = join(dir, name);
      return statSync(full).isDirectory() ? filesUnder(full) : [full];
    });
}

function hashFiles(root: string, files: readonly string[]): string {
  return sha256Parts(files.flatMap((f) => [relative(root, f), readFileSync(f)]));
}

function loadPrompts(dir: string, blueprint: Blueprint, problems: string[]): Map<string, string> {
  const prompts = new Map<string, string>();
  for (const agent of blueprint.agents) {
    const expected = `prompts/${agent.name}.md`;
    if (agent.system_prompt !== expected) problems.push(`blueprint.json: agents[${agent.name}].system_prompt: must be ${expected}`);
    const file = join(dir, agent.system_prompt);
    if (!existsSync(file)) problems.push(`blueprint.json: agents[${agent.name}].system_prompt: ${agent.system_prompt} does not exist`);
    else prompts.set(agent.name, readFileSync(file, 'utf8'));
  }
  const referenced = new Set(blueprint.agents.map((a) => a.system_prompt));
  for (const name of existsSync(join(dir, 'prompts')) ? readdirSync(join(dir, 'prompts')) : []) {
    if (!referenced.has(`prompts/${name}`)) problems.push(`prompts/${name}: not referenced by any agent`);
  }
  return prompts;
}

function loadTasks(dir: string, problems: string[]): Map<string, Task> {
  const tasks = new Map<string, Task>();
  const tasksDir = join(dir, 'tasks');
  for (const name of existsSync(tasksDir) ? readdirSync(tasksDir).sort() : []) {
    const file = `tasks/${name}`;
    if (!name.endsWith('.json')) {
      problems.push(`${file}: only .json task files belong in tasks/`);
      continue;
    }
    const parsed = taskSchema.safeParse(readJson(join(tasksDir, name), problems));
    if (!parsed.success) problems.push(...describeIssues(file, parsed.error));
    else if (`${parsed.data.task_id}.json` !== name) problems.push(`${file}: task_id ${parsed.data.task_id} does not match the file name`);
    else tasks.set(parsed.data.task_id, parsed.data);
  }
  return tasks;
}

async function loadToolsModule(dir: string, problems: string[]): Promise<PackToolsModule | undefined> {
  const file = join(dir, 'tools.ts');
  if (!existsSync(file)) {
    problems.push('tools.ts: missing');
    return undefined;
  }
  const mod: Partial<PackToolsModule> = await import(pathToFileURL(file).href);
  const missing = (['tools', 'clock', 'policy', 'graphRules', 'errorCodes'] as const).filter((k) => mod[k] === undefined);
  if (missing.length) {
    problems.push(`tools.ts: missing exports ${missing.join(', ')}`);
    return undefined;
  }
  return mod as PackToolsModule;
}

async function loadSeed(dir: string, problems: string[]): Promise<PackSeed | undefined> {
  const sqlFile = join(dir, 'seed.sql');
  const tsFile = join(dir, 'seed.ts');
  if (existsSync(sqlFile) === existsSync(tsFile)) {
    problems.push('seed: exactly one of seed.sql and seed.ts must exist');
    return undefined;
  }
  if (existsSync(sqlFile)) return { kind: 'sql', sql: readFileSync(sqlFile, 'utf8') };
  const mod: { seed?: (db: PackDb) => void } = await import(pathToFileURL(tsFile).href);
  if (typeof mod.seed !== 'function') {
    problems.push('seed.ts: must export function seed(db)');
    return undefined;
  }
  return { kind: 'ts', run: mod.seed };
}

function checkEntries(dir: string, problems: string[]): void {
  for (const name of readdirSync(dir)) {
    if (!ALLOWED_ENTRIES.has(name)) problems.push(`${name}: not allowed in a pack folder`);
  }
}

/** Loads and cross-checks packs/<id>; throws a PackError listing every problem with file and field. */
export async function loadPack(packsDir: string, id: string, migrationsRoot = resolve(packsDir, '..', 'migrations')): Promise<Pack> {
  const dir = resolve(packsDir, id);
  if (!existsSync(join(dir, 'blueprint.json'))) {
    const known = existsSync(packsDir) ? listPackIds(packsDir) : [];
    throw new PackError('PACK_NOT_FOUND', `pack "${id}" not found under ${packsDir}${known.length ? `; the packs there: ${known.join(', ')}` : ''}`);
  }
  const problems: string[] = [];
  checkEntries(dir, problems);
  const blueprintParse = blueprintSchema.safeParse(readJson(join(dir, 'blueprint.json'), problems));
  if (!blueprintParse.success) problems.push(...describeIssues('blueprint.json', blueprintParse.error));
  const compareParse = comparePolicySchema.safeParse(readJson(join(dir, 'compare.json'), problems));
  if (!compareParse.success) problems.push(...describeIssues('compare.json', compareParse.error));
  const module = await loadToolsModule(dir, problems);
  const seed = await loadSeed(dir, problems);
  const tasks = loadTasks(dir, problems);
  if (!blueprintParse.success || !compareParse.success || !module || !seed) throw packError(id, problems);

  const blueprint = blueprintParse.data;
  const prompts = loadPrompts(dir, blueprint, problems);
  const { tools: catalog, problems: catalogProblems } = buildCatalog(blueprint, module.tools, module.graphRules.gates);
  problems.push(...catalogProblems, ...checkGraph(blueprint, module.graphRules));
  for (const agent of blueprint.agents) {
    if (!agent.tools.some((t) => t.name === END_CALL)) problems.push(`blueprint.json: agents[${agent.name}].tools: end_call is missing`);
  }
  checkToolsJson(dir, catalog, problems);
  const migrationsDir = join(migrationsRoot, id);
  if (!existsSync(join(migrationsDir, 'meta', '_journal.json'))) problems.push(`migrations/${id}: no drizzle-kit output (meta/_journal.json)`);
  if (problems.length) throw packError(id, problems);

  const seedFiles = [join(dir, 'seed.sql'), join(dir, 'seed.ts')].filter(existsSync);
  const migrationFiles = filesUnder(migrationsDir);
  const templateHash = hashFiles(resolve(dir, '..', '..'), [...migrationFiles, ...seedFiles]);
  const versionFiles = [
    join(dir, 'blueprint.json'),
    ...filesUnder(join(dir, 'prompts')),
    join(dir, 'tools.ts'),
    ...filesUnder(join(dir, 'lib')),
    join(dir, 'tools.json'),
    join(dir, 'schema.ts'),
    ...migrationFiles,
    ...seedFiles,
  ];
  const packVersion = hashFiles(resolve(dir, '..', '..'), versionFiles);
  return {
    id,
    dir,
    blueprint,
    entryAgent: blueprint.agents[0]?.name ?? '',
    prompts,
    catalog,
    module,
    clock: createPackClock(module.clock),
    compare: compareParse.data,
    tasks,
    migrationsDir,
    seed,
    templateHash: templateHash.slice(0, 16),
    packVersion: packVersion.slice(0, 16),
  };
}

function checkToolsJson(dir: string, catalog: ReadonlyMap<string, CatalogTool>, problems: string[]): void {
  const file = join(dir, 'tools.json');
  if (!existsSync(file)) {
    problems.push('tools.json: missing; run `mivas packs generate`');
    return;
  }
  const onDisk = readJson(file, problems);
  if (onDisk !== undefined && canonicalJson(onDisk) !== canonicalJson(toolsJson(catalog))) {
    problems.push('tools.json: differs from its regeneration; run `mivas packs generate`');
  }
}

function packError(id: string, problems: readonly string[]): PackError {
  return new PackError('PACK_INVALID', `pack "${id}" is invalid:\n  - ${problems.join('\n  - ')}`);
}

/** The parts of a pack that generators need, read without the cross-checks (tools.json may be stale). */
export async function readPackDefinition(packsDir: string, id: string): Promise<Pick<Pack, 'id' | 'dir' | 'blueprint' | 'module'>> {
  const dir = resolve(packsDir, id);
  const problems: string[] = [];
  const parsed = blueprintSchema.safeParse(readJson(join(dir, 'blueprint.json'), problems));
  if (!parsed.success) problems.push(...describeIssues('blueprint.json', parsed.error));
  const module = await loadToolsModule(dir, problems);
  if (!parsed.success || !module) throw packError(id, problems);
  return { id, dir, blueprint: parsed.data, module };
}

/** The pack ids present under a packs folder. */
export function listPackIds(packsDir: string): string[] {
  return readdirSync(packsDir)
    .filter((name) => existsSync(join(packsDir, name, 'blueprint.json')))
    .sort();
}

/** The tools an agent may call, in blueprint order. */
export function toolsOfAgent(pack: Pack, agent: string): CatalogTool[] {
  const def = pack.blueprint.agents.find((a) => a.name === agent);
  return (def?.tools ?? []).flatMap((ref) => {
    const tool = pack.catalog.get(ref.name);
    return tool ? [tool] : [];
  });
}

/** True when the agent lists the tool in the blueprint. */
export function agentOwnsTool(pack: Pack, agent: string, tool: string): boolean {
  return pack.blueprint.agents.some((a) => a.name === agent && a.tools.some((t) => t.name === tool));
}
