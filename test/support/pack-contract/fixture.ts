/**
 * The pack under test for the contract suites: assembled from its parts rather than through
 * loadPack, so one broken part fails its own items instead of the whole suite; optionally with a
 * built template database, call databases, a value pool, and helpers that run and replay tools.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll } from 'vitest';
import { sha256Parts } from '../../../src/core/index.ts';
import {
  buildCatalog,
  comparePolicySchema,
  createPackClock,
  hasGate,
  readPackDefinition,
  taskSchema,
  type CatalogTool,
  type Pack,
  type PackDb,
  type PackSeed,
  type Task,
} from '../../../src/packs/index.ts';
import { buildDatabase, CallDatabases, dumpDatabase, type CallDatabase, type DatabaseDump } from '../../../src/store/index.ts';
import { CarryForward, planRoute } from '../../../src/conversation/index.ts';
import { executeTool, type ToolExecution } from '../../../src/tools/index.ts';
import { dispatchable, filesUnder } from './pack-facts.ts';
import { validArgs, type ValuePool } from './schema-walk.ts';

/** The repository root. */
export const ROOT = join(import.meta.dirname, '../../..');

/** The folder holding one folder per pack. */
export const PACKS_DIR = join(ROOT, 'packs');

/** Every pack id, that is every folder in packs/, sorted. */
export const PACK_IDS: readonly string[] = readdirSync(PACKS_DIR).filter((n) => statSync(join(PACKS_DIR, n)).isDirectory()).sort();

/** The wiring pack is exempt from the scored-pack-only rules (72 tasks, prompt length, human transfer). */
export const UNSCORED: ReadonlySet<string> = new Set(['control-industry']);

/** A pack assembled from its parts, with the problems met while reading its tasks. */
export interface LoadedPack {
  readonly id: string;
  readonly scored: boolean;
  readonly pack: Pack;
  readonly taskProblems: readonly string[];
}

/** A loaded pack plus its built template, a store of call databases and the seed's value pool. */
export interface PackFixture extends LoadedPack {
  readonly work: string;
  readonly templateFile: string;
  readonly dbs: CallDatabases;
  readonly template: DatabaseDump;
  readonly pool: ValuePool;
}

function readTasks(dir: string): { tasks: Map<string, Task>; problems: string[] } {
  const tasks = new Map<string, Task>();
  const problems: string[] = [];
  const tasksDir = join(dir, 'tasks');
  for (const name of existsSync(tasksDir) ? readdirSync(tasksDir).sort() : []) {
    if (!name.endsWith('.json')) {
      problems.push(`${name}: not a .json task file`);
      continue;
    }
    const parsed = taskSchema.safeParse(JSON.parse(readFileSync(join(tasksDir, name), 'utf8')));
    if (!parsed.success) problems.push(`${name}: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
    else if (`${parsed.data.task_id}.json` !== name) problems.push(`${name}: task_id ${parsed.data.task_id} does not match the file name`);
    else tasks.set(parsed.data.task_id, parsed.data);
  }
  return { tasks, problems };
}

async function readSeed(dir: string): Promise<PackSeed> {
  if (existsSync(join(dir, 'seed.sql'))) return { kind: 'sql', sql: readFileSync(join(dir, 'seed.sql'), 'utf8') };
  const mod: { seed?: (db: PackDb) => void } = await import(pathToFileURL(join(dir, 'seed.ts')).href);
  const run = mod.seed;
  if (typeof run !== 'function') throw new Error('seed.ts must export seed(db)');
  return { kind: 'ts', run };
}

function valuePool(dump: DatabaseDump, today: string): ValuePool {
  const byColumn = new Map<string, string[]>();
  for (const rows of Object.values(dump)) {
    for (const row of rows) {
      for (const [col, v] of Object.entries(row)) if (typeof v === 'string') byColumn.set(col, [...(byColumn.get(col) ?? []), v]);
    }
  }
  return { byColumn, all: [...new Set([...byColumn.values()].flat())], today };
}

/** Assembles a pack from its folder without building any database. */
export async function loadPack(id: string): Promise<LoadedPack> {
  const def = await readPackDefinition(PACKS_DIR, id);
  const { dir, blueprint, module } = def;
  const catalog = buildCatalog(blueprint, module.tools, module.graphRules.gates).tools;
  const prompts = new Map(blueprint.agents.flatMap((a) => (existsSync(join(dir, a.system_prompt)) ? [[a.name, readFileSync(join(dir, a.system_prompt), 'utf8')] as const] : [])));
  const compare = comparePolicySchema.parse(JSON.parse(readFileSync(join(dir, 'compare.json'), 'utf8')));
  const { tasks, problems } = readTasks(dir);
  const migrationsDir = join(ROOT, 'migrations', id);
  const seedFiles = ['seed.sql', 'seed.ts'].map((f) => join(dir, f)).filter(existsSync);
  const templateHash = sha256Parts([...filesUnder(migrationsDir), ...seedFiles].map((f) => readFileSync(f))).slice(0, 16);
  const pack: Pack = {
    id, dir, blueprint, entryAgent: blueprint.agents[0]?.name ?? '', prompts, catalog, module, clock: createPackClock(module.clock),
    compare, tasks, migrationsDir, seed: await readSeed(dir), templateHash, packVersion: 'contract-suite',
  };
  return { id, scored: !UNSCORED.has(id), pack, taskProblems: problems };
}

/** Builds a loaded pack's template in a fresh temporary folder and dumps it through a probe call. */
export function buildTemplate(loaded: LoadedPack): PackFixture {
  const { id, pack } = loaded;
  const work = mkdtempSync(join(tmpdir(), `mivas-contract-${id}-`));
  const templateFile = join(work, 'template.db');
  buildDatabase(pack, templateFile);
  const dbs = new CallDatabases(join(work, 'calls'), templateFile);
  const probe = dbs.create('template_probe');
  const template = dumpDatabase(probe.sqlite);
  dbs.remove('template_probe');
  return { ...loaded, work, templateFile, dbs, template, pool: valuePool(template, pack.clock.today()) };
}

function useFixture<T>(id: string, setup: (id: string) => Promise<T>, teardown: (fixture: T) => void): () => T {
  let fixture: T | undefined;
  let setupError: unknown;
  beforeAll(async () => {
    try {
      fixture = await setup(id);
    } catch (err) {
      setupError = err;
    }
  });
  afterAll(() => {
    if (fixture) teardown(fixture);
  });
  return () => {
    if (!fixture) throw new Error(`pack ${id} could not be assembled: ${setupError instanceof Error ? setupError.message : String(setupError)}`);
    return fixture;
  };
}

/** Loads the pack in beforeAll (no template); the getter throws the setup error in the test that needs it. */
export function usePack(id: string): () => LoadedPack {
  return useFixture(id, loadPack, () => undefined);
}

/** Loads the pack and builds its template in beforeAll, cleans up in afterAll; the getter throws the setup error. */
export function usePackWithTemplate(id: string): () => PackFixture {
  return useFixture(
    id,
    async (packId) => buildTemplate(await loadPack(packId)),
    (fixture) => {
      fixture.dbs.closeAll();
      rmSync(fixture.work, { recursive: true, force: true });
    },
  );
}

/** Runs a task's expected calls in route order, stopping when `stop` says so; returns the executions. */
export function replayCalls(pack: Pack, task: Task, database: CallDatabase, stop: (db: CallDatabase, execution: ToolExecution) => boolean): ToolExecution[] {
  const carry = new CarryForward();
  const out: ToolExecution[] = [];
  for (const step of planRoute(pack, task).steps) {
    if (step.kind !== 'call') continue;
    const tool = pack.catalog.get(step.call.name);
    if (!tool) continue;
    const execution = executeTool({ pack, callId: 'contract', database, nowMs: () => 0 }, step.agent, tool, carry.argumentsFor(pack, step.call));
    carry.record(pack, execution);
    out.push(execution);
    if (stop(database, execution)) break;
  }
  return out;
}

/** Fresh call databases and tool runs against one fixture, numbered per suite. */
export interface CallRunner {
  /** A new call database copied from the template. */
  freshDb(): CallDatabase;
  /** Runs a tool as the agent that owns it. */
  run(db: CallDatabase, tool: CatalogTool, args: unknown): ToolExecution;
  /** The gates that guard any dispatchable tool. */
  gates(): string[];
  /** A call database in which every gate is open, reached by replaying a task prefix; undefined when no task opens them. */
  verifiedDb(): CallDatabase | undefined;
}

/** Makes the call runner of one suite over the fixture its getter returns. */
export function createCallRunner(fx: () => PackFixture): CallRunner {
  let calls = 0;
  const freshDb = (): CallDatabase => fx().dbs.create(`c${++calls}`);
  const gates = (): string[] => [...new Set(dispatchable(fx().pack).flatMap((t) => (t.definition?.gate ? [t.definition.gate] : [])))];
  const ownerOf = (tool: string): string => fx().pack.blueprint.agents.find((a) => a.tools.some((t) => t.name === tool))?.name ?? '';
  const run = (db: CallDatabase, tool: CatalogTool, args: unknown): ToolExecution =>
    executeTool({ pack: fx().pack, callId: 'contract', database: db, nowMs: () => 0 }, ownerOf(tool.name), tool, args);
  const verifiedDb = (): CallDatabase | undefined => {
    const open = gates();
    if (!open.length) return undefined;
    const isOpen = (db: CallDatabase): boolean => open.every((g) => hasGate(db.db, g));
    for (const task of fx().pack.tasks.values()) {
      const db = freshDb();
      replayCalls(fx().pack, task, db, isOpen);
      if (isOpen(db)) return db;
    }
    // No task opens the gates yet: try the ungated reads with seed-built arguments (a verify tool given the first seeded person).
    const db = freshDb();
    for (const tool of dispatchable(fx().pack).filter((t) => t.definition?.effect === 'read' && !t.definition.gate)) {
      const args = validArgs(tool, fx().pool);
      if (args) run(db, tool, args);
      if (isOpen(db)) return db;
    }
    return undefined;
  };
  return { freshDb, run, gates, verifiedDb };
}
