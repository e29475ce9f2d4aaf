import type { SpeechSynth } from '../audio/index.ts';
import { exitCodeOf, type CliErrorCode } from '../core/index.ts';

/** What a command may touch: output streams and the environment (architecture.md convention 11). */
export interface CliIO {
  readonly stdout: { write(text: string): unknown; readonly isTTY?: boolean };
  readonly stderr: { write(text: string): unknown; readonly isTTY?: boolean };
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly cwd: string;
  /** Standard input, for commands that read a person's lines (`--caller external`, `mivas play`); absent in most tests. */
  readonly stdin?: NodeJS.ReadableStream;
  /** The local caller's voice for `mivas run` (default: espeak-ng, else tones); tests give the modem so a stand-in agent can read the caller's words. */
  readonly synth?: SpeechSynth;
  /** Where SIGINT arrives (default: the process); tests give an emitter of their own. */
  readonly signals?: { on(event: 'SIGINT', listener: () => void): unknown; off(event: 'SIGINT', listener: () => void): unknown };
}

/** A subcommand: parses its own arguments and returns an exit code (architecture.md §14). */
export type Command = (argv: readonly string[], io: CliIO) => Promise<number>;

/** Prints a command-line problem to stderr and returns the exit status the error catalog gives its code. */
export function failWith(io: CliIO, code: CliErrorCode, text: string): number {
  io.stderr.write(text.endsWith('\n') ? text : `${text}\n`);
  return exitCodeOf(code);
}

/** A bad command line: one line naming the flag and why, and where the usage is (never the whole usage). */
export function usageProblem(io: CliIO, command: string, problem: string): number {
  return failWith(io, 'USAGE', `mivas ${command}: ${problem}\nrun "mivas ${command} --help" for every option`);
}

/** True when argv asks for help (before a `--` that ends the options). */
export function wantsHelp(argv: readonly string[]): boolean {
  const end = argv.indexOf('--');
  return (end < 0 ? argv : argv.slice(0, end)).some((a) => a === '--help' || a === '-h');
}
