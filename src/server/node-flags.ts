/**
 * Node flags `mivas serve` should start with; the image's CMD passes them (a test keeps the two equal).
 *
 * `--initial-old-space-size=256`: with V8's default, the old-generation limit sits just above the
 * live heap (about 40 MB at 50 calls), so full collections run every second or two, and each
 * stall holds every call's pacer at once. Starting the old generation at 256 MB leaves one or two
 * per run: on the bench's 2-core VM the largest N held went from 25 to 50 calls per core, and at
 * 100 calls the share of frames off by more than 5 ms fell from 13-20% to 2.6-2.8%
 * (docs/performance.md). V8 reads the flag only at startup, so it cannot be set from inside.
 */
export const SERVE_NODE_FLAGS: readonly string[] = ['--initial-old-space-size=256'];

/** The flags of SERVE_NODE_FLAGS this process was not started with. */
export function missingServeFlags(execArgv: readonly string[] = process.execArgv): string[] {
  return SERVE_NODE_FLAGS.filter((flag) => !execArgv.includes(flag));
}
