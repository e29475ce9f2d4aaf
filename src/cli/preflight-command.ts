import { DeleteObjectCommand } from '@aws-sdk/client-s3';
import { accessSync, constants, mkdirSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { createSpeechSynth } from '../audio/index.ts';
import type { Config } from '../config.ts';
import { EXIT, exitCodeOf, randomIds, systemClock } from '../core/index.ts';
import { loadPack } from '../packs/index.ts';
import { createHarnessFactory } from '../providers/index.ts';
import { createS3Client, directorySink, s3Sink, type SnapshotSink } from '../snapshot/index.ts';
import { configFromFlags } from './config-flags.ts';
import type { Command } from './io.ts';

/** One preflight check's verdict. */
interface Check {
  readonly name: string;
  readonly ok: boolean;
  readonly detail: string;
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

/** `mivas preflight`: configuration, pack, snapshot store, provider key and clock, before serving. */
export const preflightCommand: Command = async (argv, io) => {
  const { values } = parseArgs({ args: [...argv], options: { pack: { type: 'string' }, harness: { type: 'string' }, json: { type: 'boolean' } } });
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
  checks.push(
    await run('provider key', async () => {
      // Building the harness factory is where a selected harness without its key is refused.
      const harness = createHarnessFactory(config.harness, { synth: await createSpeechSynth(16_000), clock: systemClock(), noopWaitMs: config.noopWaitMs, providers: config.providers });
      return `${harness.name} ready`;
    }),
  );
  checks.push(await run('clock', checkClock));
  checks.push({ name: 'bluejay', ok: true, detail: config.bluejay.apiKey ? `key set; ${config.bluejay.tracingOn ? 'spans to ' + config.bluejay.otlpEndpoint + ', tool calls as trace_ids' : 'tool calls as tool_calls'}` : 'no key: calls are not linked (snapshots are unaffected)' });
  if (values.json) io.stdout.write(`${JSON.stringify(checks, null, 2)}\n`);
  else for (const c of checks) io.stdout.write(`${c.ok ? 'ok  ' : 'FAIL'}  ${c.name}: ${c.detail}\n`);
  return checks.every((c) => c.ok) ? EXIT.ok : EXIT.checkFailed;
};
