import { USAGE as BLUEJAY } from './bluejay-command.ts';
import { EXPORT_USAGE, VERIFY_USAGE } from './bundle-command.ts';
import { USAGE as CALL } from './call-command.ts';
import { USAGE as CHECK } from './check-command.ts';
import { USAGE as PACKS } from './packs-command.ts';
import { USAGE as PLAY } from './play-command.ts';
import { USAGE as REPORT } from './report-command.ts';
import { USAGE as RUN } from './run-command.ts';
import { USAGE as SCORE } from './score-command.ts';
import { USAGE as SERVE } from './serve-command.ts';
import { USAGE as TASKS_DIFF } from './tasks-diff.ts';
import { USAGE as TASKS_VALIDATE } from './tasks-validate.ts';

/** Usage of the commands whose files have none of their own (short enough to keep here). */
const PROBE = `usage: mivas probe ws[s]://HOST[:PORT]/probe [--user U --pass P] [--timeout-s 10]
       mivas probe --local

The 101 health probe: upgrade, one probe.ok frame, close 1000. --local probes this host's server
with its own credentials (the Docker HEALTHCHECK). Prints the result as JSON (credentials in the URL
are blanked); exit 0 on a good probe, 1 otherwise.`;

const PREFLIGHT = `usage: mivas preflight [--harness H] [--pack P] [--skip-tools] [--tools-timeout-s N]

Checks configuration, the pack, the snapshot store (write, read, delete), the clock and, with a
provider key, that a real session fires a test tool. Exit 0 when every check passes, 1 otherwise.`;

const TASKS_LIST = `usage: mivas tasks list --pack P [--packs-dir packs]

Prints the pack's category × difficulty grid, its audio-condition counts and the ids of its
tasks with duplex acts (the correction variants, docs/packs.md §3.8).`;

const TASKS_LOCK = `usage: mivas tasks lock --pack P [--task ID] [--packs-dir packs]

Replays each task's reference route through the conversation engine and writes exp_db_state only
when the replay matched the task; exits 1 when any task could not be locked.`;

/** Help text by command, and by "command subcommand" where subcommands differ. */
const TASKS = 'usage: mivas tasks lock|list|validate|diff [--pack P] (mivas tasks <sub> --help for each)';

const HELP: Readonly<Record<string, string>> = {
  run: RUN,
  call: CALL,
  play: PLAY,
  tasks: TASKS,
  serve: SERVE,
  probe: PROBE,
  preflight: PREFLIGHT,
  bluejay: BLUEJAY,
  packs: PACKS,
  'tasks validate': TASKS_VALIDATE,
  'tasks diff': TASKS_DIFF,
  'tasks list': TASKS_LIST,
  'tasks lock': TASKS_LOCK,
  score: SCORE,
  report: REPORT,
  export: EXPORT_USAGE,
  verify: VERIFY_USAGE,
  check: CHECK,
};

/** The help of `name [sub]`, or null when the command answers --help itself. */
export function helpOf(name: string, sub: string | undefined): string | null {
  return HELP[`${name} ${sub ?? ''}`.trim()] ?? HELP[name] ?? null;
}

export { wantsHelp } from './io.ts';
export { mivasVersion } from './version.ts';
