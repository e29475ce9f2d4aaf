import { DeleteObjectCommand } from '@aws-sdk/client-s3';
import { accessSync, constants, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { createSpeechSynth } from '../audio/index.ts';
import type { Config } from '../config.ts';
import { EXIT, exitCodeOf, randomIds, systemClock } from '../core/index.ts';
import { loadPack } from '../packs/index.ts';
import { z } from 'zod';
import { createHarnessFactory, isRealtimeHarness, probeToolCalling, realtimeDialect, UNCONFIRMED_DETAILS, type ToolProbeResult } from '../providers/index.ts';
import { createS3Client, directorySink, s3Sink, type SnapshotSink } from '../snapshot/index.ts';
import { configFromFlags } from './config-flags.ts';
import type { CliIO, Command } from './io.ts';

/** One preflight check's verdict; a skipped check is ok (it found nothing wrong) and says why it did not run. */
interface Check {
  readonly name: string;
  readonly ok: boolean;
  readonly detail: string;
  readonly skipped?: true;
  /** The tool-calling probe's findings (the `tools` check only). */
  readonly result?: ToolProbeResult;
}

/** What `mivas preflight` leaves for `mivas run`: the tool-calling verdict of a harness and model. */
const toolRecordSchema = z.object({
  harness: z.string(),
  model: z.string(),
  tools: z.enum(['yes', 'no', 'error']),
  detail: z.string(),
  checked_at: z.string(),
});
export type ToolRecord = z.infer<typeof toolRecordSchema>;

/** `<dataDir>/preflight/<harness>.json`, the harness name's slash made a dash. */
export function toolRecordPath(dataDir: string, harness: string): string {
  return join(dataDir, 'preflight', `${harness.replace(/[^A-Za-z0-9_.-]+/g, '-')}.json`);
}

/** The last recorded verdict for a harness, or null when there is none (or it is unreadable). */
export function readToolRecord(dataDir: string, harness: string): ToolRecord | null {
  try {
    const parsed = toolRecordSchema.safeParse(JSON.parse(readFileSync(toolRecordPath(dataDir, harness), 'utf8')));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

function writeToolRecord(dataDir: string, harness: string, result: ToolProbeResult): void {
  const path = toolRecordPath(dataDir, harness);
  mkdirSync(join(dataDir, 'preflight'), { recursive: true });
  const record: ToolRecord = { harness, model: result.model, tools: result.tools, detail: result.detail, checked_at: new Date().toISOString() };
  writeFileSync(path, `${JSON.stringify(record, null, 2)}\n`);
}

/**
 * `mivas run`'s check before a scored run (issue 21): a realtime harness whose last preflight for
 * the configured model found no function calling (or could not check it) is refused, unless the
 * operator allows it. Returns the refusal, or null; a missing record only earns a note on stderr.
 */
export function toolGate(config: Config, io: CliIO, allowNoTools: boolean): string | null {
  const harness = config.harness;
  if (!isRealtimeHarness(harness)) return null;
  const dataDir = resolve(io.cwd, config.dataDir);
  const model = realtimeModel(config);
  const record = readToolRecord(dataDir, harness);
  if (!record || record.model !== model) {
    io.stderr.write(`note: function calling of ${harness} (${model}) is unchecked; \`mivas preflight --harness ${harness}\` checks it with one short session\n`);
    return null;
  }
  if (record.tools === 'yes') return null;
  const what = record.tools === 'no' ? 'found no function calling' : 'could not check function calling';
  const line = `the last preflight of ${harness} (${model}, ${record.checked_at}) ${what}: ${record.detail}`;
  if (allowNoTools) {
    io.stderr.write(`warning: ${line}; running anyway (--allow-no-tools)\n`);
    return null;
  }
  return `${line}\nscored tasks need tool calls: fix the harness settings and re-run \`mivas preflight --harness ${harness}\`, or pass --allow-no-tools`;
}

/** The model a realtime harness is configured with (Azure: its deployment). */
function realtimeModel(config: Config): string {
  const p = config.providers;
  switch (config.harness) {
    case 'azure/realtime':
      return p.azure.model;
    case 'xai/grok-voice':
      return p.xai.model;
    case 'qwen/omni-realtime':
      return p.qwen.model;
    default:
      return p.openai.model;
  }
}

const ms = (v: number | null): string => (v === null ? '-' : `${v} ms`);

/**
 * The capability check (issue 21): with the harness's key, a real session is opened, offered one
 * harmless tool and asked to call it. Without a key, or for a keyless harness, it is skipped with a
 * line that says why. The verdict is recorded for `mivas run`.
 */
async function checkTools(config: Config, dataDir: string, keyProblem: string | null, skip: boolean, timeoutMs: number): Promise<Check | null> {
  const harness = config.harness;
  if (!isRealtimeHarness(harness)) return null;
  if (keyProblem) return { name: 'tools', ok: true, skipped: true, detail: `skipped: no live check without the provider's settings (${keyProblem})` };
  if (skip) return { name: 'tools', ok: true, skipped: true, detail: 'skipped (--skip-tools): function calling not checked' };
  const result = await probeToolCalling(realtimeDialect(harness, config.providers), { timeoutMs });
  writeToolRecord(dataDir, harness, result);
  const timing = `handshake ${ms(result.handshakeMs)}, session ready ${ms(result.readyMs)}, tool call ${ms(result.toolCallMs)}, first audio ${ms(result.firstAudioMs)}`;
  return { name: 'tools', ok: result.tools === 'yes', detail: `${result.tools} (${result.model}): ${result.detail}; ${timing}`, result };
}

/** The earliest wall-clock time a sane host can report (the project's own start). */
const EARLIEST_SANE_EPOCH_MS = Date.UTC(2025, 0, 1);

async function run(name: string, fn: () => Promise<string> | string): Promise<Check> {
  try {
    return { name, ok: true, detail: await fn() };
  } catch (err) {
    return { name, ok: false, detail: err instanceof Error ? err.message : String(err) };
  }
}

function sinkOf(config: Config): { sink: SnapshotSink; remove: (key: string) => Promise<void> } {
  const target = config.snapshots;
  if (target.kind === 'directory') {
    const dir = resolve(target.dir);
    return { sink: directorySink(dir), remove: async (key) => rmSync(join(dir, key), { force: true }) };
  }
  const client = createS3Client({ endpoint: target.endpoint, region: target.region, forcePathStyle: target.forcePathStyle });
  const fullKey = (key: string): string => (target.prefix ? `${target.prefix}/${key}` : key);
  return { sink: s3Sink(client, target.bucket, target.prefix), remove: async (key) => void (await client.send(new DeleteObjectCommand({ Bucket: target.bucket, Key: fullKey(key) }))) };
}

/** Writes, reads back and deletes one object where snapshots go. */
async function checkStore(config: Config): Promise<string> {
  const { sink, remove } = sinkOf(config);
  const key = `_preflight/${randomIds().hex(12)}.txt`;
  const body = Buffer.from(`mivas preflight ${new Date().toISOString()}\n`);
  await sink.put(key, body);
  const back = await sink.get(key);
  if (!back?.equals(body)) throw new Error(`${sink.locate(key)}: read back different bytes`);
  await remove(key);
  if (await sink.exists(key)) throw new Error(`${sink.locate(key)}: still there after delete`);
  return `write/read/delete ok at ${sink.root}`;
}

function checkClock(): string {
  const epoch = Date.now();
  if (epoch < EARLIEST_SANE_EPOCH_MS) throw new Error(`wall clock reads ${new Date(epoch).toISOString()}: set the host time (summaries and OTLP spans carry it)`);
  const a = performance.now();
  const b = performance.now();
  if (b < a) throw new Error('monotonic clock went backwards');
  return `wall clock ${new Date(epoch).toISOString()}`;
}

/**
 * `mivas preflight`: configuration, pack, snapshot store, provider key, function calling (a live
 * session, realtime harnesses with a key) and clock, before serving.
 */
export const preflightCommand: Command = async (argv, io) => {
  const { values } = parseArgs({
    args: [...argv],
    options: { pack: { type: 'string' }, harness: { type: 'string' }, json: { type: 'boolean' }, 'skip-tools': { type: 'boolean' }, 'tools-timeout-s': { type: 'string' } },
  });
  const config = configFromFlags(io, { MIVAS_PACK: values.pack, MIVAS_HARNESS: values.harness });
  if (!config) return exitCodeOf('CONFIG_INVALID');
  const checks: Check[] = [{ name: 'configuration', ok: true, detail: `pack ${config.pack}, harness ${config.harness}, auth ${config.auth ? 'on' : 'off'}, max calls ${config.maxCalls}` }];
  checks.push(
    await run('pack', async () => {
      const pack = await loadPack(resolve(io.cwd, config.packsDir), config.pack, resolve(io.cwd, config.migrationsDir));
      return `${pack.id} loads: ${pack.tasks.size} tasks, version ${pack.packVersion.slice(0, 12)}`;
    }),
  );
  checks.push(
    await run('data directory', () => {
      const dir = resolve(io.cwd, config.dataDir);
      mkdirSync(dir, { recursive: true });
      accessSync(dir, constants.W_OK);
      return `${dir} is writable`;
    }),
  );
  checks.push(await run('snapshot store', () => checkStore(config)));
  const key = await run('provider key', async () => {
    // Building the harness factory is where a selected harness without its key is refused.
    const harness = createHarnessFactory(config.harness, { synth: await createSpeechSynth(16_000), clock: systemClock(), noopWaitMs: config.noopWaitMs, providers: config.providers });
    const azure = config.providers.azure;
    const transcripts = config.harness === 'azure/realtime' && !azure.transcriptionDeployment ? '; caller transcripts off (MIVAS_AZURE_TRANSCRIPTION_DEPLOYMENT unset)' : '';
    return `${harness.name} ready${transcripts}`;
  });
  checks.push(key);
  const unconfirmed = UNCONFIRMED_DETAILS[config.harness] ?? [];
  if (unconfirmed.length) checks.push({ name: 'reference', ok: true, detail: `not confirmed by the provider's reference (docs/providers.md): ${unconfirmed.join('; ')}` });
  const timeoutS = Number(values['tools-timeout-s'] ?? 30);
  const tools = await checkTools(config, resolve(io.cwd, config.dataDir), key.ok ? null : key.detail, values['skip-tools'] ?? false, Number.isFinite(timeoutS) && timeoutS > 0 ? timeoutS * 1000 : 30_000);
  if (tools) checks.push(tools);
  checks.push(await run('clock', checkClock));
  checks.push({ name: 'bluejay', ok: true, detail: config.bluejay.apiKey ? `key set; ${config.bluejay.tracingOn ? 'spans to ' + config.bluejay.otlpEndpoint + ', tool calls as trace_ids' : 'tool calls as tool_calls'}` : 'no key: calls are not linked (snapshots are unaffected)' });
  if (values.json) io.stdout.write(`${JSON.stringify(checks, null, 2)}\n`);
  else for (const c of checks) io.stdout.write(`${c.skipped ? 'skip' : c.ok ? 'ok  ' : 'FAIL'}  ${c.name}: ${c.detail}\n`);
  return checks.every((c) => c.ok) ? EXIT.ok : EXIT.checkFailed;
};
