/** Issue 29: the CLI edges a new user hit, each failing with its catalogued code, exit status and a reason. */
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../../src/cli/index.ts';
import { endedLine } from '../../../src/cli/play-command.ts';
import { exitCodeOf } from '../../../src/core/index.ts';
import type { Pack } from '../../../src/packs/index.ts';
import { failReasons, formatCell } from '../../../src/scoring/index.ts';
import { loadControlPack, PACKS_DIR, writeSnapshotFiles } from '../../support/scoring-fixtures.ts';
import { replayWorkspace, S_E1_ROUTE, type ReplayWorkspace } from '../../support/scoring-replay.ts';

let pack: Pack;
let ws: ReplayWorkspace;
let dir: string;

async function cli(argv: string[], env: Record<string, string> = {}): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runCli(argv, { stdout: { write: (s: string) => ((out += s), true) }, stderr: { write: (s: string) => ((err += s), true) }, env, cwd: dir });
  return { code, out, err };
}

beforeAll(async () => {
  pack = await loadControlPack();
  ws = replayWorkspace(pack);
  dir = mkdtempSync(join(tmpdir(), 'mivas-edges-'));
  writeSnapshotFiles(join(dir, 'clean'), pack.id, 'c_ok', ws.replay(S_E1_ROUTE, { callId: 'c_ok', taskId: 'S-E1' }));
});
afterAll(() => {
  ws.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('a bad flag value: one line naming the flag and why, a hint to --help, exit 3', () => {
  it.each([
    [['score', '--snapshots', 'clean', '--k', 'zero'], /^mivas score: --k "zero": .+\nrun "mivas score --help" for every option\n$/],
    [['score', '--snapshots', 'clean', '--nope'], /^mivas score: Unknown option '--nope'.*\nrun "mivas score --help" for every option\n$/],
    [['run', '--pack', 'control-industry', '--harness', 'scripted', '--trials', 'five'], /^mivas run: --trials takes a whole number of at least 1 \(got "five"\)\nrun "mivas run --help" for every option\n$/],
    [['run', '--pack', 'control-industry', '--harness', 'scripted', '--shard', '3/2', '--run-id', 'run_x'], /^mivas run: --shard takes I\/N with 0 <= I < N \(got "3\/2"\)\n/],
    [['run', '--harness', 'scripted'], /^mivas run: --pack is required/],
    [['run', '--resume', 'run_abc', '--run-id', 'run_abc'], /^mivas run: --run-id, --rerun-voids and --resume each name the run: give one of them\n/],
    [['play', '--pack', 'healthcare', '--task', 'C1-E1', '--max-turns', '0'], /^mivas play: --max-turns takes a whole number of at least 1 \(got "0"\)\n/],
  ])('%j', async (argv, message) => {
    const r = await cli(argv);
    expect(r.code).toBe(3);
    expect(r.err).toMatch(message);
    expect(r.err).not.toContain('usage:');
  });
});

describe('mivas score', () => {
  it('s3:// without credentials: SNAPSHOT_STORE_UNREADABLE, exit 3, the store and the SDK error named, no stack', async () => {
    const saved = { ...process.env };
    // No credentials anywhere the AWS SDK looks, and no instance metadata to wait for.
    for (const key of ['AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY', 'AWS_SESSION_TOKEN', 'AWS_PROFILE', 'AWS_WEB_IDENTITY_TOKEN_FILE', 'AWS_CONTAINER_CREDENTIALS_RELATIVE_URI', 'AWS_CONTAINER_CREDENTIALS_FULL_URI']) delete process.env[key];
    Object.assign(process.env, { AWS_EC2_METADATA_DISABLED: 'true', AWS_SHARED_CREDENTIALS_FILE: join(dir, 'none'), AWS_CONFIG_FILE: join(dir, 'none') });
    try {
      const r = await cli(['score', '--snapshots', 's3://no-such-bucket/prefix', '--out', join(dir, 's3out')], { MIVAS_S3_ENDPOINT: 'http://127.0.0.1:9', MIVAS_S3_FORCE_PATH_STYLE: '1' });
      expect(r.code).toBe(exitCodeOf('SNAPSHOT_STORE_UNREADABLE'));
      expect(r.code).toBe(3);
      expect(r.err).toMatch(/^mivas score: cannot read s3:\/\/no-such-bucket\/prefix: \w+: .+credentials come from the AWS SDK's chain/);
      expect(r.err).not.toMatch(/\n\s+at /);
    } finally {
      // Put the values back into the real environment object: replacing process.env with a plain
      // object would cut this worker's later files (and the threads they start) off from it.
      for (const key of Object.keys(process.env)) if (!(key in saved)) delete process.env[key];
      Object.assign(process.env, saved);
    }
  }, 20_000);

  it('a corrupt summary.json (and timeline) is VOID snapshot_missing, not UNMAPPED no_task', async () => {
    cpSync(join(dir, 'clean'), join(dir, 'corrupt'), { recursive: true });
    writeFileSync(join(dir, 'corrupt', pack.id, 'c_ok.summary.json'), '{"run_id": "run_cut');
    writeFileSync(join(dir, 'corrupt', pack.id, 'c_ok.timeline.json'), '');
    const r = await cli(['score', '--snapshots', 'corrupt', '--packs-dir', PACKS_DIR, '--bootstrap', '50', '--out', join(dir, 'corrupt-out')]);
    expect(r.code).toBe(2);
    const [c] = (JSON.parse(readFileSync(join(dir, 'corrupt-out', 'scores.json'), 'utf8')) as { conversations: { status: string; void_reason: string | null; unmapped_reason: string | null; void_detail: string[] }[] }).conversations;
    expect(c).toMatchObject({ status: 'VOID', void_reason: 'snapshot_missing', unmapped_reason: null });
    expect(c?.void_detail).toEqual(expect.arrayContaining(['unreadable:summary.json', 'unreadable:timeline.json']));
  });

  it('takes the pack folder mivas run prints, and refuses one that contradicts --pack', async () => {
    const r = await cli(['score', '--snapshots', join('clean', pack.id), '--packs-dir', PACKS_DIR, '--bootstrap', '50', '--out', join(dir, 'folder-out')]);
    expect(r.code).toBe(0);
    expect(r.out).toContain('1 conversation(s): 1 pass');
    const clash = await cli(['score', '--snapshots', join('clean', pack.id), '--pack', 'healthcare']);
    expect(clash.code).toBe(3);
    expect(clash.err).toContain('is the folder of pack control-industry, but --pack says healthcare');
  });

  it('with one trial, pass^1 is one column; a control-only run says its headline is empty by design', async () => {
    const r = await cli(['score', '--snapshots', 'clean', '--packs-dir', PACKS_DIR, '--bootstrap', '50', '--k', '1', '--out', join(dir, 'k1')]);
    const header = r.out.split('\n').find((l) => l.startsWith('task ')) ?? '';
    expect(header.match(/pass\^1/g)).toHaveLength(1);
    expect(header).not.toMatch(/pass@1/);
    expect(r.out).toContain('headline: none, by design: control-industry is a wiring check, scored below and kept out of headline figures');
  });

  it('warns when the local spool holds snapshots the scored store does not', async () => {
    const data = join(dir, 'data');
    mkdirSync(join(data, 'spool', pack.id), { recursive: true });
    writeFileSync(join(data, 'spool', pack.id, 'loc_000000000001.summary.json'), '{}');
    const r = await cli(['score', '--snapshots', 'clean', '--packs-dir', PACKS_DIR, '--bootstrap', '50', '--out', join(dir, 'spool-out')], { MIVAS_DATA_DIR: data });
    expect(r.code).toBe(0);
    expect(r.err).toMatch(/^warning: 1 snapshot\(s\) of control-industry are still in the local spool .*spool and not in what is scored here/m);
    const quiet = await cli(['score', '--snapshots', 'clean', '--packs-dir', PACKS_DIR, '--bootstrap', '50', '--out', join(dir, 'spool-out')], { MIVAS_DATA_DIR: join(dir, 'empty-data') });
    expect(quiet.err).toBe('');
  });
});

describe('mivas run --resume without a record', () => {
  it('asks for the plan by name (exit 3) unless --pack, --harness and --trials give it', async () => {
    const r = await cli(['run', '--resume', 'run_000000000000'], { MIVAS_DATA_DIR: join(dir, 'no-runs') });
    expect(r.code).toBe(3);
    expect(r.err).toMatch(/--resume run_000000000000: no record of that run at .*runs\/run_000000000000\.json; name its plan with --pack, --harness and --trials/);
  });

  it('refuses flags that contradict the record, and an unreadable record with RUN_RECORD_INVALID', async () => {
    const data = join(dir, 'with-runs');
    mkdirSync(join(data, 'runs'), { recursive: true });
    writeFileSync(join(data, 'runs', 'run_aaaaaaaaaaaa.json'), JSON.stringify({ run_id: 'run_aaaaaaaaaaaa', pack: 'control-industry', harness: 'scripted', mode: 'voice', trials: 3, tasks: ['S-E1'], fast: true }));
    const clash = await cli(['run', '--resume', 'run_aaaaaaaaaaaa', '--trials', '5'], { MIVAS_DATA_DIR: data });
    expect(clash.code).toBe(3);
    expect(clash.err).toContain('the run was started with --trials 3, not 5');
    writeFileSync(join(data, 'runs', 'run_bbbbbbbbbbbb.json'), '{"run_id": 1}');
    const bad = await cli(['run', '--resume', 'run_bbbbbbbbbbbb'], { MIVAS_DATA_DIR: data });
    expect(bad.code).toBe(exitCodeOf('RUN_RECORD_INVALID'));
    expect(bad.err).toContain('is not a run record');
  });
});

describe('words', () => {
  it('a changed state field reads "expected X, got Y", never an arrow that looks like a change', () => {
    const gates = {
      state: { pass: false, diff: [{ kind: 'changed', table: 'appointments', key: { id: 'a1' }, field: 'status', expected: 'cancelled', actual: 'booked', rule: 'exact, text', allowed: false, unparsed: false }] },
      tools: { pass: true, missing: [], forbidden: [], scope_violations: [] },
      handoff: { pass: true },
    } as unknown as Parameters<typeof failReasons>[0];
    expect(failReasons(gates)).toEqual(['state: appointments {"id":"a1"} status: expected "cancelled", got "booked" (exact, text)']);
  });

  it('CSV text cells that a spreadsheet would run as a formula get a leading quote; numbers keep their sign', () => {
    expect(['=SUM(A1)', '+1', '-2 apples', '@cmd', '\tx', '\rx', 'plain', ''].map((t) => formatCell(t))).toEqual(["'=SUM(A1)", "'+1", "'-2 apples", "'@cmd", "'\tx", "'\rx", 'plain', '']);
    expect(formatCell(['=1', 'b'])).toBe("'=1;b");
    expect(formatCell(-0.5)).toBe('-0.5');
  });

  it('quitting mivas play is said as quitting, not as a time limit', () => {
    expect(endedLine({ end_reason: 'max_duration', truncated: 'policy_stopped', turns: 3 }, true)).toMatch(/^ended: you quit before the call ended, after 3 turns; scored as truncated/);
    expect(endedLine({ end_reason: 'max_duration', truncated: 'turn_cap', turns: 60 }, false)).toBe('ended: max_duration (truncated: turn_cap) after 60 turns');
  });
});
