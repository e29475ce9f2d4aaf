import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import Database from 'better-sqlite3';
import type { CallerMind, CallerTurn } from '../../src/caller/index.ts';
import { handoffToolTo, type RouteAction, type RouteStep } from '../../src/conversation/index.ts';
import { seededIds } from '../../src/core/index.ts';
import { runTextEpisode, type EpisodeResult, type EpisodeSpec, type HandoffMode, type TextPolicy } from '../../src/episodes/index.ts';
import { loadPack, type Pack, type Task } from '../../src/packs/index.ts';
import { interleave } from '../../src/scoring/index.ts';
import type { SnapshotPart } from '../../src/snapshot/index.ts';
import { CallDatabases, dumpDatabase, ensureTemplate, type DatabaseDump } from '../../src/store/index.ts';
import { ScriptedMind } from '../../src/caller/index.ts';

const REPO = resolve(import.meta.dirname, '../..');

/** The scored packs every episode test covers: found in packs/, not listed. */
export { SCORED_PACKS } from './scored-packs.ts';

/** A loaded pack with its own template and a scratch directory for episode databases. */
export interface EpisodePack {
  readonly pack: Pack;
  readonly databases: CallDatabases;
  readonly templateDump: DatabaseDump;
  /** Snapshots handed to `store`, by `<pack>/<id>`. */
  readonly stored: Map<string, ReadonlyMap<SnapshotPart, Buffer>>;
  close(): void;
}

const loaded = new Map<string, Promise<Pack>>();

/** Loads a pack once per test file. */
export function packOf(id: string): Promise<Pack> {
  let pack = loaded.get(id);
  if (!pack) {
    pack = loadPack(join(REPO, 'packs'), id, join(REPO, 'migrations'));
    loaded.set(id, pack);
  }
  return pack;
}

/** A pack ready for episodes: its template built in a temp dir, a databases folder, a store that keeps snapshots in memory. */
export async function episodePack(id: string): Promise<EpisodePack> {
  const pack = await packOf(id);
  const dir = mkdtempSync(join(tmpdir(), 'mivas-episodes-'));
  const template = ensureTemplate(join(dir, 'templates'), pack);
  const sqlite = new Database(template, { readonly: true });
  const templateDump = dumpDatabase(sqlite);
  sqlite.close();
  const databases = new CallDatabases(join(dir, 'calls'), template);
  return {
    pack,
    databases,
    templateDump,
    stored: new Map(),
    close() {
      databases.closeAll();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The first task (by id) with at least one hop and one expected call: the episode tests' default. */
export function routedTask(pack: Pack): Task {
  const task = [...pack.tasks.values()].sort((a, b) => (a.task_id < b.task_id ? -1 : 1)).find((t) => t.exp_handoff_path.length > 0 && t.exp_tool_calls.length > 0);
  if (!task) throw new Error(`pack ${pack.id} has no routed task`);
  return task;
}

/** Route actions as the steps a scripted policy replays (hops named by the declared edge). */
export function stepsOf(pack: Pack, actions: readonly RouteAction[], task: Task): RouteStep[] {
  let agent = pack.entryAgent;
  let index = 0;
  return actions.map((a): RouteStep => {
    if (a.kind === 'hop') {
      const step: RouteStep = { kind: 'hop', tool: handoffToolTo(pack, agent, a.to), from: agent, to: a.to };
      agent = a.to;
      return step;
    }
    const call = task.exp_tool_calls[index];
    if (!call || call.name !== a.name) throw new Error(`route action ${a.name} is not expected call #${index + 1}`);
    return { kind: 'call', index: index++, call, agent };
  });
}

/** A valid route one hop longer than the reference (the first extra hop that keeps every call reachable), or null. */
export function longerRoute(pack: Pack, task: Task): { steps: RouteStep[]; hops: number } | null {
  const path = task.exp_handoff_path;
  const hops = pack.blueprint.agents.map((a) => `transfer_to_${a.name}`).filter((h) => pack.catalog.get(h)?.kind === 'handoff');
  for (let j = 0; j <= path.length; j++) {
    for (const hop of hops) {
      const longer = [...path.slice(0, j), hop, ...path.slice(j)];
      const actions = interleave(pack, longer, task.exp_tool_calls);
      if (actions) return { steps: stepsOf(pack, actions, task), hops: longer.length };
    }
  }
  return null;
}

/** A caller that says its lines in order (the first one opens), then stays silent; hangs up after `hangUpAfter` replies. */
export class LinesMind implements CallerMind {
  readonly kind = 'scripted' as const;
  readonly heard: string[] = [];
  private next = 0;

  private readonly lines: readonly string[];
  private readonly hangUpAfter: number | null;

  constructor(
    lines: readonly string[],
    hangUpAfter: number | null = null,
  ) {
    this.lines = lines;
    this.hangUpAfter = hangUpAfter;
  }

  async open(): Promise<CallerTurn> {
    return { text: this.lines[this.next++] ?? null, hangUp: null };
  }

  async reply(agentText: string): Promise<CallerTurn> {
    this.heard.push(agentText);
    const text = this.lines[this.next++] ?? null;
    return { text, hangUp: this.hangUpAfter !== null && this.heard.length >= this.hangUpAfter ? 'closing_line' : null };
  }
}

let counter = 0;
const ids = seededIds('episode-rig');

/** Runs one episode of `task` with `policy` on a prepared pack. */
export function playEpisode(
  rig: EpisodePack,
  policy: TextPolicy,
  task: Task,
  options: { handoffMode?: HandoffMode; caller?: CallerMind; maxTurns?: number; id?: string } = {},
): Promise<EpisodeResult> {
  const spec: Omit<EpisodeSpec, 'policy' | 'model'> = {
    pack: rig.pack,
    task,
    id: options.id ?? `ep_${ids.hex(12)}_${counter++}`,
    databases: rig.databases,
    templateDump: rig.templateDump,
    caller: options.caller ?? new ScriptedMind(task),
    handoffMode: options.handoffMode ?? 'native',
    maxTurns: options.maxTurns ?? 60,
    epochMs: () => Date.UTC(2026, 9, 6, 14, 0, 0),
    store: (pack, id, parts) => rig.stored.set(`${pack}/${id}`, parts),
  };
  return runTextEpisode(policy, spec);
}
