import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { createSpeechSynth } from '../audio/index.ts';
import { planCalls, runCalls, type CallerReport, type PlannedCall } from '../caller/index.ts';
import { EXIT, exitCodeOf, randomIds } from '../core/index.ts';
import { loadPack } from '../packs/index.ts';
import { buildApp, createAppContext } from '../server/index.ts';
import { snapshotKey, summarySchema, type SnapshotSink, type Summary } from '../snapshot/index.ts';
import { configFromFlags } from './config-flags.ts';
import { scoreCommand } from './score-command.ts';
import { writeReport } from './report-command.ts';
import type { CliIO, Command } from './io.ts';
import { ProgressBar, renderTable } from './progress.ts';

const USAGE = `usage: mivas run --pack P --harness H [--trials 5] [--concurrency N] [--fast] [--task ID]... [--url ws://HOST:PORT/] [--user U --pass P]

Dials every task of the pack K times as the local caller (ids loc_<12 hex>, one run id run_<12 hex>).
Without --url it starts the server in-process on a loopback port with the given pack and harness.
--fast unpaces the caller and the in-process server's pacer (local runs only).`;

interface RunFlags {
  pack: string;
  harness: string;
  trials: number;
  concurrency: number;
  fast: boolean;
  tasks: string[];
  url: string | undefined;
  auth: { user: string; pass: string } | null;
}

function parseRunFlags(argv: readonly string[], io: CliIO): RunFlags | null {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      pack: { type: 'string' },
      harness: { type: 'string' },
      trials: { type: 'string', default: '5' },
      concurrency: { type: 'string' },
      fast: { type: 'boolean', default: false },
      task: { type: 'string', multiple: true },
      url: { type: 'string' },
      user: { type: 'string' },
      pass: { type: 'string' },
      help: { type: 'boolean' },
    },
  });
  const trials = Number(values.trials);
  const concurrency = values.concurrency === undefined ? 8 : Number(values.concurrency);
  if (values.help || !values.pack || !values.harness || !Number.isInteger(trials) || trials < 1 || !Number.isInteger(concurrency) || concurrency < 1) {
    io.stderr.write(`${USAGE}\n`);
    return null;
  }
  const user = values.user ?? io.env.CHIRP_USER;
  const pass = values.pass ?? io.env.CHIRP_PASS;
  return { pack: values.pack, harness: values.harness, trials, concurrency, fast: values.fast ?? false, tasks: values.task ?? [], url: values.url, auth: user && pass ? { user, pass } : null };
}

async function readSummary(sink: SnapshotSink, pack: string, callId: string): Promise<Summary | null> {
  const body = await sink.get(snapshotKey(pack, callId, 'summary.json')).catch(() => null);
  const parsed = body ? summarySchema.safeParse(JSON.parse(body.toString('utf8'))) : null;
  return parsed?.success ? parsed.data : null;
}

function callRow(call: PlannedCall, report: CallerReport, summary: Summary | null): string[] {
  return [
    call.taskId,
    String(call.trial),
    call.callId,
    summary?.end_reason ?? (report.refusedStatus ? `refused ${report.refusedStatus}` : `closed ${report.closeCode}`),
    summary ? String(summary.counts.tool_calls) : '-',
    summary ? String(summary.counts.handoffs) : '-',
    summary ? String(summary.counts.rows_written) : '-',
    summary ? (summary.smoke.pass ? 'pass' : 'fail') : '-',
    `${(report.durationMs / 1000).toFixed(1)}s`,
  ];
}

/** `mivas run`: the main job — dial a pack's tasks K times and report each call. */
export const runCommand: Command = async (argv, io) => {
  const flags = parseRunFlags(argv, io);
  if (!flags) return exitCodeOf('USAGE');
  const config = configFromFlags(io, {
    MIVAS_PACK: flags.pack,
    MIVAS_HARNESS: flags.harness,
    MIVAS_FAST: flags.fast ? '1' : undefined,
    MIVAS_PORT: '0',
    MIVAS_HOST: '127.0.0.1',
    MIVAS_LOG_LEVEL: io.env.MIVAS_LOG_LEVEL ?? 'warn',
  });
  if (!config) return exitCodeOf('CONFIG_INVALID');
  const ids = randomIds();
  const runId = `run_${ids.hex(12)}`;
  const local = flags.url ? null : await startLocalServer(config);
  const pack = local?.ctx.pack ?? (await loadPack(resolve(config.packsDir), flags.pack, resolve(config.migrationsDir)));
  const unknown = flags.tasks.filter((t) => !pack.tasks.has(t));
  if (unknown.length) {
    io.stderr.write(`unknown task ids for pack ${pack.id}: ${unknown.join(', ')}\n`);
    await local?.close();
    return exitCodeOf('TASK_NOT_FOUND');
  }
  const taskIds = flags.tasks.length ? flags.tasks : [...pack.tasks.keys()];
  const calls = planCalls({ taskIds, trials: flags.trials, ids });
  io.stdout.write(`${runId}: ${calls.length} calls (${taskIds.length} tasks × ${flags.trials}) on ${pack.id} with ${flags.harness}, ${flags.fast ? 'fast' : 'real-time'}, concurrency ${flags.concurrency}\n`);
  const bar = new ProgressBar(io.stderr, calls.length, runId);
  const reports = await runCalls(
    { url: flags.url ?? (local?.wsUrl as string), runId, pack, taskIds, trials: flags.trials, concurrency: flags.concurrency, paced: !flags.fast, auth: flags.auth ?? config.auth, synth: await createSpeechSynth(16_000), ids, callTimeoutMs: config.maxCallMs + 30_000 },
    calls,
    (report, call) => bar.tick(`${call.taskId}#${call.trial} ${report.closeReason || report.closeCode}`),
  );
  // Snapshots are spooled and uploaded asynchronously after each hangup: let the local outbox finish first.
  await local?.ctx.outbox.flush();
  const missing = await reportCalls(io, calls, reports, local?.ctx.sink ?? null, pack.id);
  if (!local) return missing === 0 ? EXIT.ok : EXIT.incomplete;
  await local.close();
  io.stdout.write(`snapshots: ${local.ctx.sink.locate(`${pack.id}/`)}\n\n`);
  const scored = await scoreCommand(
    ['--snapshots', local.ctx.sink.root, '--pack', pack.id, '--run', runId, '--out', resolve(config.dataDir, 'scores', runId), ...(flags.fast ? ['--fast'] : [])],
    io,
  );
  if (scored !== EXIT.usage) {
    const scoresDir = resolve(config.dataDir, 'scores', runId);
    const sink = local.ctx.sink;
    const written = await writeReport({ scoresDir, outDir: join(scoresDir, 'report'), read: (key) => sink.get(key), packsDir: resolve(config.packsDir) });
    io.stdout.write(`report: ${written.indexPath}\n`);
  }
  return missing === 0 && scored !== EXIT.usage ? EXIT.ok : EXIT.incomplete;
};

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
  io.stdout.write(`\n${renderTable(['task', 'trial', 'call', 'end', 'tools', 'hops', 'rows', 'smoke', 'time'], rows)}\n`);
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
