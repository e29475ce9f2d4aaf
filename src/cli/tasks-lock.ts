import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { EXIT } from '../core/index.ts';
import { effectivePolicy, loadPack, projectState, type Pack, type Task } from '../packs/index.ts';
import { replayReference } from '../conversation/index.ts';
import { CallDatabases, ensureTemplate } from '../store/index.ts';
import type { Command } from './io.ts';
import { rewriteJsonField } from './packs-command.ts';

/**
 * Replays one task's reference route through the conversation engine on a fresh database and
 * returns the projected state and every way the replay departed from the task (a refused hop or
 * call, an output other than declared).
 */
export function lockTask(pack: Pack, task: Task, dbs: CallDatabases): { state: Record<string, Record<string, unknown>[]>; mismatches: string[] } {
  const callId = `lock_${task.task_id.replaceAll('-', '_')}`;
  try {
    const replayed = replayReference(task, { pack, databases: dbs, callId, taskId: task.task_id });
    const outputs = replayed.calls.map((r) => r.output as { ok?: unknown; error_code?: unknown });
    const mismatches = [...replayed.problems, ...task.exp_tool_calls.flatMap((call, i) => {
      const got = outputs[i];
      const want = call.output ?? { ok: true };
      if (!got) return [`#${i + 1} ${call.name}: not executed`];
      if (got.ok !== want.ok || (want.error_code && got.error_code !== want.error_code)) {
        return [`#${i + 1} ${call.name}: declared ok=${want.ok}${want.error_code ? ` ${want.error_code}` : ''}, got ok=${got.ok} ${got.error_code ?? ''}`.trim()];
      }
      return [];
    })];
    return { state: projectState(replayed.final, effectivePolicy(pack.compare, task.compare)), mismatches };
  } finally {
    dbs.remove(callId);
  }
}

/** `mivas tasks lock --pack P [--task ID]`: fills exp_db_state only from a replay that matched the task; exits 1 on any mismatch. */
export const tasksLockCommand: Command = async (argv, io) => {
  const { values } = parseArgs({ args: [...argv], options: { pack: { type: 'string' }, task: { type: 'string' }, 'packs-dir': { type: 'string', default: 'packs' } } });
  if (!values.pack) {
    io.stderr.write('usage: mivas tasks lock --pack P [--task ID]\n');
    return EXIT.usage;
  }
  const packsDir = resolve(io.cwd, values['packs-dir'] ?? 'packs');
  const pack = await loadPack(packsDir, values.pack);
  const work = mkdtempSync(join(tmpdir(), 'mivas-lock-'));
  let failed = 0;
  try {
    const dbs = new CallDatabases(join(work, 'calls'), ensureTemplate(join(work, 'templates'), pack));
    for (const task of pack.tasks.values()) {
      if (values.task && task.task_id !== values.task) continue;
      const { state, mismatches } = lockTask(pack, task, dbs);
      if (mismatches.length) {
        failed++;
        io.stdout.write(`${task.task_id}: NOT locked (exp_db_state left as it was): ${mismatches.join('; ')}\n`);
        continue;
      }
      rewriteJsonField(join(pack.dir, 'tasks', `${task.task_id}.json`), 'exp_db_state', state);
      io.stdout.write(`${task.task_id}: locked\n`);
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  return failed ? EXIT.checkFailed : EXIT.ok;
};
