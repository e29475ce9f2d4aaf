import { loadConfig, type Config } from '../config.ts';
import type { CliIO } from './io.ts';

/** Parses configuration with CLI flags overriding the environment; prints every problem on failure. */
export function configFromFlags(io: CliIO, overrides: Record<string, string | undefined>): Config | null {
  const defined = Object.fromEntries(Object.entries(overrides).filter((e): e is [string, string] => e[1] !== undefined));
  const parsed = loadConfig(io.env, defined);
  if (parsed.ok) return parsed.config;
  io.stderr.write(`invalid configuration:\n${parsed.problems.map((p) => `  - ${p}`).join('\n')}\n`);
  return null;
}
