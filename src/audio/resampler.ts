import { pcm16Samples } from './pcm.ts';

/** A stateful mono PCM16 resampler: one per direction per call (wire.md §1.3). */
export interface Resampler {
  readonly fromHz: number;
  readonly toHz: number;
  /** Resamples a chunk, keeping filter state across calls so chunk edges leave no artifacts. */
  process(pcm: Buffer): Buffer;
  /** Drops the filter state (at hangup); later chunks come back empty. */
  destroy(): void;
}

/**
 * Filter design. A Kaiser-windowed sinc with a stopband of 70 dB, a 2 kHz transition band that
 * ends at the lower rate's Nyquist frequency, so 16 kHz audio keeps 0–6 kHz flat (telephone speech
 * stops at 3.4 kHz). Measured against sine references in test/unit/audio/resampler.test.ts.
 */
const STOPBAND_DB = 70;
const TRANSITION_HZ = 2_000;

/** The filter for one rate pair, stored phase by phase: phase p's taps are at [p × taps, (p + 1) × taps). */
interface PolyphaseFilter {
  readonly up: number;
  readonly down: number;
  readonly taps: number;
  readonly coefficients: Float64Array;
}

function gcd(a: number, b: number): number {
  while (b) [a, b] = [b, a % b];
  return a;
}

/** Modified Bessel function of the first kind, order 0 (the Kaiser window's kernel). */
function besselI0(x: number): number {
  let sum = 1;
  let term = 1;
  for (let k = 1; term > 1e-12 * sum; k++) {
    term *= (x / (2 * k)) ** 2;
    sum += term;
  }
  return sum;
}

function designFilter(fromHz: number, toHz: number): PolyphaseFilter {
  const divisor = gcd(fromHz, toHz);
  const up = toHz / divisor;
  const down = fromHz / divisor;
  // Kaiser's estimates: window shape from the stopband, length from the transition width.
  const beta = 0.1102 * (STOPBAND_DB - 8.7);
  const taps = Math.ceil((((STOPBAND_DB - 8) / 14.36) * fromHz) / TRANSITION_HZ);
  const length = taps * up;
  const cutoff = (Math.min(fromHz, toHz) / 2 - TRANSITION_HZ / 2) / (fromHz * up); // cycles per upsampled sample
  const centre = (length - 1) / 2;
  const prototype = new Float64Array(length);
  let sum = 0;
  for (let n = 0; n < length; n++) {
    const x = n - centre;
    const sinc = x === 0 ? 2 * cutoff : Math.sin(2 * Math.PI * cutoff * x) / (Math.PI * x);
    const r = (2 * n) / (length - 1) - 1;
    prototype[n] = sinc * besselI0(beta * Math.sqrt(Math.max(0, 1 - r * r)));
    sum += prototype[n] as number;
  }
  // Unity gain at DC after zero-stuffing by `up`.
  const coefficients = new Float64Array(length);
  // Each phase's taps are stored oldest input first, so the dot product walks both arrays forwards.
  for (let p = 0; p < up; p++) for (let k = 0; k < taps; k++) coefficients[p * taps + (taps - 1 - k)] = ((prototype[p + k * up] as number) * up) / sum;
  return { up, down, taps, coefficients };
}

const filters = new Map<string, PolyphaseFilter>();

function filterFor(fromHz: number, toHz: number): PolyphaseFilter {
  const key = `${fromHz}>${toHz}`;
  let filter = filters.get(key);
  if (!filter) {
    filter = designFilter(fromHz, toHz);
    filters.set(key, filter);
  }
  return filter;
}

/**
 * A rational-ratio polyphase FIR resampler (16 → 24 kHz is up 3, down 2). Output j sits at
 * upsampled position j × down; it is the dot product of one phase's taps with the latest input
 * samples, so only the last `taps − 1` inputs carry over between chunks and chunking never
 * changes the output. About six times cheaper than libsamplerate's fastest sinc converter, and
 * no WebAssembly instance to start per call (docs/performance.md).
 */
class PolyphaseResampler implements Resampler {
  private readonly filter: PolyphaseFilter;
  /**
   * Working input: the last taps − 1 samples of the previous chunk, then the new chunk. Reused
   * across chunks: a fresh array per 20 ms frame was megabytes per second of off-heap garbage
   * at 50 calls, enough to trigger full collections (docs/performance.md).
   */
  private input: Float64Array;
  /** Upsampled position of the next output, relative to the first sample of the next chunk. */
  private next = 0;
  private destroyed = false;

  readonly fromHz: number;
  readonly toHz: number;

  constructor(
    fromHz: number,
    toHz: number,
  ) {
    this.fromHz = fromHz;
    this.toHz = toHz;
    this.filter = filterFor(fromHz, toHz);
    this.input = new Float64Array(this.filter.taps - 1 + 1_024);
  }

  process(pcm: Buffer): Buffer {
    const count = pcm.length >> 1;
    if (this.destroyed || count === 0) return Buffer.alloc(0);
    const { up, down, taps, coefficients } = this.filter;
    const keep = taps - 1;
    if (this.input.length < keep + count) {
      const grown = new Float64Array(keep + count);
      grown.set(this.input.subarray(0, keep));
      this.input = grown;
    }
    const input = this.input;
    input.set(pcm16Samples(pcm), keep);
    const outputs = Math.max(0, Math.ceil((count * up - this.next) / down));
    // Small Buffers come from Node's shared pool, so most chunks allocate no memory of their own.
    const out = Buffer.allocUnsafe(outputs * 2);
    const samples = pcm16Samples(out);
    let position = this.next;
    for (let j = 0; j < outputs; j++, position += down) {
      const acc = dot(coefficients, (position % up) * taps, input, Math.floor(position / up), taps);
      samples[j] = acc >= 32767 ? 32767 : acc <= -32768 ? -32768 : Math.round(acc);
    }
    if (samples.buffer !== out.buffer) for (let j = 0; j < outputs; j++) out.writeInt16LE(samples[j] as number, j * 2);
    this.next = position - count * up;
    input.copyWithin(0, count, count + keep);
    return out;
  }

  destroy(): void {
    this.destroyed = true;
  }
}

/**
 * Σ a[i + k] × b[j + k] for k < n: the inner loop of every output sample. Four running sums let
 * the multiplies overlap (about a quarter faster than one sum on V8).
 */
function dot(a: Float64Array, i: number, b: Float64Array, j: number, n: number): number {
  let s0 = 0;
  let s1 = 0;
  let s2 = 0;
  let s3 = 0;
  let k = 0;
  for (; k + 3 < n; k += 4) {
    s0 += (a[i + k] as number) * (b[j + k] as number);
    s1 += (a[i + k + 1] as number) * (b[j + k + 1] as number);
    s2 += (a[i + k + 2] as number) * (b[j + k + 2] as number);
    s3 += (a[i + k + 3] as number) * (b[j + k + 3] as number);
  }
  for (; k < n; k++) s0 += (a[i + k] as number) * (b[j + k] as number);
  return s0 + s1 + s2 + s3;
}

const passThrough = (fromHz: number, toHz: number): Resampler => ({ fromHz, toHz, process: (pcm) => pcm, destroy: () => undefined });

/** Creates a resampler for one direction of one call; equal rates give a pass-through. */
export function createResampler(fromHz: number, toHz: number): Resampler {
  if (!Number.isInteger(fromHz) || !Number.isInteger(toHz) || fromHz <= 0 || toHz <= 0) throw new Error(`sample rates must be positive integers (got ${fromHz} → ${toHz})`);
  return fromHz === toHz ? passThrough(fromHz, toHz) : new PolyphaseResampler(fromHz, toHz);
}
