import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { createSpeechSynth } from '../audio/index.ts';
import { parseShard, planCalls, runCalls, shardCalls, type CallerReport, type CallerSettings, type ConversationReport, type PlannedCall, type Shard } from '../caller/index.ts';
import { EXIT, exitCodeOf, mintId, randomIds } from '../core/index.ts';
import { loadPack, type Pack } from '../packs/index.ts';
import { buildApp, createAppContext, createSink } from '../server/index.ts';
import { callerFileSchema, callerPartKey, emptyCallerUsage, snapshotKey, summarySchema, type CallerFile, type CallerUsage, type SnapshotSink, type Summary } from '../snapshot/index.ts';
import { CALLER_FLAG_OPTIONS, CALLER_USAGE, callerSettingsFrom, callerSinkOf } from './caller-flags.ts';
import { configFromFlags } from './config-flags.ts';
import { openSource, scoreCommand } from './score-command.ts';
import { writeReport } from './report-command.ts';
import { failWith, usageProblem, type CliIO, type Command } from './io.ts';
import { toolGate } from './preflight-command.ts';
import { ProgressBar, renderTable } from './progress.ts';
import { runTextEpisodes } from './text-run.ts';
import { EXIT_INTERRUPTED, watchInterrupt } from './interrupt.ts';
import { voidsOfRun, type RerunJob } from './rerun-voids.ts';
import { missingTrials, readRunRecord, runRecordPath, spooledSets, writeRunRecord } from './resume.ts';
import { loadConfig } from '../config.ts';

export const USAGE = `usage: mivas run --pack P --harness H [--trials 5] [--concurrency N] [--fast] [--task ID]... [--url ws://HOST:PORT/] [--user U --pass P] [--allow-no-tools]
                 [--caller scripted|llm|external|replay] [--shard I/N --run-id RUN] [--resume RUN] [--rerun-voids RUN] [caller flags below]
       mivas run --mode text --pack P --harness text/scripted|text/noop|text/openai-chat [--caller scripted] [--handoff native|soft] [--trials 5] [--concurrency N] [--task ID]...

Dials every task of the pack K times as the local caller (ids loc_<12 hex>, one run id run_<12 hex>).
Without --url it starts the server in-process on a loopback port with the given pack and harness.
--fast unpaces the caller and the in-process server's pacer (local runs only).
A realtime harness whose last \`mivas preflight\` found no function calling is refused unless --allow-no-tools.
--shard I/N dials only the calls at positions I, I+N, I+2N... of the run's plan (0 <= I < N), so N
  shards (a Kubernetes Indexed Job, k8s/caller-job.yaml) dial each (task, trial) once; give every
  shard the same --run-id so \`mivas score --run\` merges them from the snapshot store.

--mode text runs each task × trial as a text episode in this process instead (no audio; ids
ep_<12 hex>): the policy harness plays the agent, the caller answers in text, and the snapshots
are scored like calls. text/openai-chat reads MIVAS_POLICY_BASE_URL, MIVAS_POLICY_MODEL and
MIVAS_POLICY_API_KEY (docs/rl.md).

--resume RUN finishes a run: it first flushes the snapshots a killed run left in the local spool
(MIVAS_DATA_DIR/spool), then plays exactly the task × trials the run lacks (never played, VOID, or
lost in a crash) under the same run id, and scores the whole run. The plan (pack, harness, mode,
trials, tasks, --fast) comes from MIVAS_DATA_DIR/runs/RUN.json, written when the run started; a run
without one needs --pack, --harness and --trials.
--rerun-voids RUN plays again only the VOID conversations of an earlier run (read from the scores it
wrote under MIVAS_DATA_DIR/scores/RUN), under the same run id, so scoring RUN counts the new ones
(voids are never scored trials; they stay in the run's void counts).

Ctrl-C once: no new call or episode starts, the ones in flight finish, and what ran is reported and
scored (exit 130); Ctrl-C twice: exit 130 at once. Otherwise the exit is the score's (docs/scoring.md).

${CALLER_USAGE}`;

/** The k a run's score uses: pass^5 as usual, or the trials given when there are fewer (pass^5 of 2 trials is undefined). */
export function passK(trials: number): number {
  return Math.max(1, Math.min(5, trials));
}

interface RunFlags {
  pack: string;
  harness: string;
  trials: number;
  concurrency: number;
  fast: boolean;
  tasks: string[];
  url: string | undefined;
  auth: { user: string; pass: string } | null;
  allowNoTools: boolean;
  shard: Shard | null;
  runId: string | undefined;
  /** --rerun-voids: runId names an earlier run whose VOID conversations are played again. */
  rerunVoids: boolean;
  /** --resume: runId names an earlier run whose missing trials (never played, VOID, lost) are played. */
  resume: boolean;
  trialsGiven: boolean;
  modeGiven: boolean;
  callerValues: Record<string, string | boolean | undefined>;
  mode: 'voice' | 'text';
  caller: string;
  handoff: string;
}

const RUN_ID = /^run_[A-Za-z0-9_-]{1,60}$/;

/** The first problem with the flag values, named with its flag and reason; null when they are usable. */
function flagProblem(values: Record<string, unknown>, resuming: boolean): string | null {
  const wholeAtLeastOne = (name: string): string | null => {
    const v = values[name];
    return v === undefined || (Number.isInteger(Number(v)) && Number(v) >= 1) ? null : `--${name} takes a whole number of at least 1 (got ${JSON.stringify(v)})`;
  };
  const problems = [
    values.mode !== 'voice' && values.mode !== 'text' ? `--mode takes voice or text (got ${JSON.stringify(values.mode)})` : null,
    !resuming && !values.pack ? '--pack is required (a folder under packs/, e.g. control-industry)' : null,
    !resuming && !values.harness ? '--harness is required (e.g. scripted, noop, openai/realtime)' : null,
    wholeAtLeastOne('trials'),
    wholeAtLeastOne('concurrency'),
    values.shard !== undefined && !parseShard(String(values.shard)) ? `--shard takes I/N with 0 <= I < N (got ${JSON.stringify(values.shard)})` : null,
    ...(['run-id', 'rerun-voids', 'resume'] as const).map((f) => (values[f] !== undefined && !RUN_ID.test(String(values[f])) ? `--${f} takes a run id run_<letters, digits, _ or -> (got ${JSON.stringify(values[f])})` : null)),
    [values['run-id'], values['rerun-voids'], values.resume].filter((v) => v !== undefined).length > 1 ? '--run-id, --rerun-voids and --resume each name the run: give one of them' : null,
    values.resume !== undefined && values.shard !== undefined ? '--resume plays what the whole run lacks: it takes no --shard' : null,
  ];
  return problems.find((p) => p !== null) ?? null;
}

function parseRunFlags(argv: readonly string[], io: CliIO): RunFlags | number {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      pack: { type: 'string' },
      harness: { type: 'string' },
      trials: { type: 'string' },
      concurrency: { type: 'string' },
      fast: { type: 'boolean', default: false },
      task: { type: 'string', multiple: true },
      url: { type: 'string' },
      user: { type: 'string' },
      pass: { type: 'string' },
      'allow-no-tools': { type: 'boolean', default: false },
      shard: { type: 'string' },
      'run-id': { type: 'string' },
      'rerun-voids': { type: 'string' },
      resume: { type: 'string' },
      ...CALLER_FLAG_OPTIONS,
      mode: { type: 'string' },
      handoff: { type: 'string', default: 'native' },
      help: { type: 'boolean' },
    },
  });
  if (values.help) {
    io.stdout.write(`${USAGE}\n`);
    return EXIT.ok;
  }
  const problem = flagProblem({ ...values, mode: values.mode ?? 'voice' }, values.resume !== undefined);
  if (problem) return usageProblem(io, 'run', problem);
  const user = values.user ?? io.env.CHIRP_USER;
  const pass = values.pass ?? io.env.CHIRP_PASS;
  const callerValues = Object.fromEntries(Object.keys(CALLER_FLAG_OPTIONS).map((k) => [k, values[k as keyof typeof CALLER_FLAG_OPTIONS]]));
  const concurrency = values.concurrency === undefined ? 8 : Number(values.concurrency);
  return {
    pack: values.pack ?? '',
    harness: values.harness ?? '',
    trials: Number(values.trials ?? 5),
    trialsGiven: values.trials !== undefined,
    // A person at the terminal plays one caller at a time.
    concurrency: values.caller === 'external' ? 1 : concurrency,
    fast: values.fast ?? false,
    tasks: values.task ?? [],
    url: values.url,
    auth: user && pass ? { user, pass } : null,
    shard: values.shard === undefined ? null : parseShard(values.shard),
    runId: values['run-id'] ?? values['rerun-voids'] ?? values.resume,
    rerunVoids: values['rerun-voids'] !== undefined,
    resume: values.resume !== undefined,
    callerValues,
    allowNoTools: values['allow-no-tools'] ?? false,
    mode: values.mode === 'text' ? 'text' : 'voice',
    modeGiven: values.mode !== undefined,
    caller: values.caller ?? 'scripted',
    handoff: values.handoff ?? 'native',
  };
}

/**
 * `--resume RUN`: the run's own plan (pack, harness, mode, trials, tasks, pacing) from the record
 * `mivas run` wrote when it started; flags may repeat it but not contradict it. Without a record
 * (a run from another machine) the flags must name the plan. Returns the flags to run, or an exit code.
 */
function resumeFlags(flags: RunFlags, io: CliIO): RunFlags | number {
  if (!flags.resume) return flags;
  const env = loadConfig(io.env);
  if (!env.ok) return failWith(io, 'CONFIG_INVALID', `invalid configuration:\n${env.problems.map((p) => `  - ${p}`).join('\n')}`);
  const runId = flags.runId as string;
  const record = readRunRecord(resolve(env.config.dataDir), runId);
  if (record && 'problem' in record) return failWith(io, 'RUN_RECORD_INVALID', `mivas run --resume: ${record.problem}`);
  if (!record) {
    if (flags.pack && flags.harness && flags.trialsGiven) return flags;
    return usageProblem(io, 'run', `--resume ${runId}: no record of that run at ${runRecordPath(resolve(env.config.dataDir), runId)}; name its plan with --pack, --harness and --trials (and --task, --mode text)`);
  }
  const clash = (
    [
      ['--pack', flags.pack, record.pack],
      ['--harness', flags.harness, record.harness],
      ['--trials', flags.trialsGiven ? flags.trials : '', record.trials],
      ['--mode', flags.modeGiven ? flags.mode : '', record.mode],
    ] as const
  ).find(([, given, recorded]) => given !== '' && given !== recorded);
  if (clash) return usageProblem(io, 'run', `--resume ${runId}: the run was started with ${clash[0]} ${String(clash[2])}, not ${String(clash[1])}`);
  return { ...flags, pack: record.pack, harness: record.harness, mode: record.mode, trials: record.trials, tasks: flags.tasks.length ? flags.tasks : record.tasks, fast: flags.fast || record.fast };
}

async function readSummary(sink: SnapshotSink, pack: string, callId: string): Promise<Summary | null> {
  const body = await sink.get(snapshotKey(pack, callId, 'summary.json')).catch(() => null);
  const parsed = body ? summarySchema.safeParse(JSON.parse(body.toString('utf8'))) : null;
  return parsed?.success ? parsed.data : null;
}

function callRow(call: PlannedCall, report: CallerReport, summary: Summary | null): string[] {
  const callerEnd = 'endReason' in report ? (report as ConversationReport).endReason : null;
  return [
    call.taskId,
    String(call.trial),
    call.callId,
    summary?.end_reason ?? (report.refusedStatus ? `refused ${report.refusedStatus}` : `closed ${report.closeCode}`),
    callerEnd ?? '-',
    summary ? String(summary.counts.tool_calls) : '-',
    summary ? String(summary.counts.handoffs) : '-',
    summary ? String(summary.counts.rows_written) : '-',
    summary ? (summary.smoke.pass ? 'pass' : 'fail') : '-',
    `${(report.durationMs / 1000).toFixed(1)}s`,
  ];
}

/** `mivas run`: the main job — dial a pack's tasks K times and report each call. */
export const runCommand: Command = async (argv, io) => {
  const parsed = parseRunFlags(argv, io);
  if (typeof parsed === 'number') return parsed;
  const flags = resumeFlags(parsed, io);
  if (typeof flags === 'number') return flags;
  if (flags.mode === 'text') return runTextMode(flags, io);
  const config = configFromFlags(io, {
    MIVAS_PACK: flags.pack,
    MIVAS_HARNESS: flags.harness,
    MIVAS_FAST: flags.fast ? '1' : undefined,
    MIVAS_PORT: '0',
    MIVAS_HOST: '127.0.0.1',
    MIVAS_LOG_LEVEL: io.env.MIVAS_LOG_LEVEL ?? 'warn',
  });
  if (!config) return exitCodeOf('CONFIG_INVALID');
  const refusal = toolGate(config, io, flags.allowNoTools);
  if (refusal) return failWith(io, 'TOOLS_UNVERIFIED', refusal);
  const ids = randomIds();
  const runId = flags.runId ?? `run_${ids.hex(12)}`;
  const configured = await callerSettingsFrom(flags.callerValues, config, io);
  // A voice given by the test rig replaces the configured mouth (the modem, readable by a stand-in agent).
  const caller = io.synth ? { ...configured, mouth: { kind: 'synth' as const, synth: io.synth, voice: io.synth.engine } } : configured;
  // Counted before the in-process server starts uploading them.
  const spooledAtStart = flags.resume && !flags.url ? spooledSets(resolve(config.dataDir), flags.pack).length : 0;
  const local = flags.url ? null : await startLocalServer(config);
  const pack = local?.ctx.pack ?? (await loadPack(resolve(config.packsDir), flags.pack, resolve(config.migrationsDir)));
  const unknown = flags.tasks.filter((t) => !pack.tasks.has(t));
  if (unknown.length) {
    io.stderr.write(`unknown task ids for pack ${pack.id}: ${unknown.join(', ')}\n`);
    await local?.close();
    return exitCodeOf('TASK_NOT_FOUND');
  }
  const taskIds = flags.tasks.length ? flags.tasks : [...pack.tasks.keys()];
  // A new run's plan, for --resume; replaying part of an earlier run never records one.
  if (!flags.rerunVoids && !flags.resume) writeRunRecord(resolve(config.dataDir), { run_id: runId, pack: pack.id, harness: flags.harness, mode: 'voice', trials: flags.trials, tasks: taskIds, fast: flags.fast });
  const reruns = flags.rerunVoids ? voidsOfRun(config.dataDir, runId, pack.id) : null;
  if (typeof reruns === 'string' || reruns?.length === 0) {
    await local?.close();
    if (typeof reruns === 'string') return failWith(io, 'USAGE', reruns);
    io.stdout.write(`${runId} has no VOID conversation on ${pack.id}: nothing to re-run\n`);
    return EXIT.ok;
  }
  const callerSink = local?.ctx.sink ?? callerSinkOf(config, io.cwd);
  const resumed = flags.resume ? await resumeJobs(io, local?.ctx.outbox ?? null, spooledAtStart, callerSink, pack, { runId, taskIds, trials: flags.trials, minCallMs: flags.fast ? 0 : 20_000 }) : null;
  const jobs = reruns ?? resumed;
  const calls = jobs ? jobs.map((r) => ({ callId: mintId(ids, 'local'), taskId: r.taskId, trial: r.trial })) : shardCalls(planCalls({ taskIds, trials: flags.trials, ids }), flags.shard);
  const shardNote = flags.shard ? `, shard ${flags.shard.index}/${flags.shard.count}` : '';
  const what = resumed ? `the trials ${runId} lacks, of ${taskIds.length} tasks × ${flags.trials}` : reruns ? `the VOIDs of ${runId} played again` : `${taskIds.length} tasks × ${flags.trials}${shardNote}`;
  io.stdout.write(`${runId}: ${calls.length} calls (${what}) on ${pack.id} with ${flags.harness}, caller ${caller.kind}, ${flags.fast ? 'fast' : 'real-time'}, concurrency ${flags.concurrency}\n`);
  const bar = new ProgressBar(io.stderr, calls.length, runId);
  const callerFiles: CallerFile[] = [];
  const interrupt = watchInterrupt(io, 'calls');
  const all = await runCalls(
    {
      url: flags.url ?? (local?.wsUrl as string),
      runId,
      pack,
      taskIds,
      trials: flags.trials,
      concurrency: flags.concurrency,
      paced: !flags.fast,
      auth: flags.auth ?? config.auth,
      synth: io.synth ?? (await createSpeechSynth(16_000)),
      stopRequested: interrupt.requested,
      ids,
      callTimeoutMs: Math.max(config.maxCallMs, config.caller.maxCallMs) + 30_000,
      caller,
      saveCallerFile: async (file) => {
        const parsed = callerFileSchema.parse(file);
        callerFiles.push(parsed);
        await callerSink.put(callerPartKey(pack.id, parsed.call_id), Buffer.from(`${JSON.stringify(parsed, null, 1)}\n`));
      },
    },
    calls,
    (report, call) => bar.tick(`${call.taskId}#${call.trial} ${report.closeReason || report.closeCode}`, report.refusedStatus !== null ? 'refused' : report.timedOut ? 'timed out' : 'ended'),
  ).finally(() => interrupt.dispose());
  // After Ctrl-C only the calls that were dialled are reported and scored.
  const dialled = calls.flatMap((call, i) => (all[i] ? [{ call, report: all[i] }] : []));
  if (dialled.length < calls.length) io.stdout.write(`\ninterrupted after ${dialled.length} of ${calls.length} calls; the table and scores cover those (mivas run --resume ${runId} plays the rest)\n`);
  const reports = dialled.map((d) => d.report);
  // Snapshots are spooled and uploaded asynchronously after each hangup: let the local outbox finish first.
  await local?.ctx.outbox.flush();
  const missing = await reportCalls(io, dialled.map((d) => d.call), reports, local?.ctx.sink ?? null, pack.id);
  io.stdout.write(`${callerSummary(caller, callerFiles)}\n`);
  if (!local) return interrupt.requested() ? EXIT_INTERRUPTED : missing === 0 ? EXIT.ok : EXIT.incomplete;
  await local.close();
  io.stdout.write(`snapshots: ${local.ctx.sink.root} (pack ${pack.id}; mivas score --snapshots takes either folder)\n\n`);
  const scored = await scoreCommand(
    ['--snapshots', local.ctx.sink.root, '--pack', pack.id, '--run', runId, '--out', resolve(config.dataDir, 'scores', runId), '--k', String(passK(flags.trials)), ...(flags.fast ? ['--fast'] : [])],
    io,
  );
  if (scored !== EXIT.usage) {
    const scoresDir = resolve(config.dataDir, 'scores', runId);
    const sink = local.ctx.sink;
    const written = await writeReport({ scoresDir, outDir: join(scoresDir, 'report'), read: (key) => sink.get(key), packsDir: resolve(config.packsDir) });
    io.stdout.write(`report: ${written.indexPath}\n`);
  }
  if (interrupt.requested()) return EXIT_INTERRUPTED;
  // The score's own code carries over: voids, unmapped or pending conversations make the run incomplete (2).
  return missing === 0 && scored !== EXIT.usage ? scored : EXIT.incomplete;
};

/** `mivas run --mode text`: text episodes in this process, then the same scoring and report as a voice run. */
async function runTextMode(flags: RunFlags, io: CliIO): Promise<number> {
  const config = configFromFlags(io, { MIVAS_PACK: flags.pack, MIVAS_LOG_LEVEL: io.env.MIVAS_LOG_LEVEL ?? 'warn' });
  if (!config) return exitCodeOf('CONFIG_INVALID');
  const pack = await loadPack(resolve(config.packsDir), flags.pack, resolve(config.migrationsDir));
  const unknown = flags.tasks.filter((t) => !pack.tasks.has(t));
  if (unknown.length) {
    io.stderr.write(`unknown task ids for pack ${pack.id}: ${unknown.join(', ')}\n`);
    return exitCodeOf('TASK_NOT_FOUND');
  }
  const ids = randomIds();
  const runId = flags.runId ?? `run_${ids.hex(12)}`;
  const taskIds = flags.tasks.length ? flags.tasks : [...pack.tasks.keys()];
  if (!flags.rerunVoids && !flags.resume) writeRunRecord(resolve(config.dataDir), { run_id: runId, pack: pack.id, harness: flags.harness, mode: 'text', trials: flags.trials, tasks: taskIds, fast: true });
  const reruns = flags.rerunVoids ? voidsOfRun(config.dataDir, runId, pack.id) : null;
  if (typeof reruns === 'string') return failWith(io, 'USAGE', reruns);
  if (reruns?.length === 0) {
    io.stdout.write(`${runId} has no VOID conversation on ${pack.id}: nothing to re-run\n`);
    return EXIT.ok;
  }
  // Text episodes write straight to the store (no outbox), so there is nothing to flush first.
  const resumed = flags.resume ? await resumeJobs(io, null, 0, createSink(config), pack, { runId, taskIds, trials: flags.trials, minCallMs: 0 }) : null;
  const only = reruns ?? resumed;
  const onlyWhat = resumed ? `the trials ${runId} lacks` : `the VOIDs of ${runId} played again`;
  const interrupt = watchInterrupt(io, 'episodes');
  const ran = await runTextEpisodes({ pack, harness: flags.harness, caller: flags.caller, handoffMode: flags.handoff, taskIds, trials: flags.trials, concurrency: flags.concurrency, runId, ids, ...(only ? { only, onlyWhat } : {}) }, config, io, interrupt.requested).finally(() => interrupt.dispose());
  if ('exit' in ran) return ran.exit;
  io.stdout.write(`snapshots: ${ran.sink.root} (pack ${pack.id}; mivas score --snapshots takes either folder)\n\n`);
  const scoresDir = resolve(config.dataDir, 'scores', runId);
  const scored = await scoreCommand(['--snapshots', ran.sink.root, '--pack', pack.id, '--run', runId, '--out', scoresDir, '--fast', '--packs-dir', config.packsDir, '--k', String(passK(flags.trials))], io);
  if (scored !== EXIT.usage) {
    const sink = ran.sink;
    const written = await writeReport({ scoresDir, outDir: join(scoresDir, 'report'), read: (key) => sink.get(key), packsDir: resolve(config.packsDir) });
    io.stdout.write(`report: ${written.indexPath}\n`);
  }
  if (interrupt.requested()) return EXIT_INTERRUPTED;
  // The score's own code carries over, as for calls: voids, unmapped or pending conversations make the run incomplete (2).
  return scored === EXIT.usage ? EXIT.incomplete : scored;
}

/**
 * `--resume`: first flushes what the outbox still holds (sets an earlier, killed process spooled
 * and never uploaded: the in-process server found them at start), then reads the store for the
 * trials the run lacks.
 */
async function resumeJobs(io: CliIO, outbox: { flush(): Promise<void> } | null, spooled: number, sink: SnapshotSink, pack: Pack, plan: Parameters<typeof missingTrials>[2]): Promise<RerunJob[]> {
  await outbox?.flush();
  if (spooled) io.stdout.write(`${plan.runId}: flushed ${spooled} spooled snapshot(s) to ${sink.root} first\n`);
  const missing = await missingTrials(openSource({ snapshots: sink.root }, io), pack, plan);
  io.stdout.write(`${plan.runId}: ${missing.scored} of ${missing.planned} task × trial scored; playing the ${missing.jobs.length} it lacks (never played, void or lost)\n`);
  return [...missing.jobs];
}

async function reportCalls(io: CliIO, calls: readonly PlannedCall[], reports: readonly CallerReport[], sink: SnapshotSink | null, pack: string): Promise<number> {
  let missing = 0;
  const rows: string[][] = [];
  for (const [i, call] of calls.entries()) {
    const report = reports[i] as CallerReport;
    const summary = sink ? await readSummary(sink, pack, call.callId) : null;
    if (sink && !summary) missing++;
    if (!sink && (report.refusedStatus || report.timedOut)) missing++;
    rows.push(callRow(call, report, summary));
  }
  io.stdout.write(`\n${renderTable(['task', 'trial', 'call', 'end', 'caller end', 'tools', 'hops', 'rows', 'smoke', 'time'], rows)}\n`);
  io.stdout.write(`${calls.length - missing}/${calls.length} calls left a snapshot\n`);
  return missing;
}

async function startLocalServer(config: NonNullable<ReturnType<typeof configFromFlags>>) {
  const ctx = await createAppContext(config);
  const app = await buildApp(ctx);
  const httpUrl = await app.listen({ port: 0, host: '127.0.0.1' });
  return {
    ctx,
    wsUrl: `${httpUrl.replace(/^http/, 'ws')}/`,
    close: async () => {
      await ctx.outbox.flush();
      await app.close();
    },
  };
}

/** One line on the callers of a run: their own requests, tokens, audio and cost (never summed with the agent's). */
export function callerSummary(caller: CallerSettings, files: readonly CallerFile[]): string {
  const total: { -readonly [K in keyof CallerUsage]: CallerUsage[K] } = emptyCallerUsage();
  for (const f of files) for (const key of Object.keys(total) as (keyof CallerUsage)[]) total[key] += f.usage[key];
  const costs = files.map((f) => f.cost_usd_est).filter((c): c is number => c !== null);
  const cost = costs.length ? `$${costs.reduce((a, b) => a + b, 0).toFixed(4)}` : 'no caller prices set';
  return `caller ${caller.kind}: ${files.length} calls, ${total.chat_requests} chat requests (${total.chat_cached} cached), ${total.prompt_tokens + total.completion_tokens} tokens, ${total.transcription_seconds.toFixed(1)} s transcribed, ${total.speech_characters} characters spoken; ${cost}`;
}
