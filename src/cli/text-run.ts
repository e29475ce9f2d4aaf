import { join, resolve } from 'node:path';
import { callerEndpointConfigured, type Config } from '../config.ts';
import { mintId, systemClock, type IdSource } from '../core/index.ts';
import { configuredCallers, HANDOFF_MODES, noopPolicy, openAiChatPolicy, runTextEpisode, scriptedPolicy, type EpisodeResult, type HandoffMode, type TextPolicy } from '../episodes/index.ts';
import type { Pack } from '../packs/index.ts';
import { createSink } from '../server/index.ts';
import { SnapshotOutbox, type SnapshotSink } from '../snapshot/index.ts';
import { packDatabases, type PackDatabases } from '../store/index.ts';
import { failWith, type CliIO } from './io.ts';
import { ProgressBar, renderTable } from './progress.ts';

/** The text policy harnesses `--mode text` (and `mivas play`) know. */
export const TEXT_HARNESSES = ['text/scripted', 'text/noop', 'text/openai-chat'] as const;

/** The policy of a `text/<name>` harness, or a problem to print (exit 3). */
export function textPolicyOf(harness: string, config: Config): TextPolicy | { problem: string; code: 'UNKNOWN_HARNESS' | 'PROVIDER_SETTING_MISSING' } {
  if (harness === 'text/scripted') return scriptedPolicy();
  if (harness === 'text/noop') return noopPolicy();
  if (harness === 'text/openai-chat') {
    const { baseUrl, model, apiKey, timeoutMs, maxBodyBytes } = config.policy;
    if (!baseUrl) return { problem: 'text/openai-chat needs MIVAS_POLICY_BASE_URL (an OpenAI-compatible base URL such as http://127.0.0.1:8000/v1)', code: 'PROVIDER_SETTING_MISSING' };
    if (!model) return { problem: 'text/openai-chat needs MIVAS_POLICY_MODEL', code: 'PROVIDER_SETTING_MISSING' };
    return openAiChatPolicy({ baseUrl, model, ...(apiKey ? { apiKey } : {}), temperature: 0, timeoutMs, maxBodyBytes });
  }
  return { problem: `--mode text takes a text policy harness: ${TEXT_HARNESSES.join(', ')} (got ${harness})`, code: 'UNKNOWN_HARNESS' };
}

/** A pack ready for in-process episodes: its template, a databases folder and the template's rows. */
export function episodeDatabases(config: Config, pack: Pack): PackDatabases {
  return packDatabases(resolve(config.dataDir), pack, join('episodes', pack.id));
}

/**
 * The snapshot writer of in-process episodes (`mivas run --mode text`, `mivas play`): the durable
 * outbox over the sink, spooled under MIVAS_DATA_DIR/spool like the server's (architecture.md §9),
 * so a set whose upload fails stays spooled and is retried, and `mivas run --resume` finds it.
 * Sets an earlier process left in the spool are queued again at once.
 */
export function episodeOutbox(config: Config, sink: SnapshotSink, io: CliIO): SnapshotOutbox {
  const say = (line: string): void => void io.stderr.write(`${line}\n`);
  const outbox = new SnapshotOutbox(
    join(resolve(config.dataDir), 'spool'),
    sink,
    systemClock(),
    {
      uploaded: () => undefined,
      failed: (pack, callId, attempt, err, retryInMs) => say(`snapshot ${pack}/${callId}: upload attempt ${attempt} failed (${String(err)}); retrying in ${Math.ceil(retryInMs / 1000)} s`),
      conflicted: (pack, callId, keptAt) => say(`snapshot ${pack}/${callId}: the store already holds this id; ours is kept at ${keptAt}`),
      spoolFailed: (pack, callId, attempt, err) => say(`snapshot ${pack}/${callId}: the spool refused it (attempt ${attempt}: ${String(err)}); held in memory and retried`),
      abandoned: (sets) => say(`${sets.length} snapshot sets the spool refused and the store did not take are lost: ${sets.map((s) => `${s.pack}/${s.callId}`).join(', ')}`),
    },
    { uploadConcurrency: config.uploadConcurrency },
  );
  outbox.resume();
  return outbox;
}

/** Waits for every set handed to the outbox (uploaded, or left spooled after a failed attempt), then stops its retries and says what is left. */
export async function closeOutbox(outbox: SnapshotOutbox, io: CliIO, resumeHint: string): Promise<void> {
  await outbox.flush();
  const left = outbox.backlog().count;
  outbox.stop();
  if (left > 0) io.stderr.write(`${left} snapshot sets are spooled but not uploaded yet; ${resumeHint} uploads them\n`);
}

/** What a text run needs beyond the configuration. */
export interface TextRunPlan {
  readonly pack: Pack;
  readonly harness: string;
  readonly caller: string;
  readonly handoffMode: string;
  readonly taskIds: readonly string[];
  readonly trials: number;
  readonly concurrency: number;
  readonly runId: string;
  readonly ids: IdSource;
  /** These (task, trial) jobs instead of every task × trial (`--rerun-voids`, `--resume`), and what they are. */
  readonly only?: readonly { readonly taskId: string; readonly trial: number }[];
  readonly onlyWhat?: string;
}

/**
 * `mivas run --mode text`: every task × trial as a text episode in this process (no server, no
 * audio), each written to the snapshot store like a call and then scored with the voice runs'
 * scorer (the caller scores afterwards). Returns the episodes' results, or the exit code of a
 * setup problem.
 */
export async function runTextEpisodes(plan: TextRunPlan, config: Config, io: CliIO, stopRequested: () => boolean = () => false): Promise<{ exit: number } | { sink: SnapshotSink; results: EpisodeResult[]; ran: number }> {
  const policy = textPolicyOf(plan.harness, config);
  if ('problem' in policy) return { exit: failWith(io, policy.code, policy.problem) };
  if (!HANDOFF_MODES.includes(plan.handoffMode as HandoffMode)) return { exit: failWith(io, 'USAGE', `--handoff takes native or soft (got ${plan.handoffMode})`) };
  const probe = plan.pack.tasks.get(plan.taskIds[0] ?? '');
  // The llm caller needs a key, unless MIVAS_CALLER_BASE_URL names an endpoint of your own (a local server may take none).
  if (plan.caller === 'llm' && !callerEndpointConfigured(config.caller)) {
    return { exit: failWith(io, 'PROVIDER_SETTING_MISSING', '--caller llm needs MIVAS_CALLER_API_KEY, or MIVAS_CALLER_BASE_URL set to an endpoint of your own (docs/caller.md)') };
  }
  const callers = configuredCallers(config.caller);
  if (probe && !callers({ pack: plan.pack, task: probe, kind: plan.caller, seed: null, episodeId: 'probe' })) {
    return { exit: failWith(io, 'USAGE', `--caller ${plan.caller}: text episodes take the scripted or llm caller (an external caller plays voice calls: mivas run --caller external)`) };
  }
  const sink = createSink(config);
  const outbox = episodeOutbox(config, sink, io);
  const { databases, templateDump } = episodeDatabases(config, plan.pack);
  const jobs: { taskId: string; trial: number; id: string }[] = [];
  if (plan.only) for (const { taskId, trial } of plan.only) jobs.push({ taskId, trial, id: mintId(plan.ids, 'episode') });
  else for (let trial = 1; trial <= plan.trials; trial++) for (const taskId of plan.taskIds) jobs.push({ taskId, trial, id: mintId(plan.ids, 'episode') });
  const what = plan.only ? (plan.onlyWhat ?? `the VOIDs of ${plan.runId} played again`) : `${plan.taskIds.length} tasks × ${plan.trials}`;
  io.stdout.write(`${plan.runId}: ${jobs.length} text episodes (${what}) on ${plan.pack.id} with ${plan.harness}, ${plan.handoffMode} handoffs, ${plan.caller} caller, concurrency ${plan.concurrency}\n`);
  const bar = new ProgressBar(io.stderr, jobs.length, plan.runId);
  const results: EpisodeResult[] = new Array<EpisodeResult>(jobs.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < jobs.length && !stopRequested()) {
      const index = next++;
      const job = jobs[index] as (typeof jobs)[number];
      const task = plan.pack.tasks.get(job.taskId);
      if (!task) continue;
      const writes: Promise<unknown>[] = [];
      const result = await runTextEpisode(policy, {
        pack: plan.pack,
        task,
        id: job.id,
        databases,
        templateDump,
        caller: callers({ pack: plan.pack, task, kind: plan.caller, seed: job.trial, episodeId: job.id }) as NonNullable<ReturnType<typeof callers>>,
        runId: plan.runId,
        handoffMode: plan.handoffMode as HandoffMode,
        maxTurns: 60,
        epochMs: () => Date.now(),
        store: (pack, callId, parts) => writes.push(outbox.store(pack, callId, parts)),
      });
      await Promise.all(writes);
      results[index] = result;
      bar.tick(`${job.taskId}#${job.trial} ${result.status}`, result.status);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(plan.concurrency, jobs.length)) }, worker));
  await closeOutbox(outbox, io, `mivas run --resume ${plan.runId}`);
  databases.closeAll();
  const ran = results.filter(Boolean).length;
  if (ran < jobs.length) io.stdout.write(`\ninterrupted after ${ran} of ${jobs.length} episodes; the table and scores cover those (mivas run --resume ${plan.runId} plays the rest)\n`);
  const rows = jobs.map((job, i) => {
    const r = results[i];
    return [job.taskId, String(job.trial), job.id, r?.end_reason ?? '-', r?.status ?? '-', r ? r.reward.toFixed(3) : '-', r ? String(r.turns) : '-', r?.truncated ?? ''];
  });
  io.stdout.write(`\n${renderTable(['task', 'trial', 'episode', 'end', 'status', 'reward', 'turns', 'truncated'], rows)}\n`);
  return { sink, results, ran };
}
