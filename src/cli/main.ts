import { EXIT, exitCodeOf, MivasError } from '../core/index.ts';
import { failWith, type CliIO, type Command } from './io.ts';
import { bluejayCommand } from './bluejay-command.ts';
import { callCommand } from './call-command.ts';
import { checkCommand } from './check-command.ts';
import { packsCommand } from './packs-command.ts';
import { playCommand } from './play-command.ts';
import { preflightCommand } from './preflight-command.ts';
import { probeCommand } from './probe-command.ts';
import { reportCommand } from './report-command.ts';
import { runCommand } from './run-command.ts';
import { scoreCommand } from './score-command.ts';
import { serveCommand } from './serve-command.ts';
import { tasksListCommand } from './tasks-list.ts';
import { tasksLockCommand } from './tasks-lock.ts';
import { tasksValidateCommand } from './tasks-validate.ts';

const USAGE = `mivas: deterministic voice-agent environments

usage: mivas <command> [options]

commands:
  run                      dial a pack's tasks K times as the local caller (starts the server in-process)
  serve                    run the service (CHIRP on /, probe on /probe, tools over HTTP)
  call                     dial one call against a running server
  probe URL                the 101 WebSocket health probe (--local: this host's server)
  preflight                check configuration, pack, snapshot store, provider key and clock
  bluejay push-tasks|run|poll|results   digital humans, runs and the result mapping
  packs generate|migrate   regenerate tools.json / drizzle migrations
  tasks lock               fill a pack's exp_db_state by replay
  tasks list               print a pack's category × difficulty grid and audio counts
  tasks validate           check tasks: shortest route, oracle replay, mutants and equivalents
  score                    score snapshots: verdicts, pass@1, pass^k, CSV/JSON/HTML
  report                   export the results pages (leaderboard, tasks, conversations) as static files
  check                    print each agent's instructions size and the exact tools a harness offers
  play                     play the agent of one task in the terminal (text), then see the verdict

Run "mivas <command> --help" for a command's options.`;

const tasksCommand: Command = async (argv, io) => {
  const [sub, ...rest] = argv;
  if (sub === 'lock') return tasksLockCommand(rest, io);
  if (sub === 'list') return tasksListCommand(rest, io);
  if (sub === 'validate') return tasksValidateCommand(rest, io);
  return failWith(io, 'USAGE', 'usage: mivas tasks lock|list|validate [--pack P]');
};

const COMMANDS: Readonly<Record<string, Command>> = {
  run: runCommand,
  serve: serveCommand,
  call: callCommand,
  probe: probeCommand,
  preflight: preflightCommand,
  bluejay: bluejayCommand,
  packs: packsCommand,
  tasks: tasksCommand,
  score: scoreCommand,
  report: reportCommand,
  check: checkCommand,
  play: playCommand,
};

/** Dispatches argv to a command and returns its exit code; errors print without a stack. */
export async function runCli(argv: readonly string[], io: CliIO): Promise<number> {
  const [name, ...rest] = argv;
  const command = name ? COMMANDS[name] : undefined;
  if (!command) {
    io.stderr.write(`${USAGE}\n`);
    return name === undefined || name === '--help' || name === '-h' ? EXIT.ok : exitCodeOf('USAGE');
  }
  try {
    return await command(rest, io);
  } catch (err) {
    if (err instanceof MivasError) {
      io.stderr.write(`mivas ${name}: ${err.message}\n`);
      return exitCodeOf(err.code);
    }
    if (err instanceof TypeError && 'code' in err && String(err.code).startsWith('ERR_PARSE_ARGS')) {
      io.stderr.write(`mivas ${name}: ${err.message}\n`);
      return exitCodeOf('USAGE');
    }
    throw err;
  }
}
