import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadPack, renderToolsJson, type Pack } from '../../../src/packs/index.ts';
import { CallDatabases, dumpDatabase, ensureTemplate } from '../../../src/store/index.ts';
import { replayReference } from '../../../src/conversation/index.ts';
import { readFileSync } from 'node:fs';

const PACKS_DIR = join(import.meta.dirname, '../../../packs');

describe('control-industry pack', () => {
  let pack: Pack;
  let dir: string;
  let dbs: CallDatabases;

  beforeAll(async () => {
    pack = await loadPack(PACKS_DIR, 'control-industry');
    dir = mkdtempSync(join(tmpdir(), 'mivas-control-'));
    dbs = new CallDatabases(join(dir, 'calls'), ensureTemplate(join(dir, 'templates'), pack));
  });
  afterAll(() => {
    dbs.closeAll();
    rmSync(dir, { recursive: true, force: true });
  });

  it('declares reception → scheduler with the three smoke tasks', () => {
    expect(pack.entryAgent).toBe('reception');
    expect(pack.catalog.get('transfer_to_scheduler')?.kind).toBe('handoff');
    expect(pack.catalog.get('book_appointment')?.kind).toBe('industry');
    expect([...pack.tasks.keys()]).toEqual(['S-E1', 'S-E2', 'S-E3']);
  });

  it('keeps tools.json equal to its regeneration', () => {
    expect(readFileSync(join(pack.dir, 'tools.json'), 'utf8')).toBe(renderToolsJson(pack));
  });

  it.each(['S-E1', 'S-E2', 'S-E3'])('replays %s to its declared outputs and expected state', (taskId) => {
    const task = pack.tasks.get(taskId);
    if (!task) throw new Error(`missing ${taskId}`);
    const replayed = replayReference(task, { pack, databases: dbs, callId: `replay_${taskId.replace('-', '_')}`, taskId });
    expect(replayed.problems).toEqual([]);
    expect(replayed.calls.map((e) => [e.event.name, e.output.ok])).toEqual(task.exp_tool_calls.map((c) => [c.name, c.output?.ok ?? true]));
    const rows = replayed.final.appointments?.map(({ id, date }) => ({ date, id }));
    expect(rows).toEqual(task.exp_db_state.appointments);
  });
});
