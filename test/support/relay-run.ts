import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { runCli, type CliIO } from '../../src/cli/index.ts';
import { timelineFileSchema, type TimelineEvent } from '../../src/snapshot/index.ts';
import { modemSynth } from './text-modem.ts';

const REPO = resolve(import.meta.dirname, '../..');

/** One scored conversation of a run, as scores.json holds it. */
export interface ScoredConversation {
  readonly conversation_id: string;
  readonly task_id: string;
  readonly status: string;
  readonly reward: number | null;
}

/** What `mivas run` against a relay stand-in left: its exit code and output, its scores and each call's timeline. */
export interface RelayRun {
  readonly code: number;
  readonly out: string;
  readonly err: string;
  /** The run's data directory (write a desk map there before the run with `prepare`). */
  readonly dir: string;
  scores(): ScoredConversation[];
  timeline(callId: string): TimelineEvent[];
  dispose(): void;
}

/**
 * Runs `mivas run --pack <pack> --harness <harness> --trials <trials> --fast` in-process (the
 * command a team runs), the caller speaking the test modem so a stand-in agent can read its words.
 */
export async function runRelay(pack: string, harness: string, trials: number, env: (dir: string) => Record<string, string>): Promise<RelayRun> {
  const dir = mkdtempSync(join(tmpdir(), 'mivas-relay-run-'));
  const out: string[] = [];
  const err: string[] = [];
  const io: CliIO = {
    stdout: { write: (t: string) => out.push(t) },
    stderr: { write: (t: string) => err.push(t) },
    env: { MIVAS_DATA_DIR: dir, MIVAS_PACKS_DIR: join(REPO, 'packs'), MIVAS_MIGRATIONS_DIR: join(REPO, 'migrations'), MIVAS_LOG_LEVEL: 'silent', ...env(dir) },
    cwd: REPO,
    synth: modemSynth(),
  };
  const code = await runCli(['run', '--pack', pack, '--harness', harness, '--trials', String(trials), '--fast', '--concurrency', '3'], io);
  const text = out.join('');
  return {
    code,
    out: text,
    err: err.join(''),
    dir,
    scores() {
      const line = text.split('\n').find((l) => l.startsWith('wrote ') && l.includes('scores.json'));
      return (JSON.parse(readFileSync(line?.slice('wrote '.length).split(', ')[0] ?? '', 'utf8')) as { conversations: ScoredConversation[] }).conversations;
    },
    timeline(callId) {
      return timelineFileSchema.parse(JSON.parse(readFileSync(join(dir, 'snapshots', pack, `${callId}.timeline.json`), 'utf8'))).events;
    },
    dispose() {
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
