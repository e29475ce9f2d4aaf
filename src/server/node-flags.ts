import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/**
 * Node flags `mivas serve` should start with; the image's CMD passes them (a test keeps the two equal).
 *
 * `--initial-old-space-size=256`: with V8's default, the old-generation limit sits just above the
 * live heap (about 40 MB at 50 calls), so full collections run every second or two, and each
 * stall holds every call's pacer at once. Starting the old generation at 256 MB leaves one or two
 * per run: on the bench's 2-core VM the largest N held went from 25 to 50 calls per core, and at
 * 100 calls the share of frames off by more than 5 ms fell from 13-20% to 2.6-2.8%
 * (docs/performance.md).
 *
 * `--max-semi-space-size=16`: Node 24's V8 lets the young generation grow to 128 MB (two 64 MB
 * semi-spaces), committed memory that module loading alone fills; 16 MB is the size Node 20 gave
 * it, which the pacing figures were measured with, and it keeps the server inside the soak's
 * 400 MB bound (peak 403 -> 334 MB with a full spool disk). V8 reads both flags only at startup,
 * so they cannot be set from inside.
 */
export const SERVE_NODE_FLAGS: readonly string[] = ['--initial-old-space-size=256', '--max-semi-space-size=16'];

/** The flags of SERVE_NODE_FLAGS this process was not started with. */
export function missingServeFlags(execArgv: readonly string[] = process.execArgv): string[] {
  return SERVE_NODE_FLAGS.filter((flag) => !execArgv.includes(flag));
}

/**
 * One full garbage collection, run once the server listens. Loading the modules leaves most of
 * the heap as garbage (the sources, the package manifests the loader reads), and with
 * `--initial-old-space-size=256` nothing collects it until the old space fills: the process sat
 * at its boot peak for good. Collected, the pages go back to the system within about ten seconds
 * (docs/performance.md, "Boot"). V8 gives no way to ask for one collection without `--expose-gc`,
 * so the flag is set for the moment it takes to get its `gc` function, then cleared.
 */
export function collectBootGarbage(): void {
  const exposed = (globalThis as { gc?: () => void }).gc;
  if (exposed) return exposed();
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  setFlagsFromString('--no-expose-gc');
  gc();
}
