import { resolve } from 'node:path';
import { CALLER_KINDS, directoryCache, terminalTurns, type CallerKind, type CallerSettings } from '../caller/index.ts';
import type { Config } from '../config.ts';
import { ConfigError } from '../core/index.ts';
import { directorySource, s3Source, type SnapshotSource } from '../scoring/index.ts';
import { callerSettingsOf, llmCallerProblem } from '../server/index.ts';
import { callerFileSchema, createS3Client, directorySink, parseS3Uri, s3Sink, type CallerFile, type SnapshotSink } from '../snapshot/index.ts';
import type { CliIO } from './io.ts';

/** The caller flags `mivas run` and `mivas call` share (docs/caller.md). */
export const CALLER_FLAG_OPTIONS = {
  caller: { type: 'string', default: 'scripted' },
  'caller-cache': { type: 'string' },
  'caller-frozen': { type: 'boolean', default: false },
  'caller-replay': { type: 'string' },
  'caller-seed': { type: 'string' },
  'caller-model': { type: 'string' },
  audio: { type: 'string' },
} as const;

export const CALLER_USAGE = `caller (docs/caller.md):
  --caller scripted|llm|external|replay   scripted (default, no key): the opening line, then silence;
                           llm: a digital human on MIVAS_CALLER_BASE_URL / MIVAS_CALLER_MODEL / MIVAS_CALLER_API_KEY;
                           external: each caller line typed at the terminal; replay: re-speak a recorded run's callers
  --caller-cache DIR       cache every caller request by the conversation so far (repeat runs ask nothing new; default MIVAS_CALLER_CACHE)
  --caller-frozen          read the cache only; a miss ends that call with cache_miss
  --caller-replay SNAPSHOTS   where the recorded caller.json files are (a directory or s3://), for --caller replay
  --caller-seed N          base of the per-(task, trial) seeds (default MIVAS_CALLER_SEED)
  --caller-model M         caller model (default MIVAS_CALLER_MODEL)
  --audio task|perfect     render each task's audio condition on the caller's audio (default MIVAS_CALLER_AUDIO)`;

export interface CallerFlagValues {
  readonly caller?: string;
  readonly 'caller-cache'?: string;
  readonly 'caller-frozen'?: boolean;
  readonly 'caller-replay'?: string;
  readonly 'caller-seed'?: string;
  readonly 'caller-model'?: string;
  readonly audio?: string;
}

/** Recorded callers of a snapshot store, by (task, trial); the newest run wins unless `runId` picks one. */
export async function loadRecordedCallers(source: SnapshotSource, runId: string | null): Promise<Map<string, { file: CallerFile; ref: string }>> {
  const byKey = new Map<string, { file: CallerFile; ref: string }>();
  for (const key of (await source.list()).filter((k) => k.endsWith('.caller.json'))) {
    const bytes = await source.read(key);
    if (!bytes) continue;
    const parsed = callerFileSchema.safeParse(JSON.parse(bytes.toString('utf8')));
    if (!parsed.success || !parsed.data.task_id || !parsed.data.trial) continue;
    if (runId && parsed.data.run_id !== runId) continue;
    byKey.set(`${parsed.data.task_id}#${parsed.data.trial}`, { file: parsed.data, ref: key.replace(/\.caller\.json$/, '') });
  }
  return byKey;
}

function openSource(where: string, config: Config, cwd: string): SnapshotSource {
  const s3 = parseS3Uri(where);
  return s3 ? s3Source(createS3Client(config.s3), s3.bucket, s3.prefix) : directorySource(resolve(cwd, where));
}

/** Where a run writes its callers' `caller.json`: the configured snapshot store (the service's, when the run shares its settings). */
export function callerSinkOf(config: Config, cwd: string): SnapshotSink {
  const target = config.snapshots;
  if (target.kind === 'directory') return directorySink(resolve(cwd, target.dir));
  return s3Sink(createS3Client({ endpoint: target.endpoint, region: target.region, forcePathStyle: target.forcePathStyle }), target.bucket, target.prefix);
}

/**
 * The run's caller settings from the flags and the configuration; a `ConfigError` names what is
 * missing (the llm caller without a key for a vendor endpoint, replay without recordings).
 */
export async function callerSettingsFrom(values: CallerFlagValues, config: Config, io: CliIO): Promise<CallerSettings> {
  const kind = (values.caller ?? 'scripted') as CallerKind;
  if (!CALLER_KINDS.includes(kind)) throw new ConfigError('USAGE', `--caller must be one of ${CALLER_KINDS.join(', ')} (got ${values.caller})`);
  const c = config.caller;
  const seedBase = values['caller-seed'] === undefined ? c.seedBase : Number(values['caller-seed']);
  if (!Number.isInteger(seedBase) || seedBase < 0) throw new ConfigError('USAGE', '--caller-seed must be a non-negative integer');
  const audio = values.audio ?? c.audio;
  if (audio !== 'task' && audio !== 'perfect') throw new ConfigError('USAGE', '--audio must be task or perfect');
  if (values['caller-frozen'] && !values['caller-cache']) throw new ConfigError('USAGE', '--caller-frozen needs --caller-cache DIR');
  const keyProblem = kind === 'llm' ? llmCallerProblem(config) : null;
  if (keyProblem) throw new ConfigError('CONFIG_INVALID', keyProblem);
  let replayOf: CallerSettings['replayOf'];
  if (kind === 'replay') {
    if (!values['caller-replay']) throw new ConfigError('USAGE', '--caller replay needs --caller-replay SNAPSHOTS (where the recorded caller.json files are)');
    const recorded = await loadRecordedCallers(openSource(values['caller-replay'], config, io.cwd), null);
    if (!recorded.size) throw new ConfigError('CONFIG_INVALID', `no recorded callers under ${values['caller-replay']}`);
    replayOf = (taskId, trial) => recorded.get(`${taskId}#${trial}`) ?? null;
  }
  const input = io.stdin;
  const cache = values['caller-cache'] ? directoryCache(resolve(io.cwd, values['caller-cache']), { frozen: values['caller-frozen'] ?? false }) : undefined;
  return {
    ...callerSettingsOf(config, { kind, seedBase, audio, ...(values['caller-model'] ? { model: values['caller-model'] } : {}), ...(cache ? { cache } : {}) }, io.cwd),
    ...(replayOf ? { replayOf } : {}),
    ...(kind === 'external' ? { externalTurns: () => terminalTurns(input ?? process.stdin, io.stderr) } : {}),
  };
}
