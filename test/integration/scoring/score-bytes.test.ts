import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../../src/cli/index.ts';
import { scoreCorpusDir, type CorpusCounts } from '../../support/score-corpus.ts';
import { PACKS_DIR } from '../../support/scoring-fixtures.ts';

/**
 * Scoring may be made faster, never different: the fixture holds the sha256 of the files
 * `mivas score` writes for a fixed corpus from the recorded packs (test/support/score-corpus.ts), taken
 * with the scorer as it was before the streaming work (docs/performance.md "4. Scoring"). A
 * changed byte in any verdict, aggregate or interval shows here. When a pack's tasks, seed or
 * version change on purpose, or the scorer's rules do (SCORER_VERSION moves), refresh it with
 * `UPDATE_SCORE_PRINTS=1 npx vitest run <this file>` and say why in the commit.
 */
const FIXTURE = resolve(import.meta.dirname, '../../fixtures/score-bytes-prints.json');

/**
 * The packs the fixture was recorded on, before the streaming work, in packs/ order. A pack added
 * since (finance) has no earlier bytes to hold to, so it stays out of the corpus rather than moving
 * every pooled print.
 */
const RECORDED_PACKS = ['control-industry', 'customer-support', 'healthcare', 'legal'];

const OUTPUTS = ['scores.json', 'conversations.csv', 'run.json'];
const RUN_OUTPUTS = ['run_bytes/scores.json', 'run_bytes/conversations.csv', 'run_bytes/run.json', 'run_bytes_b/scores.json', 'run_bytes_b/run.json', 'runs.json'];

let corpus: { dir: string; counts: CorpusCounts; remove(): void };
let work: string;

beforeAll(async () => {
  corpus = await scoreCorpusDir({ trials: 3, packs: RECORDED_PACKS });
  work = mkdtempSync(join(tmpdir(), 'mivas-score-bytes-'));
  // A Bluejay mapping: a mapped set, one the platform says was not answered, one still running and one that left no snapshot.
  const result = (id: string, status: string, task: string) => ({ result_id: id, status, pack: 'healthcare', case_key: task });
  const mapping = { source: 'bluejay', results: [result('healthcare_000_t0', 'COMPLETED', 'C1-E1'), result('healthcare_001_t1', 'NO_ANSWER', 'C1-E2'), result('bj_running', 'RUNNING', 'C1-E1'), result('bj_gone', 'COMPLETED', 'C1-E3')] };
  writeFileSync(join(work, 'mapping.json'), JSON.stringify(mapping));
}, 240_000);
afterAll(() => {
  corpus.remove();
  rmSync(work, { recursive: true, force: true });
});

async function scorePrints(name: string, files: readonly string[], ...flags: string[]): Promise<{ code: number; prints: Record<string, string>; err: string; out: string }> {
  const out = join(work, name);
  const err: string[] = [];
  const io = { stdout: { write: () => true }, stderr: { write: (t: string) => err.push(t) }, env: {}, cwd: work };
  const code = await runCli(['score', '--snapshots', corpus.dir, '--out', out, '--packs-dir', PACKS_DIR, '--bootstrap', '500', ...flags], io);
  const prints = Object.fromEntries(files.map((file) => [file, createHash('sha256').update(readFileSync(join(out, file))).digest('hex')]));
  return { code, prints, err: err.join(''), out };
}

describe('mivas score on a fixed corpus from the recorded packs', () => {
  it('writes the same bytes as before the streaming work: pooled, one pack, runs apart, and with a mapping', async () => {
    const expected = JSON.parse(readFileSync(FIXTURE, 'utf8')) as Record<string, Record<string, string>>;
    const whole = await scorePrints('all', OUTPUTS);
    const one = await scorePrints('legal', OUTPUTS, '--pack', 'legal');
    const runs = await scorePrints('runs', RUN_OUTPUTS, '--all-runs');
    const mapped = await scorePrints('mapped', OUTPUTS, '--pack', 'healthcare', '--mapping', join(work, 'mapping.json'));
    const prints = { all: whole.prints, legal: one.prints, runs: runs.prints, mapped: mapped.prints };
    if (process.env.UPDATE_SCORE_PRINTS === '1') writeFileSync(FIXTURE, `${JSON.stringify(prints, null, 2)}\n`);
    expect(corpus.counts.packs).toBe(RECORDED_PACKS.length);
    // Some sets are void or unreadable on purpose, so the run is incomplete (exit 2), and the mislabelled one is named.
    expect(whole.code).toBe(2);
    expect(whole.err).toContain('a mislabelled set');
    const scores = JSON.parse(readFileSync(join(whole.out, 'scores.json'), 'utf8')) as { aggregates: { status: Record<string, number> } };
    expect(scores.aggregates.status.pass).toBeGreaterThan(0);
    expect(scores.aggregates.status.fail).toBeGreaterThan(0);
    expect(scores.aggregates.status.void).toBeGreaterThan(0);
    const withMapping = JSON.parse(readFileSync(join(mapped.out, 'scores.json'), 'utf8')) as { aggregates: { status: Record<string, number> } };
    expect(withMapping.aggregates.status.pending).toBe(1);
    expect(prints).toEqual(expected);
  }, 240_000);
});
