import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { createSpeechSynth } from '../audio/index.ts';
import { dialOpeningLine, dialPrepared, prepareCaller } from '../caller/index.ts';
import { EXIT, exitCodeOf, mintId, randomIds } from '../core/index.ts';
import { loadPack } from '../packs/index.ts';
import { callerFileSchema, callerPartKey } from '../snapshot/index.ts';
import { CALLER_FLAG_OPTIONS, CALLER_USAGE, callerSettingsFrom, callerSinkOf } from './caller-flags.ts';
import { configFromFlags } from './config-flags.ts';
import type { Command } from './io.ts';

export const USAGE = `usage: mivas call --url ws://HOST:PORT/ --task ID [--pack P] [--id CALL_ID] [--say TEXT] [--user U --pass P] [--fast] [--timeout-s 300]
                  [--caller scripted|llm|external|replay] [caller flags below]
Dials one call as the local caller; the server's harness does the rest. With --caller scripted and
no --task it says --say (or a plain hello) and waits; every other caller is built from the task
(--pack, default MIVAS_PACK) and writes its caller.json to the snapshot store (MIVAS_SNAPSHOT_*).

${CALLER_USAGE}`;

/** `mivas call`: one local CHIRP call against a running server. */
export const callCommand: Command = async (argv, io) => {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      url: { type: 'string' },
      task: { type: 'string' },
      pack: { type: 'string' },
      id: { type: 'string' },
      say: { type: 'string' },
      user: { type: 'string' },
      pass: { type: 'string' },
      fast: { type: 'boolean', default: false },
      'timeout-s': { type: 'string', default: '300' },
      ...CALLER_FLAG_OPTIONS,
      help: { type: 'boolean' },
    },
  });
  if (values.help || !values.url) {
    io.stderr.write(`${USAGE}\n`);
    return values.help ? EXIT.ok : exitCodeOf('USAGE');
  }
  const ids = randomIds();
  const callId = values.id ?? mintId(ids, 'local');
  const auth = values.user && values.pass ? { user: values.user, pass: values.pass } : null;
  const timeoutMs = Number(values['timeout-s']) * 1000;
  const kind = values.caller ?? 'scripted';
  if (kind === 'scripted' && (!values.task || values.say)) {
    const report = await dialOpeningLine({
      url: values.url,
      callId,
      taskId: values.task ?? null,
      runId: null,
      auth,
      openingLine: values.say ?? 'Hello, I need some help please.',
      synth: await createSpeechSynth(16_000),
      paced: !values.fast,
      timeoutMs,
      ids,
    });
    io.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
    if (report.refusedStatus) io.stderr.write(`mivas call: refused with HTTP ${report.refusedStatus}${report.refusedReason ? `: ${report.refusedReason}` : ''}\n`);
    if (report.refusedStatus) return EXIT.checkFailed;
    return report.closeCode === 1000 && !report.timedOut ? EXIT.ok : EXIT.incomplete;
  }
  if (!values.task) {
    io.stderr.write(`--caller ${kind} needs --task ID (the caller is built from the task)\n${USAGE}\n`);
    return exitCodeOf('USAGE');
  }
  const config = configFromFlags(io, values.pack ? { MIVAS_PACK: values.pack } : {});
  if (!config) return exitCodeOf('CONFIG_INVALID');
  const pack = await loadPack(resolve(io.cwd, config.packsDir), config.pack, resolve(io.cwd, config.migrationsDir));
  const task = pack.tasks.get(values.task);
  if (!task) {
    io.stderr.write(`unknown task id for pack ${pack.id}: ${values.task}\n`);
    return exitCodeOf('TASK_NOT_FOUND');
  }
  const callerValues = Object.fromEntries(Object.keys(CALLER_FLAG_OPTIONS).map((k) => [k, values[k as keyof typeof CALLER_FLAG_OPTIONS]]));
  const settings = await callerSettingsFrom(callerValues, config, io);
  const caller = prepareCaller(settings, task, 1);
  const report = await dialPrepared(caller, { url: values.url, callId, taskId: task.task_id, runId: null, auth, paced: !values.fast, timeoutMs, ids });
  if (report.refusedStatus === null) {
    const file = callerFileSchema.parse(caller.record(report, { callId, runId: null, trial: 1 }));
    await callerSinkOf(config, io.cwd).put(callerPartKey(pack.id, callId), Buffer.from(`${JSON.stringify(file, null, 1)}\n`));
  }
  io.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  if (report.refusedStatus) io.stderr.write(`mivas call: refused with HTTP ${report.refusedStatus}${report.refusedReason ? `: ${report.refusedReason}` : ''}\n`);
  if (report.refusedStatus) return EXIT.checkFailed;
  return report.closeCode === 1000 && !report.timedOut ? EXIT.ok : EXIT.incomplete;
};
