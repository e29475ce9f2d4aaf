import { mkdirSync, readdirSync, readFileSync, renameSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pino } from 'pino';
import { createSpeechSynth, type SpeechSynth } from '../audio/index.ts';
import { directoryCache } from '../caller/index.ts';
import { CallRegistry, type CallLimits } from '../call/index.ts';
import type { Config } from '../config.ts';
import { ConversationIds, randomIds, systemClock, type Clock, type IdSource } from '../core/index.ts';
import { loadPack, type Pack } from '../packs/index.ts';
import { createHarnessFactory, estimateCost, type CostEstimator, type HarnessFactory } from '../providers/index.ts';
import { createS3Client, directorySink, s3OperationBudgetMs, s3Sink, SnapshotOutbox, type SnapshotSink } from '../snapshot/index.ts';
import { packDatabases, type CallDatabases, type DatabaseDump } from '../store/index.ts';
import { configuredCallers, type CallerMinds } from '../episodes/index.ts';
import { CallHarnesses } from './call-harnesses.ts';
import { deriveCaps, openFileLimit, type ProcessCaps } from './file-budget.ts';
import { HarnessSessions, MAX_HARNESS_SESSIONS } from './harness-sessions.ts';
import { closeOperations, createOperations, type Operations } from './observability.ts';
import { OpenEnvSockets } from './openenv-sockets.ts';

/** Everything the app needs, built once in main or a test (architecture.md convention 11). */
export interface AppContext {
  readonly config: Config;
  readonly version: string;
  readonly log: pino.Logger;
  readonly clock: Clock;
  readonly ids: IdSource;
  readonly pack: Pack;
  readonly templateDump: DatabaseDump;
  readonly databases: CallDatabases;
  readonly sink: SnapshotSink;
  readonly outbox: SnapshotOutbox;
  /** The harness of each call: the served one, or one a speech rollout assigned to its call id. */
  readonly callHarnesses: CallHarnesses;
  /** What every live call is built with besides its socket and model. */
  readonly callSettings: CallSettings;
  readonly registry: CallRegistry;
  /** The one answer to "is this id free?" (architecture.md §4): live calls, scratch conversations, spooled evidence, databases, and the RL episodes. */
  readonly callIds: ConversationIds;
  /** Scratch conversations of the HTTP tool routes (ids no caller dialed). */
  readonly harnessSessions: HarnessSessions;
  /** Metrics, traces and the Bluejay link. */
  readonly ops: Operations;
  /** Speech of the keyless harnesses (`scripted`, `noop`), whoever the call's harness is for (a speech rollout's too). */
  readonly synth: SpeechSynth;
  /** The caps in force: the configured ones, lowered to fit the open-file limit (docs/reliability.md "Open files"). */
  readonly caps: ProcessCaps;
  /** What only the RL routes use. */
  readonly rl: RlParts;
}

/** The parts of the app only the RL routes use (docs/rl.md). */
export interface RlParts {
  /** The callers RL episodes can have; `scripted` unless a test or a caller build adds more. */
  readonly callers: CallerMinds;
  /** The OpenEnv WebSockets open now, and their bounds. */
  readonly openEnvSockets: OpenEnvSockets;
}

/** The settings every live call shares (CallSession's limits, recordings and prices). */
export interface CallSettings {
  readonly limits: CallLimits;
  /** Where live calls' recordings stream to disk (`<data>/recordings`). */
  readonly recordingsDir: string;
  /** Prices a call's usage at hangup (the shipped price table). */
  readonly estimateCost: CostEstimator;
}

/** Replaceable parts for tests and `mivas run`. */
export interface AppContextOverrides {
  readonly clock?: Clock;
  readonly ids?: IdSource;
  readonly log?: pino.Logger;
  readonly harness?: HarnessFactory;
  readonly synth?: SpeechSynth;
  readonly rlCallers?: CallerMinds;
  /** The open-file limit to derive caps from, instead of `/proc/self/limits` (null: none known). */
  readonly fileLimit?: number | null;
}

function packageVersion(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version?: string };
  return pkg.version ?? '0.0.0';
}

/** The snapshot sink the configuration names: a local directory, or an S3 prefix. */
export function createSink(config: Config): SnapshotSink {
  const target = config.snapshots;
  if (target.kind === 'directory') return directorySink(resolve(target.dir));
  const settings = { endpoint: target.endpoint, region: target.region, forcePathStyle: target.forcePathStyle, requestTimeoutMs: target.requestTimeoutMs, maxAttempts: target.maxAttempts };
  return s3Sink(createS3Client(settings), target.bucket, target.prefix, { operationTimeoutMs: s3OperationBudgetMs(settings) });
}

/**
 * Recordings left in `<data>/recordings` by a process that died mid-call are moved to
 * `recordings/orphaned/<boot time>_<name>`: the caller's and agent's audio up to the last block
 * written (a streaming WAV header, so it plays), kept for forensics like the call's database.
 */
function setAsideRecordings(dir: string, bootStamp: string): string[] {
  mkdirSync(dir, { recursive: true });
  const left = readdirSync(dir).filter((name) => name.endsWith('.wav'));
  if (left.length === 0) return [];
  mkdirSync(join(dir, 'orphaned'), { recursive: true });
  for (const name of left) renameSync(join(dir, name), join(dir, 'orphaned', `${bootStamp}_${name}`));
  return left;
}

/** Every holder of this app's call ids, in the order a use is reported (a live call has a database too). */
function callIdsOf(registry: CallRegistry, scratch: HarnessSessions, outbox: SnapshotOutbox, packId: string, databases: CallDatabases): ConversationIds {
  const callIds = new ConversationIds();
  callIds.hold(registry);
  callIds.hold(scratch);
  callIds.hold({ useOf: (id) => (outbox.isSpooled(packId, id) ? 'ended' : null) });
  callIds.hold({ useOf: (id) => (databases.exists(id) ? 'used' : null) });
  return callIds;
}

/**
 * Stops what `createAppContext` started: flushes the outbox (at most 5 s), stops its retries, ends
 * the operations (Bluejay links, traces), the harness sessions and the databases. The app's close
 * runs it; so must anything that builds a context without an app (the bench's in-process desk),
 * or the outbox's timers keep the process alive.
 */
export async function closeAppContext(ctx: AppContext): Promise<void> {
  await Promise.race([ctx.outbox.flush(), new Promise((resolve) => setTimeout(resolve, 5_000).unref())]);
  ctx.outbox.stop();
  await closeOperations(ctx.ops, ctx.config.bluejay.settleMs);
  ctx.harnessSessions.close();
  ctx.databases.closeAll();
}

/** Builds the app context: loads the pack, builds its template, opens the outbox and resumes spooled uploads. */
export async function createAppContext(config: Config, overrides: AppContextOverrides = {}): Promise<AppContext> {
  const log =
    overrides.log ??
    pino({
      level: config.logLevel,
      redact: ['req.headers.authorization', '*.password', '*.apiKey', '*.api_key'],
      // Level names, not numbers, and the `severity` field log collectors (Cloud Logging among them) read.
      formatters: { level: (label) => ({ level: label, severity: label === 'fatal' ? 'CRITICAL' : label === 'trace' ? 'DEBUG' : label.toUpperCase() }) },
    });
  const clock = overrides.clock ?? systemClock();
  const ids = overrides.ids ?? randomIds();
  const pack = await loadPack(resolve(config.packsDir), config.pack, resolve(config.migrationsDir));
  // The harness is validated (an unknown name, a missing key) before anything starts a timer or a
  // handle: a configuration error must leave nothing running that keeps the process alive.
  const synth = overrides.synth ?? (await createSpeechSynth(16_000));
  const harness = overrides.harness ?? createHarnessFactory(config.harness, { synth, clock, noopWaitMs: config.noopWaitMs, providers: config.providers });
  const dataDir = resolve(config.dataDir);
  const sink = createSink(config);
  const caps = deriveCaps(overrides.fileLimit !== undefined ? overrides.fileLimit : openFileLimit(), { calls: config.maxCalls, scratch: MAX_HARNESS_SESSIONS, episodes: config.rl.maxEpisodes, openEnvSockets: config.rl.maxSockets });
  const lowered = caps.calls < config.maxCalls || caps.scratch < MAX_HARNESS_SESSIONS || (config.rl.enabled && (caps.episodes < config.rl.maxEpisodes || caps.openEnvSockets < config.rl.maxSockets));
  if (lowered) log.warn({ openFileLimit: caps.fileLimit, calls: caps.calls, scratch: caps.scratch, episodes: caps.episodes, openEnvSockets: caps.openEnvSockets }, 'caps lowered to fit the open-file limit (raise it with ulimit -n to raise them)');
  const registry = new CallRegistry(caps.calls);
  const { databases, templateDump } = packDatabases(dataDir, pack, 'calls');
  // A database left by an earlier process (a crash mid-call) is moved aside so its id starts fresh.
  const setAside = databases.setAsideLeftovers();
  if (setAside.length) log.warn({ count: setAside.length, dir: join(dataDir, 'calls', 'orphaned') }, 'moved call databases left by an earlier process aside');
  const recordingsDir = join(dataDir, 'recordings');
  const leftRecordings = setAsideRecordings(recordingsDir, new Date(clock.epochMs()).toISOString().replace(/[:.]/g, '-'));
  if (leftRecordings.length) log.warn({ count: leftRecordings.length, dir: join(recordingsDir, 'orphaned') }, 'moved recordings left by an earlier process aside');
  const harnessSessions = new HarnessSessions(pack, databases, clock, config.toolsIdleMs, caps.scratch);
  const ops = createOperations(config, {
    clock,
    ids,
    log,
    dataDir,
    // Read at scrape time; `outbox` is defined below before any scrape can happen.
    sources: { liveCalls: () => registry.count(), maxCalls: () => registry.maxCalls, isDraining: () => registry.isDraining(), snapshotBacklog: () => outbox.backlog(), harnessSessions: () => ({ held: harnessSessions.count(), reaped: harnessSessions.reaped() }) },
  });
  const outbox = new SnapshotOutbox(
    join(dataDir, 'spool'),
    sink,
    clock,
    {
      uploaded: (p, callId, location, durationMs) => {
        ops.metrics.snapshotUpload('ok', durationMs);
        log.info({ callId, pack: p, location }, 'snapshot uploaded');
      },
      failed: (p, callId, attempt, err, retryInMs) => {
        ops.metrics.snapshotUpload('failed');
        log.warn({ callId, pack: p, attempt, retryInMs, err: String(err) }, 'snapshot upload failed; will retry');
      },
      conflicted: (p, callId, keptAt) => {
        ops.metrics.snapshotUpload('failed');
        log.error({ callId, pack: p, keptAt }, 'another snapshot already holds this call id; ours was kept locally, nothing overwritten');
      },
      spoolFailed: (p, callId, attempt, err) => {
        log.error({ callId, pack: p, attempt, err: String(err) }, 'the spool refused a snapshot set; it is held in memory and retried');
      },
      spooledLate: (p, callId, attempts) => {
        log.info({ callId, pack: p, attempts }, 'a snapshot set held in memory reached the spool');
      },
      abandoned: (sets) => {
        log.error({ count: sets.length, callIds: sets.map((s) => s.callId) }, 'snapshot sets still held in memory at shutdown (the spool refused them and the sink did not take them): lost with the process');
      },
    },
    { uploadConcurrency: config.uploadConcurrency },
  );
  ops.metrics.buildInfo({ version: packageVersion(), pack: pack.id, harness: harness.name });
  const resumed = outbox.resume();
  if (resumed) log.info({ count: resumed }, 'resuming spooled snapshot uploads');
  return {
    config,
    version: packageVersion(),
    log,
    clock,
    ids,
    pack,
    templateDump,
    databases,
    harnessSessions,
    sink,
    outbox,
    callHarnesses: new CallHarnesses(harness),
    callSettings: { limits: config, recordingsDir, estimateCost },
    registry,
    callIds: callIdsOf(registry, harnessSessions, outbox, pack.id, databases),
    ops,
    synth,
    caps,
    rl: {
      callers: overrides.rlCallers ?? configuredCallers(config.caller, clock, config.rl.callerCacheDir ? directoryCache(resolve(config.rl.callerCacheDir)) : null),
      openEnvSockets: new OpenEnvSockets({ max: caps.openEnvSockets, idleMs: config.rl.socketIdleMs, episodeIdleMs: config.rl.idleMs, pingMs: config.pingIntervalMs, bufferBytes: config.rl.socketBufferBytes }, clock),
    },
  };
}
