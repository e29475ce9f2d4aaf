import { describe, expect, it } from 'vitest';
import { SampleAligner } from '../../../src/audio/pcm.ts';

/** A byte stream where every byte differs from its neighbours, so a slip by one byte shows. */
function stream(length: number): Buffer {
  const buf = Buffer.alloc(length);
  for (let i = 0; i < length; i++) buf[i] = (i * 31 + 7) % 251;
  return buf;
}

function feed(aligner: SampleAligner, input: Buffer, sizes: readonly number[]): Buffer[] {
  const out: Buffer[] = [];
  let offset = 0;
  for (let i = 0; offset < input.length; i++) {
    const size = sizes[i % sizes.length] ?? 1;
    out.push(aligner.write(input.subarray(offset, offset + size)));
    offset += size;
  }
  return out;
}

describe('SampleAligner', () => {
  it.each([[[333]], [[1]], [[3, 5, 7]], [[320]], [[640, 1, 639]], [[2]]])('re-frames chunks of %j into whole samples, losing nothing', (sizes) => {
    const input = stream(333 * 40);
    const aligner = new SampleAligner();
    const out = feed(aligner, input, sizes);
    expect(out.every((b) => b.length % 2 === 0)).toBe(true);
    expect(Buffer.concat(out).equals(input)).toBe(true);
    expect(aligner.hasCarry()).toBe(false);
  });

  it('carries an odd trailing byte into the next chunk', () => {
    const aligner = new SampleAligner();
    expect([...aligner.write(Buffer.from([1, 2, 3]))]).toEqual([1, 2]);
    expect(aligner.hasCarry()).toBe(true);
    expect([...aligner.write(Buffer.from([4]))]).toEqual([3, 4]);
    expect(aligner.hasCarry()).toBe(false);
    expect([...aligner.write(Buffer.from([5]))]).toEqual([]);
    expect([...aligner.write(Buffer.from([6, 7, 8]))]).toEqual([5, 6, 7, 8]);
  });

  it('holds the last byte of an odd-length stream', () => {
    const aligner = new SampleAligner();
    const out = feed(aligner, stream(333), [333]);
    expect(Buffer.concat(out).length).toBe(332);
    expect(aligner.hasCarry()).toBe(true);
  });

  it('passes an empty chunk through', () => {
    const aligner = new SampleAligner();
    expect(aligner.write(Buffer.alloc(0)).length).toBe(0);
    expect(aligner.hasCarry()).toBe(false);
  });
});
