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
 * 400 MB bound (peak 403 -> 334 MB with a full spool disk).
 *
 * `--no-memory-reducer`: after a full collection that leaves much memory committed (the boot one
 * below), V8's memory reducer waits 8 s for a quiet moment and then runs two more full
 * collections in its memory-saving mode, whose marking and compaction held the event loop 50-60 ms
 * on a quiet machine (and 100-500 ms under load) beside a lone live call: the stall the `/ui` soak
 * found (docs/reliability.md, "`/ui` scoring"). The memory those collections handed back is
 * handed back at boot instead (collectBootGarbage). V8 reads these flags only at startup, so they
 * cannot be set from inside.
 */
export const SERVE_NODE_FLAGS: readonly string[] = ['--initial-old-space-size=256', '--max-semi-space-size=16', '--no-memory-reducer'];

/** The flags of SERVE_NODE_FLAGS this process was not started with. */
export function missingServeFlags(execArgv: readonly string[] = process.execArgv): string[] {
  return SERVE_NODE_FLAGS.filter((flag) => !execArgv.includes(flag));
}

/** The options of V8's `gc` function for its most thorough collection (what it runs before giving up on memory). */
const LAST_RESORT = { type: 'major', execution: 'sync', flavor: 'last-resort' } as const;
type GcFunction = (options?: typeof LAST_RESORT) => void;

/**
 * V8's `gc` function. V8 gives it only with `--expose-gc`, so the flag is set for the moment it
 * takes to get it, then cleared (`globalThis.gc` stays undefined).
 */
export function v8Gc(): GcFunction {
  const exposed = (globalThis as { gc?: GcFunction }).gc;
  if (exposed) return exposed;
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as GcFunction;
  setFlagsFromString('--no-expose-gc');
  return gc;
}

/**
 * The most thorough garbage collection V8 has, run once the server listens. Loading the modules
 * leaves most of the heap as garbage (the sources, the package manifests the loader reads), and
 * with `--initial-old-space-size=256` nothing collects it until the old space fills: the process
 * sat at its boot peak for good. A plain full collection frees the objects but keeps their pages
 * committed (V8's memory reducer used to return them 8 s later, with two more collections that
 * stalled live calls; SERVE_NODE_FLAGS turns it off); the last-resort collection compacts the heap
 * and hands the pages back at once (docs/performance.md, "Boot").
 */
export function collectBootGarbage(): void {
  v8Gc()(LAST_RESORT);
}
