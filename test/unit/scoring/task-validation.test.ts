import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../../src/cli/index.ts';
import type { Pack, Task } from '../../../src/packs/index.ts';
import { shortestRoutes } from '../../../src/scoring/route-search.ts';
import { staticTaskProblems, taskSchemaProblems } from '../../../src/scoring/task-checks.ts';
import { schemaColumnsOf, validateTask, type TaskValidation, type ValidationEnv } from '../../../src/scoring/task-validation.ts';
import { CallDatabases, dumpDatabase, ensureTemplate } from '../../../src/store/index.ts';
import { loadControlPack, PACKS_DIR } from '../../support/scoring-fixtures.ts';
import { copyControlPack, relayPack, relayTask } from '../../support/scoring-packs.ts';

let control: Pack;
let relay: Pack;
let dir: string;
let dbs: CallDatabases;
let env: (pack: Pack) => ValidationEnv;

beforeAll(async () => {
  control = await loadControlPack();
  relay = relayPack(control);
  dir = mkdtempSync(join(tmpdir(), 'mivas-val-'));
  dbs = new CallDatabases(join(dir, 'calls'), ensureTemplate(join(dir, 'templates'), control));
  const seedDb = dbs.create('seed');
  const seed = dumpDatabase(seedDb.sqlite);
  const columns = schemaColumnsOf(seedDb.sqlite);
  dbs.remove('seed');
  env = (pack) => ({ pack, dbs, seed, columns });
});
afterAll(() => {
  dbs.closeAll();
  rmSync(dir, { recursive: true, force: true });
});

const task = (id: string): Task => control.tasks.get(id) as Task;
const validate = (pack: Pack, t: Task): TaskValidation => validateTask(env(pack), t);
const io = () => {
  const out: string[] = [];
  return { out, io: { stdout: { write: (s: string) => out.push(s) }, stderr: { write: (s: string) => out.push(s) }, env: {}, cwd: dir } };
};

describe('tasks validate (scoring.md §11)', () => {
  it('schema errors, unknown or unowned tools and undeclared path edges are each reported', () => {
    expect(taskSchemaProblems({ ...task('S-E1'), behaviors: { creativity: 1 } })).toEqual([expect.stringMatching(/^schema: behaviors\.creativity/)]);
    const columns = env(control).columns;
    expect(staticTaskProblems(control, { ...task('S-E1'), compare: { tables: { appointmentz: { scored: true } } } }, columns)).toEqual(['compare.tables.appointmentz: no such table']);
    expect(staticTaskProblems(control, { ...task('S-E1'), exp_tool_calls: [{ name: 'teleport' }] }, columns)).toEqual(['exp_tool_calls[0] teleport: unknown tool']);
    expect(staticTaskProblems(control, { ...task('S-E1'), exp_handoff_path: [] }, columns)).toEqual(['exp_tool_calls[0] book_appointment: owned by no agent on the route (reception)']);
    expect(staticTaskProblems(relay, relayTask(control, { exp_handoff_path: ['transfer_to_scheduler'] }), columns)).toEqual(
      expect.arrayContaining(['exp_handoff_path[0]: edge reception → scheduler is not declared']),
    );
    expect(staticTaskProblems(control, { ...task('S-E1'), exp_tool_calls: [{ name: 'book_appointment', parameters: { date: 'Oct 7' } }] }, columns)).toEqual([
      'exp_tool_calls[0] book_appointment: date="Oct 7" does not validate against the input schema',
    ]);
    expect(staticTaskProblems(control, { ...task('S-E1'), exp_tool_calls: [{ name: 'book_appointment', parameters: { date: '2026-10-07' }, output: { ok: true, data: { fee: 1 } } }] }, columns)).toEqual([
      'exp_tool_calls[0] book_appointment: output field fee is not returned by the tool',
    ]);
  });

  it('a path longer than the BFS shortest route is rejected', () => {
    const longer = relayTask(control, { exp_handoff_path: ['transfer_to_intake', 'transfer_to_triage', 'transfer_to_scheduler'] });
    expect(staticTaskProblems(relay, longer, env(relay).columns)).toEqual([expect.stringMatching(/is not the shortest route \[transfer_to_intake, transfer_to_scheduler\]/)]);
  });

  it('two equal shortest routes are rejected as ambiguous', () => {
    const bookOnly = relayTask(control, { exp_tool_calls: [task('S-E1').exp_tool_calls[0]!], exp_handoff_path: ['transfer_to_intake', 'transfer_to_scheduler'] });
    expect(shortestRoutes(relay, bookOnly.exp_tool_calls)).toEqual({ hops: 2, count: 2, path: null });
    expect(staticTaskProblems(relay, bookOnly, env(relay).columns)).toEqual(['route: 2 shortest routes of 2 hop(s); the task is ambiguous']);
  });

  it('oracle replay reproduces the outputs and exp_db_state', () => {
    for (const id of ['S-E1', 'S-E2', 'S-E3']) expect(validate(control, task(id)).problems).toEqual([]);
    const stale = validate(control, { ...task('S-E1'), exp_db_state: { appointments: [] } });
    expect(stale.problems).toContain('oracle: the replayed state differs from exp_db_state (run `mivas tasks lock`)');
    const drifted = validate(control, { ...task('S-E2'), exp_tool_calls: [{ ...task('S-E2').exp_tool_calls[0]!, output: { ok: true, data: { status: 'open' } } }, task('S-E2').exp_tool_calls[1]!] });
    expect(drifted.problems).toContain('oracle: #1 check_date output.data.status declared "open", got "closed"');
  });

  it('a refused expected write fails validation', () => {
    const sunday = { ...task('S-E1'), exp_tool_calls: [{ name: 'book_appointment', parameters: { date: '2026-10-11' } }] };
    expect(validate(control, sunday).problems).toContain('oracle: #1 book_appointment output.ok declared true, got false');
  });

  it('a written table missing from the policy is reported', () => {
    const { appointments: _gone, ...tables } = control.compare.tables;
    const unpoliced = { ...control, compare: { ...control.compare, tables } };
    expect(validate(unpoliced, task('S-E1')).problems).toContain('policy: table appointments is written but has no compare.json entry');
  });

  it('a no-op that passes rejects the task', () => {
    const idle = { ...task('S-E3'), exp_tool_calls: [], exp_handoff_path: [], forbidden_tools: [] };
    expect(validate(control, idle).problems).toContain('no-op: doing nothing scores PASS; the task is not measurable');
  });

  it('every mutant class fails on the sample task', () => {
    const results = [...validate(relay, relayTask(control)).results, ...validate(control, task('S-E3')).results].filter((r) => r.kind === 'mutant');
    expect(new Set(results.map((r) => r.class))).toEqual(new Set(['drop_call', 'perturb_argument', 'drop_hop', 'swap_hops', 'forbidden_tool', 'extra_write', 'wrong_agent']));
    expect(results.filter((r) => !r.ok)).toEqual([]);
  });

  it('every equivalent class passes, with the stated reward', () => {
    const results = validate(relay, relayTask(control)).results.filter((r) => r.kind === 'equivalent' && !r.reclassified);
    expect(results.map((r) => [r.class, r.status, r.reward, r.ok])).toEqual([
      ['extra_read', 'PASS', 1, true],
      ['extra_hop', 'PASS', 0.75, true],
      ['failed_retry', 'PASS', 1, true],
      ['snapshot_noise', 'PASS', 1, true],
    ]);
  });

  it('an idempotent extra write is reclassified as an equivalent', () => {
    const repeat = validate(control, task('S-E1')).results.find((r) => r.description === 'repeat book_appointment');
    expect(repeat).toMatchObject({ kind: 'equivalent', class: 'extra_write', reclassified: true, status: 'PASS', ok: true });
  });

  it('mivas tasks validate --pack control-industry reports 100% kill', async () => {
    const h = io();
    expect(await runCli(['tasks', 'validate', '--pack', 'control-industry', '--packs-dir', PACKS_DIR], h.io)).toBe(0);
    expect(h.out.join('')).toMatch(/control-industry: 3\/3 tasks valid · kill rate 100\.0% \(\d+\/\d+\) · equivalents 100\.0%/);
  });

  it('a survivor blocks release, giving exit code 1', async () => {
    const packsDir = copyControlPack(join(dir, 'copy'), { id: 'S-E1', edit: (raw) => ({ ...raw, compare: { tables: { appointments: { scored: true, key: ['date'], mode: 'subset' } } } }) });
    const h = io();
    expect(await runCli(['tasks', 'validate', '--pack', 'control-industry', '--packs-dir', packsDir], h.io)).toBe(1);
    expect(h.out.join('')).toMatch(/survivor \(extra_write\): extra book_appointment with date="2026-10-08" scored PASS/);
    expect(await runCli(['tasks', 'validate', '--pack', 'no-such-pack', '--packs-dir', packsDir], io().io)).toBe(3);
  });
});
