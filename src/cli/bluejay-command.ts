import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { BluejayApiError, BluejayClient, digitalHumanOf, isFinalStatus, type SimulationResult } from '../bluejay/index.ts';
import type { Config } from '../config.ts';
import { EXIT, exitCodeOf } from '../core/index.ts';
import { loadPack } from '../packs/index.ts';
import { bluejayMappingSchema } from '../scoring/index.ts';
import { configFromFlags } from './config-flags.ts';
import { failWith, type CliIO, type Command } from './io.ts';

export const USAGE = `usage:
  mivas bluejay push-tasks --pack P [--simulation-id ID] [--phone-number N] [--dry-run]
  mivas bluejay run --simulation-id ID [--digital-human-ids A,B]
  mivas bluejay poll --run ID [--interval-s 15] [--timeout-s 3600]
  mivas bluejay results --run ID --out mapping.json [--pack P]
BLUEJAY_API_KEY and BLUEJAY_API_URL come from the environment (push-tasks --dry-run needs neither).`;

function clientOf(config: Config, io: CliIO): BluejayClient | null {
  if (config.bluejay.apiKey) return new BluejayClient({ apiUrl: config.bluejay.apiUrl, apiKey: config.bluejay.apiKey, bounds: { timeoutMs: config.bluejay.timeoutMs, maxBodyBytes: config.bluejay.maxBodyBytes } });
  io.stderr.write('BLUEJAY_API_KEY is not set\n');
  return null;
}

const pushTasks: Command = async (argv, io) => {
  const { values } = parseArgs({ args: [...argv], options: { pack: { type: 'string' }, 'simulation-id': { type: 'string' }, 'phone-number': { type: 'string', default: '+15550100000' }, 'dry-run': { type: 'boolean' } } });
  const config = configFromFlags(io, { MIVAS_PACK: values.pack });
  if (!config || !values.pack) return failWith(io, config ? 'USAGE' : 'CONFIG_INVALID', USAGE);
  const pack = await loadPack(resolve(io.cwd, config.packsDir), config.pack, resolve(io.cwd, config.migrationsDir));
  const simulationIds = values['simulation-id'] ? [values['simulation-id']] : [];
  const bodies = [...pack.tasks.values()].map((task) => ({ simulation_ids: simulationIds, digital_human: digitalHumanOf(pack, task, values['phone-number']) }));
  if (values['dry-run']) {
    io.stdout.write(`${JSON.stringify(bodies, null, 2)}\n`);
    return EXIT.ok;
  }
  if (!simulationIds.length) return failWith(io, 'USAGE', 'push-tasks needs --simulation-id (or --dry-run)');
  const client = clientOf(config, io);
  if (!client) return exitCodeOf('BLUEJAY_KEY_MISSING');
  const created: { task_id: string; digital_human_id: string }[] = [];
  for (const body of bodies) {
    const id = await client.createDigitalHuman(body.simulation_ids, body.digital_human);
    created.push({ task_id: String(body.digital_human.test_name).split(':')[0] ?? '', digital_human_id: id });
  }
  io.stdout.write(`${JSON.stringify(created, null, 2)}\n`);
  return EXIT.ok;
};

const run: Command = async (argv, io) => {
  const { values } = parseArgs({ args: [...argv], options: { 'simulation-id': { type: 'string' }, 'digital-human-ids': { type: 'string' } } });
  const config = configFromFlags(io, {});
  if (!config || !values['simulation-id']) return failWith(io, config ? 'USAGE' : 'CONFIG_INVALID', USAGE);
  const client = clientOf(config, io);
  if (!client) return exitCodeOf('BLUEJAY_KEY_MISSING');
  const ids = values['digital-human-ids']?.split(',').map((s) => s.trim()).filter(Boolean);
  const queued = await client.queueSimulationRun(values['simulation-id'], ids);
  io.stdout.write(`${JSON.stringify({ simulation_run_id: queued.simulation_run_id, simulation_result_ids: queued.simulation_result_ids, status: queued.status ?? null }, null, 2)}\n`);
  return EXIT.ok;
};

/** Counts results by status and says whether every one is final. */
function tally(results: readonly SimulationResult[]): { counts: Record<string, number>; done: boolean } {
  const counts: Record<string, number> = {};
  for (const r of results) counts[r.status ?? 'UNKNOWN'] = (counts[r.status ?? 'UNKNOWN'] ?? 0) + 1;
  return { counts, done: results.length > 0 && results.every((r) => isFinalStatus(r.status)) };
}

const poll: Command = async (argv, io) => {
  const { values } = parseArgs({ args: [...argv], options: { run: { type: 'string' }, 'interval-s': { type: 'string', default: '15' }, 'timeout-s': { type: 'string', default: '3600' } } });
  const config = configFromFlags(io, {});
  if (!config || !values.run) return failWith(io, config ? 'USAGE' : 'CONFIG_INVALID', USAGE);
  const client = clientOf(config, io);
  if (!client) return exitCodeOf('BLUEJAY_KEY_MISSING');
  const deadline = performance.now() + Number(values['timeout-s']) * 1000;
  for (;;) {
    const { counts, done } = tally((await client.retrieveSimulationResults(values.run)).simulation_results);
    io.stdout.write(`${JSON.stringify({ run: values.run, done, counts })}\n`);
    if (done) return EXIT.ok;
    if (performance.now() >= deadline) return EXIT.incomplete;
    await new Promise((r) => setTimeout(r, Number(values['interval-s']) * 1000));
  }
};

const results: Command = async (argv, io) => {
  const { values } = parseArgs({ args: [...argv], options: { run: { type: 'string' }, out: { type: 'string' }, pack: { type: 'string' } } });
  const config = configFromFlags(io, {});
  if (!config || !values.run || !values.out) return failWith(io, config ? 'USAGE' : 'CONFIG_INVALID', USAGE);
  const client = clientOf(config, io);
  if (!client) return exitCodeOf('BLUEJAY_KEY_MISSING');
  const found = await client.retrieveSimulationResults(values.run);
  const mapped = [];
  for (const r of found.simulation_results) {
    // Results may omit the digital human's test name and traits; fetch them (the case key lives there).
    const dh = (!r.test_name || !r.traits) && r.digital_human_id ? await client.digitalHuman(r.digital_human_id).catch(() => null) : null;
    const traits = (r.traits ?? dh?.traits ?? undefined) || undefined;
    mapped.push({ result_id: r.id, ...(r.status ? { status: r.status } : {}), ...(values.pack ? { pack: values.pack } : {}), test_name: r.test_name ?? dh?.test_name ?? null, ...(traits ? { traits } : {}) });
  }
  const mapping = bluejayMappingSchema.parse({ source: 'bluejay', run_id: values.run, results: mapped });
  writeFileSync(resolve(io.cwd, values.out), `${JSON.stringify(mapping, null, 2)}\n`);
  const { counts, done } = tally(found.simulation_results);
  io.stdout.write(`${JSON.stringify({ out: values.out, results: mapped.length, counts })}\n`);
  return done ? EXIT.ok : EXIT.incomplete;
};

const SUBCOMMANDS: Readonly<Record<string, Command>> = { 'push-tasks': pushTasks, run, poll, results };

/** `mivas bluejay …`: digital humans from tasks, runs, polling and the result mapping the scorer reads. */
export const bluejayCommand: Command = async (argv, io) => {
  const [sub, ...rest] = argv;
  const command = sub ? SUBCOMMANDS[sub] : undefined;
  if (!command) {
    io.stderr.write(`${USAGE}\n`);
    return sub === undefined || sub === '--help' ? EXIT.ok : exitCodeOf('USAGE');
  }
  try {
    return await command(rest, io);
  } catch (err) {
    if (!(err instanceof BluejayApiError)) throw err;
    io.stderr.write(`mivas bluejay ${sub}: ${err.message}\n`);
    return exitCodeOf(err.code);
  }
};
