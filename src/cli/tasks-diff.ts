import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { EXIT } from '../core/index.ts';
import { loadSnapshots, scoreRun, scoresJson, type ConversationVerdict, type ScoreOptions } from '../scoring/index.ts';
import { failWith, type Command } from './io.ts';
import { loadPacks, openSource, skipNotice } from './score-command.ts';

export const USAGE = `usage: mivas tasks diff --snapshots <dir|s3://bucket/prefix> (--before-ref GIT_REF | --before-packs DIR) [--packs-dir packs] [--pack P] [--fail-on-flip] [--out DIR]

Re-scores stored snapshots under two versions of the task suites: the packs of a git ref (or the
packs dir of another checkout) "before", and the current packs "after", both with this checkout's
scorer, and lists every conversation whose verdict flips, with the reasons on each side. Pack drift is allowed on both sides (the point
is to compare). --out DIR also writes both scorings (DIR/before, DIR/after) and flips.json, for the
verdict-flip view: mivas report --scores DIR/after --before DIR/before. Exit 0, or 1 with
--fail-on-flip when anything flips; 3 on usage errors.`;

/** One conversation whose verdict differs between the two suite versions. */
export interface VerdictFlip {
  readonly conversationId: string;
  readonly taskId: string | null;
  readonly before: string;
  readonly after: string;
  readonly reasons: readonly string[];
}

function verdictOf(v: ConversationVerdict): string {
  return v.reward === null ? v.status : `${v.status} ${v.reward.toFixed(3)}`;
}

/** The conversations whose status or reward differs, in conversation order. */
export function verdictFlips(before: readonly ConversationVerdict[], after: readonly ConversationVerdict[]): VerdictFlip[] {
  const old = new Map(before.map((v) => [v.conversation_id, v]));
  return after.flatMap((v) => {
    const was = old.get(v.conversation_id);
    if (!was || verdictOf(was) === verdictOf(v)) return [];
    return [{ conversationId: v.conversation_id, taskId: v.task_id, before: verdictOf(was), after: verdictOf(v), reasons: [...was.fail_reasons.map((r) => `before: ${r}`), ...v.fail_reasons.map((r) => `after: ${r}`)] }];
  });
}

/**
 * Writes `packs/` and `migrations/` of a git ref into a temporary folder beside links to this
 * checkout's `src/` and `node_modules/` (pack code imports the kit by relative path); returns its
 * packs dir. The old suite is scored by the current scorer.
 */
function packsOfRef(cwd: string, ref: string, into: string): string {
  const tar = execFileSync('git', ['archive', '--format=tar', ref, 'packs', 'migrations'], { cwd, maxBuffer: 512 * 1024 * 1024 });
  execFileSync('tar', ['-x', '-C', into], { input: tar });
  for (const name of ['src', 'node_modules']) symlinkSync(resolve(cwd, name), join(into, name), 'dir');
  return join(into, 'packs');
}

/** `mivas tasks diff`: the verdict-flip report between two suite versions (issue 18). */
export const tasksDiffCommand: Command = async (argv, io) => {
  const { values } = parseArgs({
    args: [...argv],
    options: { snapshots: { type: 'string' }, out: { type: 'string' }, 'before-ref': { type: 'string' }, 'before-packs': { type: 'string' }, 'packs-dir': { type: 'string', default: 'packs' }, pack: { type: 'string' }, 'fail-on-flip': { type: 'boolean' }, help: { type: 'boolean' } },
  });
  if (values.help) {
    io.stdout.write(`${USAGE}\n`);
    return EXIT.ok;
  }
  if (!values.snapshots || (!values['before-ref'] === !values['before-packs'])) return failWith(io, 'USAGE', USAGE);
  const work = mkdtempSync(join(tmpdir(), 'mivas-tasks-diff-'));
  try {
    const beforeDir = values['before-ref'] ? packsOfRef(io.cwd, values['before-ref'], work) : resolve(io.cwd, values['before-packs'] ?? '');
    const notice = skipNotice(io, 'mivas tasks diff');
    const snapshots = await loadSnapshots(openSource({ snapshots: values.snapshots }, io, { onSkip: notice }), values.pack, notice);
    if (!snapshots.length) return failWith(io, 'SNAPSHOTS_NOT_FOUND', `mivas tasks diff: no snapshots under ${values.snapshots}`);
    const ids = new Set(snapshots.map((s) => s.pack));
    // With --out the scorings are kept for the pages, so their aggregates get the usual k and bootstrap.
    const options: ScoreOptions = values.out
      ? { k: 5, seed: 1729, resamples: 2000, minCallMs: 0, allowPackDrift: true, pack: values.pack ?? null, stamp: null, flags: { fast: true, allow_pack_drift: true } }
      : { k: 1, seed: 1, resamples: 10, minCallMs: 0, allowPackDrift: true, pack: values.pack ?? null, stamp: null, flags: {} };
    const beforeReport = scoreRun(snapshots, await loadPacks(ids, beforeDir), new Map(), options);
    const afterReport = scoreRun(snapshots, await loadPacks(ids, resolve(io.cwd, values['packs-dir'] ?? 'packs')), new Map(), options);
    const flips = verdictFlips(beforeReport.conversations, afterReport.conversations);
    if (values.out) {
      const out = resolve(io.cwd, values.out);
      for (const [name, report] of [['before', beforeReport], ['after', afterReport]] as const) {
        mkdirSync(join(out, name), { recursive: true });
        writeFileSync(join(out, name, 'scores.json'), scoresJson(report));
      }
      writeFileSync(join(out, 'flips.json'), `${JSON.stringify({ flips }, null, 2)}\n`);
    }
    for (const f of flips) {
      io.stdout.write(`${f.conversationId} (${f.taskId ?? 'no task'}): ${f.before} → ${f.after}\n`);
      for (const r of f.reasons) io.stdout.write(`  ${r}\n`);
    }
    io.stdout.write(`${flips.length} of ${afterReport.conversations.length} conversations flip\n`);
    if (values.out) io.stdout.write(`wrote ${join(resolve(io.cwd, values.out), 'before')}, after/ and flips.json; view them with mivas report --scores ${join(values.out, 'after')} --before ${join(values.out, 'before')}\n`);
    return flips.length && values['fail-on-flip'] ? EXIT.checkFailed : EXIT.ok;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
};
