import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { planRoute, routeActions, type RouteAction } from '../../src/conversation/index.ts';
import { listPackIds, loadPack, type Pack } from '../../src/packs/index.ts';
import { PACKS_DIR, writeSnapshotFiles } from './scoring-fixtures.ts';
import { replayWorkspace } from './scoring-replay.ts';

/**
 * A fixed corpus of snapshot sets from every pack, written as `mivas run` lays them out
 * (`<dir>/<pack>/<call_id>.<part>`): every task's reference route replayed through the engine,
 * `trials` times, with one trial in three left broken (its last action dropped) and the second
 * trial of every task in a second run (`run_bytes_b`, so runs can be scored apart), and a few sets
 * of every other kind the scorer reads (the final state only in the `.db`, no agent speech, a
 * summary that names another call, a missing timeline). Call ids are unique across packs, as
 * real ones are. Deterministic: the same arguments write
 * the same bytes.
 */
export interface CorpusCounts {
  readonly packs: number;
  readonly sets: number;
}

function trialRoute(actions: readonly RouteAction[], trial: number): readonly RouteAction[] {
  return trial % 3 === 2 ? actions.slice(0, -1) : actions;
}

function startedAt(trial: number, index: number): string {
  return new Date(Date.UTC(2026, 9, 5, 13, trial, index % 60)).toISOString();
}

/** The odd sets: one of each kind a scorer meets besides clean and broken routes. */
function writeOddSets(dir: string, pack: Pack, ws: ReturnType<typeof replayWorkspace>, taskId: string, actions: readonly RouteAction[]): number {
  const base = join(dir, pack.id);
  const dbOnly = ws.replay(actions, { callId: `${pack.id}_odd_dbonly`, taskId, runId: 'run_bytes' }, { started_at: startedAt(9, 1) });
  writeSnapshotFiles(dir, pack.id, `${pack.id}_odd_dbonly`, { summary: dbOnly.summary, events: dbOnly.events, db: dbOnly.db });
  const mute = ws.replay(actions, { callId: `${pack.id}_odd_mute`, taskId, runId: 'run_bytes', greet: false }, { started_at: startedAt(9, 2) });
  writeSnapshotFiles(dir, pack.id, `${pack.id}_odd_mute`, mute);
  const wrong = ws.replay(actions, { callId: `${pack.id}_odd_wrong`, taskId, runId: 'run_bytes' }, { started_at: startedAt(9, 3), call_id: 'someone_else' });
  writeSnapshotFiles(dir, pack.id, `${pack.id}_odd_wrong`, wrong);
  const cut = ws.replay(actions, { callId: `${pack.id}_odd_cut`, taskId, runId: 'run_bytes' }, { started_at: startedAt(9, 4) });
  writeSnapshotFiles(dir, pack.id, `${pack.id}_odd_cut`, { ...cut, events: null });
  const junk = ws.replay(actions, { callId: `${pack.id}_odd_junk`, taskId, runId: 'run_bytes' }, { started_at: startedAt(9, 5) });
  writeSnapshotFiles(dir, pack.id, `${pack.id}_odd_junk`, { ...junk, finalText: '{"not": "a dump"' });
  copyFileSync(join(base, `${pack.id}_odd_junk.summary.json`), join(base, `${pack.id}_odd_copy.summary.json`));
  writeFileSync(join(base, `${pack.id}_odd_lonely.final.json`), JSON.stringify(junk.final));
  return 7;
}

/** Writes the corpus under `dir` for every pack in `packs/` (or those named) and counts what it wrote. */
export async function writeScoreCorpus(dir: string, options: { trials: number; packs?: readonly string[] }): Promise<CorpusCounts> {
  const ids = options.packs ?? listPackIds(PACKS_DIR);
  let sets = 0;
  for (const id of ids) {
    const pack = await loadPack(PACKS_DIR, id);
    const ws = replayWorkspace(pack);
    try {
      const taskIds = [...pack.tasks.keys()].sort();
      taskIds.forEach((taskId, index) => {
        const task = pack.tasks.get(taskId);
        if (!task) return;
        const actions = routeActions(planRoute(pack, task).steps);
        for (let trial = 0; trial < options.trials; trial++) {
          const callId = `${pack.id}_${String(index).padStart(3, '0')}_t${trial}`;
          const runId = trial === 1 ? 'run_bytes_b' : 'run_bytes';
          const replayed = ws.replay(trialRoute(actions, trial), { callId, taskId, runId }, { started_at: startedAt(trial, index) });
          writeSnapshotFiles(dir, pack.id, callId, replayed);
          sets++;
        }
      });
      const first = taskIds[0];
      const task = first ? pack.tasks.get(first) : undefined;
      if (first && task) sets += writeOddSets(dir, pack, ws, first, routeActions(planRoute(pack, task).steps));
    } finally {
      ws.close();
    }
  }
  return { packs: ids.length, sets };
}

/** A temp directory holding the corpus; `remove()` deletes it. */
export async function scoreCorpusDir(options: { trials: number; packs?: readonly string[] }): Promise<{ dir: string; counts: CorpusCounts; remove(): void }> {
  const dir = mkdtempSync(join(tmpdir(), 'mivas-corpus-'));
  const counts = await writeScoreCorpus(dir, options);
  return { dir, counts, remove: () => rmSync(dir, { recursive: true, force: true }) };
}
