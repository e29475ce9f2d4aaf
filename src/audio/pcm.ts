/** CHIRP's audio format: PCM s16le mono at 16 kHz, 32 bytes per millisecond (wire.md §1.3). */
export const CHIRP_RATE_HZ = 16_000;
export const CHIRP_BYTES_PER_MS = 32;
/** One outbound frame: 20 ms. */
export const FRAME_MS = 20;
export const FRAME_BYTES = FRAME_MS * CHIRP_BYTES_PER_MS;

/** Milliseconds of 16 kHz mono PCM16 in a byte count. */
export function bytesToMs(byteLength: number, rateHz = CHIRP_RATE_HZ): number {
  return (byteLength / 2 / rateHz) * 1000;
}

/** Byte length of the given milliseconds of mono PCM16 (always even). */
export function msToBytes(ms: number, rateHz = CHIRP_RATE_HZ): number {
  return Math.round((ms * rateHz) / 1000) * 2;
}

/**
 * PCM16 little-endian bytes as an Int16Array: a view when the bytes are 2-aligned, else a copy.
 * (Typed arrays are host-endian; every platform Node ships for is little-endian.)
 */
export function pcm16Samples(pcm: Buffer): Int16Array {
  const count = pcm.length >> 1;
  if (pcm.byteOffset % 2 === 0) return new Int16Array(pcm.buffer, pcm.byteOffset, count);
  const copy = new Int16Array(count);
  for (let i = 0; i < count; i++) copy[i] = pcm.readInt16LE(i * 2);
  return copy;
}

/**
 * Re-frames a byte stream into whole 16-bit samples: an odd trailing byte is carried into the
 * next chunk (wire.md §1.3). Pure: no I/O, no timers.
 */
export class SampleAligner {
  private carry: Buffer | null = null;

  /** Returns the even-length part of carry + chunk, keeping a trailing odd byte. */
  write(chunk: Buffer): Buffer {
    // The common case (no carry, whole samples) hands the chunk back without a new Buffer object per frame.
    if (!this.carry && (chunk.length & 1) === 0) return chunk;
    const joined = this.carry ? Buffer.concat([this.carry, chunk]) : chunk;
    const even = joined.length & ~1;
    this.carry = even < joined.length ? joined.subarray(even) : null;
    return joined.subarray(0, even);
  }

  /** True when an odd byte is waiting for its partner. */
  hasCarry(): boolean {
    return this.carry !== null;
  }
}
