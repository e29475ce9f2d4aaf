import { EXIT, exitCodeOf, MivasError } from '../core/index.ts';
import { failWith, usageProblem, wantsHelp, type CliIO, type Command } from './io.ts';
import { mivasVersion } from './version.ts';

const USAGE = `mivas: deterministic voice-agent environments

usage: mivas <command> [options]

commands:
  run                      dial a pack's tasks K times as the local caller (starts the server in-process)
  serve                    run the service (CHIRP on /, probe on /probe, tools over HTTP)
  call                     dial one call against a running server
  probe URL                the 101 WebSocket health probe (--local: this host's server)
  preflight                check configuration, pack, snapshot store, provider key, function calling and clock
  bluejay push-tasks|run|poll|results   digital humans, runs and the result mapping
  packs generate|migrate|pronounce   regenerate tools.json / drizzle migrations; speak the pronunciation table
  tasks lock               fill a pack's exp_db_state by replay
  tasks list               print a pack's category × difficulty grid, audio counts and duplex tasks
  tasks validate           check tasks: shortest route, oracle replay, mutants and equivalents, provenance, necessity
  tasks diff               re-score stored snapshots under an older suite and list the verdicts that flip
  score                    score snapshots: verdicts, pass@1, pass^k, CSV/JSON/HTML
  report                   export the results pages (leaderboard, tasks, conversations) as static files
  export                   write a run's result bundle: scores, snapshot hashes (or snapshots), suite and versions, checksums
  verify BUNDLE            re-score a result bundle's snapshots and check that every figure matches
  check                    print each agent's instructions size and the exact tools a harness offers
  play                     play the agent of one task in the terminal (text), then see the verdict

Run "mivas <command> --help" (or "mivas help <command>") for a command's options; "mivas --version" for the version.`;

/** Each command's module, loaded when the command runs: `mivas serve` does not load the scorer, the report or the Bluejay client. */
const lazy =
  (load: () => Promise<Command>): Command =>
  async (argv, io) =>
    (await load())(argv, io);

/** The help text module (it names every command's usage, so it loads them all): loaded only to answer help. */
const helpOf = async (name: string, sub: string | undefined): Promise<string | null> => (await import('./help.ts')).helpOf(name, sub);

const TASKS: Readonly<Record<string, Command>> = {
  lock: lazy(async () => (await import('./tasks-lock.ts')).tasksLockCommand),
  list: lazy(async () => (await import('./tasks-list.ts')).tasksListCommand),
  validate: lazy(async () => (await import('./tasks-validate.ts')).tasksValidateCommand),
  diff: lazy(async () => (await import('./tasks-diff.ts')).tasksDiffCommand),
};

const tasksCommand: Command = async (argv, io) => {
  const [sub, ...rest] = argv;
  const command = sub && Object.hasOwn(TASKS, sub) ? TASKS[sub] : undefined;
  if (command) return command(rest, io);
  return failWith(io, 'USAGE', (await helpOf('tasks', undefined)) ?? 'usage: mivas tasks');
};

const COMMANDS: Readonly<Record<string, Command>> = {
  run: lazy(async () => (await import('./run-command.ts')).runCommand),
  serve: lazy(async () => (await import('./serve-command.ts')).serveCommand),
  call: lazy(async () => (await import('./call-command.ts')).callCommand),
  probe: lazy(async () => (await import('./probe-command.ts')).probeCommand),
  preflight: lazy(async () => (await import('./preflight-command.ts')).preflightCommand),
  bluejay: lazy(async () => (await import('./bluejay-command.ts')).bluejayCommand),
  packs: lazy(async () => (await import('./packs-command.ts')).packsCommand),
  tasks: tasksCommand,
  score: lazy(async () => (await import('./score-command.ts')).scoreCommand),
  report: lazy(async () => (await import('./report-command.ts')).reportCommand),
  export: lazy(async () => (await import('./bundle-command.ts')).exportCommand),
  verify: lazy(async () => (await import('./bundle-command.ts')).verifyCommand),
  check: lazy(async () => (await import('./check-command.ts')).checkCommand),
  play: lazy(async () => (await import('./play-command.ts')).playCommand),
};

/** Answers `--version`, `help [command]`, a bare `mivas`, an unknown command and `<command> --help`; null when argv is a command to run. */
async function answerMeta(argv: readonly string[], io: CliIO): Promise<number | null> {
  const [name, ...rest] = argv;
  if (name === '--version' || name === '-v' || name === 'version') {
    io.stdout.write(`mivas ${mivasVersion()} (node ${process.version})\n`);
    return EXIT.ok;
  }
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    const topic = name === 'help' ? rest[0] : undefined;
    io.stdout.write(`${(topic && (await helpOf(topic, rest[1]))) || USAGE}\n`);
    return EXIT.ok;
  }
  if (!COMMANDS[name]) {
    io.stderr.write(`mivas: unknown command ${JSON.stringify(name)}\n\n${USAGE}\n`);
    return exitCodeOf('USAGE');
  }
  const help = wantsHelp(rest) ? await helpOf(name, rest[0]) : null;
  if (help === null) return null;
  io.stdout.write(`${help}\n`);
  return EXIT.ok;
}

/** Dispatches argv to a command and returns its exit code; errors print without a stack. */
export async function runCli(argv: readonly string[], io: CliIO): Promise<number> {
  const answered = await answerMeta(argv, io);
  if (answered !== null) return answered;
  const [name, ...rest] = argv;
  const command = name ? COMMANDS[name] : undefined;
  if (!command) return exitCodeOf('USAGE');
  try {
    return await command(rest, io);
  } catch (err) {
    if (err instanceof MivasError) {
      io.stderr.write(`mivas ${name}: ${err.message}\n`);
      return exitCodeOf(err.code);
    }
    if (err instanceof TypeError && 'code' in err && String(err.code).startsWith('ERR_PARSE_ARGS')) return usageProblem(io, name as string, err.message);
    throw err;
  }
}

/** How long a process may linger after a usage or configuration error (exit 3) before it is ended. */
export const USAGE_EXIT_GRACE_MS = 500;

/**
 * The process entry (`bin/mivas.js`): runs the command and sets the exit code. A usage or
 * configuration error (3) is printed before anything long-running starts, so nothing should keep
 * the process alive after it; as a safety net against a timer or handle opened before the failing
 * step, the process then exits after a short grace (unref'd: a clean process exits at once).
 */
export async function main(argv: readonly string[], io: CliIO): Promise<void> {
  const code = await runCli(argv, io);
  process.exitCode = code;
  if (code === EXIT.usage) setTimeout(() => process.exit(code), USAGE_EXIT_GRACE_MS).unref();
}
