import { describe, expect, it } from 'vitest';
import { ResamplerPool, createResampler } from '../../../src/audio/index.ts';

function tone(samples: number, rateHz: number, amplitude = 12_000): Buffer {
  const buf = Buffer.alloc(samples * 2);
  for (let i = 0; i < samples; i++) buf.writeInt16LE(Math.round(amplitude * Math.sin((2 * Math.PI * 440 * i) / rateHz)), i * 2);
  return buf;
}

function peak(pcm: Buffer): number {
  let max = 0;
  for (let i = 0; i + 1 < pcm.length; i += 2) max = Math.max(max, Math.abs(pcm.readInt16LE(i)));
  return max;
}

describe('ResamplerPool', () => {
  it('hands a returned converter to the next call with nothing of the last call left in it', async () => {
    const pool = new ResamplerPool();
    const first = await pool.acquire(16_000, 24_000);
    first.process(tone(1_600, 16_000)); // 100 ms of loud audio, part of it still inside the filter
    first.destroy();
    expect(pool.idleCount()).toBe(1);
    const second = await pool.acquire(16_000, 24_000);
    expect(pool.idleCount()).toBe(0);
    expect(peak(second.process(Buffer.alloc(3_200)))).toBe(0); // silence in, silence out
    second.destroy();
    pool.close();
    expect(pool.idleCount()).toBe(0);
  });

  it('resamples like a fresh converter: 1.5 × the samples from 16 to 24 kHz, within one frame', async () => {
    const pool = new ResamplerPool();
    const pooled = await pool.acquire(16_000, 24_000);
    pooled.destroy();
    const reused = await pool.acquire(16_000, 24_000);
    const fresh = await createResampler(16_000, 24_000);
    let reusedBytes = 0;
    let freshBytes = 0;
    for (let i = 0; i < 50; i++) {
      reusedBytes += reused.process(tone(320, 16_000)).length;
      freshBytes += fresh.process(tone(320, 16_000)).length;
    }
    expect(Math.abs(reusedBytes - 50 * 960)).toBeLessThanOrEqual(960);
    expect(Math.abs(reusedBytes - freshBytes)).toBeLessThanOrEqual(960);
    reused.destroy();
    fresh.destroy();
    pool.close();
  });

  it('keeps equal rates as a pass-through and destroys returns after close', async () => {
    const pool = new ResamplerPool(1);
    const same = await pool.acquire(16_000, 16_000);
    const pcm = tone(160, 16_000);
    expect(same.process(pcm)).toBe(pcm);
    const a = await pool.acquire(24_000, 16_000);
    const b = await pool.acquire(24_000, 16_000);
    a.destroy();
    b.destroy();
    expect(pool.idleCount()).toBe(1); // capped per rate pair
    pool.close();
    const c = await pool.acquire(24_000, 16_000);
    c.destroy();
    expect(pool.idleCount()).toBe(0);
  });
});
