import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { EXIT, exitCodeOf, PackError } from '../core/index.ts';
import { listPackIds, loadPack, type Pack } from '../packs/index.ts';
import { LUCK_CHECKS, schemaColumnsOf, validateTask, type TaskValidation } from '../scoring/index.ts';
import { CallDatabases, dumpDatabase, ensureTemplate } from '../store/index.ts';
import type { CliIO, Command } from './io.ts';

export const USAGE = `usage: mivas tasks validate [--pack P] [--packs-dir packs]

Checks every task (scoring.md §11): schema, tools and ownership, declared edges, the unique shortest
route, oracle replay of outputs and exp_db_state, policy coverage of every write, a failing no-op,
mutants that must fail and equivalents that must pass, and the checks that catch a task passed or
failed by luck (pins, route-lines, offers, state-writers; docs/scoring.md), each counted per pack.
Exit 0 all valid, 1 any invalid task or surviving mutant, 3 usage error.`;

const flagsSchema = z.object({ pack: z.string().regex(/^[a-z][a-z0-9-]*$/).optional(), 'packs-dir': z.string().min(1).default('packs') }).strict();

/** Validates every task of one pack on fresh copies of its template. */
export function validatePack(pack: Pack): TaskValidation[] {
  const work = mkdtempSync(join(tmpdir(), 'mivas-validate-'));
  const dbs = new CallDatabases(join(work, 'calls'), ensureTemplate(join(work, 'templates'), pack));
  try {
    const seedDb = dbs.create('seed');
    const env = { pack, dbs, seed: dumpDatabase(seedDb.sqlite), columns: schemaColumnsOf(seedDb.sqlite) };
    dbs.remove('seed');
    return [...pack.tasks.values()].map((task) => validateTask(env, task));
  } finally {
    dbs.closeAll();
    rmSync(work, { recursive: true, force: true });
  }
}

function report(io: CliIO, packId: string, results: readonly TaskValidation[]): { invalid: number; mutants: number; killed: number; equivalents: number; passed: number } {
  const totals = { invalid: 0, mutants: 0, killed: 0, equivalents: 0, passed: 0 };
  for (const r of results) {
    const mutants = r.results.filter((x) => x.kind === 'mutant');
    const equivalents = r.results.filter((x) => x.kind === 'equivalent');
    const killed = mutants.filter((m) => m.ok).length;
    const passed = equivalents.filter((e) => e.ok).length;
    const valid = r.problems.length === 0 && killed === mutants.length && passed === equivalents.length;
    totals.invalid += valid ? 0 : 1;
    totals.mutants += mutants.length;
    totals.killed += killed;
    totals.equivalents += equivalents.length;
    totals.passed += passed;
    io.stdout.write(`${packId}/${r.task_id}: ${valid ? 'valid' : 'INVALID'} · mutants ${killed}/${mutants.length} killed · equivalents ${passed}/${equivalents.length} pass\n`);
    for (const p of r.problems) io.stdout.write(`  error: ${p}\n`);
    for (const w of r.warnings) io.stdout.write(`  warning: ${w}\n`);
    for (const m of mutants.filter((x) => !x.ok)) io.stdout.write(`  survivor (${m.class}): ${m.description} scored ${m.status}\n`);
    for (const e of equivalents.filter((x) => !x.ok)) io.stdout.write(`  equivalent failed (${e.class}): ${e.description} scored ${e.status}, reward ${e.reward}\n`);
    for (const e of equivalents.filter((x) => x.reclassified)) io.stdout.write(`  note: ${e.description} leaves scored state unchanged; reclassified as equivalent\n`);
  }
  return totals;
}

/** One line per pack: how many problems each luck check found (`pins 0 · route-lines 0 · ...`). */
function checkCounts(results: readonly TaskValidation[]): string {
  const problems = results.flatMap((r) => r.problems);
  return `luck checks: ${LUCK_CHECKS.map((c) => `${c} ${problems.filter((p) => p.startsWith(`${c}: `)).length}`).join(' · ')}`;
}

function rate(part: number, whole: number): string {
  return whole ? `${((100 * part) / whole).toFixed(1)}%` : 'n/a';
}

/** `mivas tasks validate [--pack P]`: scoring.md §11 for every task of every (or one) pack. */
export const tasksValidateCommand: Command = async (argv, io) => {
  const { values } = parseArgs({ args: [...argv], options: { pack: { type: 'string' }, 'packs-dir': { type: 'string' }, help: { type: 'boolean' } } });
  const { help, ...rest } = values;
  const flags = flagsSchema.safeParse(rest);
  if (help || !flags.success) {
    io.stderr.write(`${USAGE}\n`);
    return help ? EXIT.ok : exitCodeOf('USAGE');
  }
  const packsDir = resolve(io.cwd, flags.data['packs-dir']);
  const ids = flags.data.pack ? [flags.data.pack] : listPackIds(packsDir);
  let failed = 0;
  for (const id of ids) {
    let pack: Pack;
    try {
      pack = await loadPack(packsDir, id);
    } catch (err) {
      if (!(err instanceof PackError) || err.code === 'PACK_NOT_FOUND') throw err;
      io.stdout.write(`${id}: INVALID\n${err.message}\n`);
      failed++;
      continue;
    }
    const results = validatePack(pack);
    const t = report(io, id, results);
    io.stdout.write(`${id}: ${checkCounts(results)}\n`);
    io.stdout.write(`${id}: ${pack.tasks.size - t.invalid}/${pack.tasks.size} tasks valid · kill rate ${rate(t.killed, t.mutants)} (${t.killed}/${t.mutants}) · equivalents ${rate(t.passed, t.equivalents)} (${t.passed}/${t.equivalents})\n`);
    failed += t.invalid;
  }
  return failed ? EXIT.checkFailed : EXIT.ok;
};
