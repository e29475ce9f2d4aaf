/**
 * mulberry32: a small, fast, seedable PRNG with a 32-bit state, returning floats in [0, 1). The
 * one seeded random source of mivas: the scorer's bootstrap pins it by name (scoring.md §8.4) and
 * line conditions draw their noise from it, so a seed gives the same numbers everywhere.
 */
export function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
