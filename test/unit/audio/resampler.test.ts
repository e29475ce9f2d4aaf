import { describe, expect, it } from 'vitest';
import { createResampler } from '../../../src/audio/index.ts';

function sine(frequencyHz: number, rateHz: number, samples: number, amplitude = 10_000): Buffer {
  const pcm = Buffer.alloc(samples * 2);
  for (let i = 0; i < samples; i++) pcm.writeInt16LE(Math.round(amplitude * Math.sin((2 * Math.PI * frequencyHz * i) / rateHz)), i * 2);
  return pcm;
}

function samplesOf(pcm: Buffer): number[] {
  return Array.from({ length: pcm.length >> 1 }, (_, i) => pcm.readInt16LE(i * 2));
}

/** Signal-to-error ratio (dB) of a sampled sine against its least-squares fit at the same frequency. */
function sineSnrDb(samples: readonly number[], frequencyHz: number, rateHz: number): { snrDb: number; amplitude: number } {
  const w = (2 * Math.PI * frequencyHz) / rateHz;
  let ss = 0;
  let cc = 0;
  let sc = 0;
  let ys = 0;
  let yc = 0;
  samples.forEach((y, i) => {
    const s = Math.sin(w * i);
    const c = Math.cos(w * i);
    ss += s * s;
    cc += c * c;
    sc += s * c;
    ys += y * s;
    yc += y * c;
  });
  const det = ss * cc - sc * sc;
  const a = (ys * cc - yc * sc) / det;
  const b = (yc * ss - ys * sc) / det;
  let signal = 0;
  let error = 0;
  samples.forEach((y, i) => {
    const fit = a * Math.sin(w * i) + b * Math.cos(w * i);
    signal += fit * fit;
    error += (y - fit) ** 2;
  });
  return { snrDb: 10 * Math.log10(signal / error), amplitude: Math.hypot(a, b) };
}

function inFrames(resampler: ReturnType<typeof createResampler>, pcm: Buffer, frameBytes: number): Buffer {
  const out: Buffer[] = [];
  for (let offset = 0; offset < pcm.length; offset += frameBytes) out.push(resampler.process(pcm.subarray(offset, offset + frameBytes)));
  return Buffer.concat(out);
}

describe('createResampler', () => {
  for (const [from, to] of [
    [16_000, 24_000],
    [24_000, 16_000],
  ] as const) {
    for (const frequency of [440, 1_000, 3_000, 5_500]) {
      it(`${from} → ${to} Hz keeps a ${frequency} Hz tone at full level with over 75 dB SNR`, () => {
        const out = inFrames(createResampler(from, to), sine(frequency, from, from), from === 16_000 ? 640 : 4_800);
        const { snrDb, amplitude } = sineSnrDb(samplesOf(out).slice(200), frequency, to);
        expect(snrDb).toBeGreaterThan(75);
        expect(Math.abs(amplitude - 10_000)).toBeLessThan(20);
      });
    }
  }

  it('24 → 16 kHz removes a 10 kHz tone (it would alias to 6 kHz) by over 70 dB', () => {
    const out = samplesOf(createResampler(24_000, 16_000).process(sine(10_000, 24_000, 24_000))).slice(200);
    const rms = Math.sqrt(out.reduce((sum, v) => sum + v * v, 0) / out.length);
    expect(20 * Math.log10(rms / (10_000 / Math.SQRT2))).toBeLessThan(-70);
  });

  it('gives the same bytes whatever the chunking, and exactly the rate ratio of samples', () => {
    const input = sine(700, 16_000, 16_000);
    const whole = createResampler(16_000, 24_000).process(input);
    const chunked = createResampler(16_000, 24_000);
    const parts: Buffer[] = [];
    for (let offset = 0, size = 2; offset < input.length; offset += size, size = ((size * 7) % 1_000) + 2) parts.push(chunked.process(input.subarray(offset, offset + size)));
    expect(Buffer.concat(parts).equals(whole)).toBe(true);
    expect(whole.length).toBe(24_000 * 2);
  });

  it('reads chunks that start on an odd byte offset', () => {
    const input = sine(440, 24_000, 4_800);
    const shifted = Buffer.alloc(input.length + 1);
    input.copy(shifted, 1);
    expect(createResampler(24_000, 16_000).process(shifted.subarray(1)).equals(createResampler(24_000, 16_000).process(input))).toBe(true);
  });

  it('handles a ratio with large factors (espeak-ng 22,050 Hz → 16 kHz)', () => {
    const out = createResampler(22_050, 16_000).process(sine(1_000, 22_050, 22_050));
    expect(Math.abs((out.length >> 1) - 16_000)).toBeLessThanOrEqual(1);
    expect(sineSnrDb(samplesOf(out).slice(200), 1_000, 16_000).snrDb).toBeGreaterThan(75);
  });

  it('passes equal rates through, returns nothing after destroy, and refuses nonsense rates', () => {
    const pcm = sine(440, 16_000, 160);
    expect(createResampler(16_000, 16_000).process(pcm)).toBe(pcm);
    const resampler = createResampler(16_000, 24_000);
    resampler.destroy();
    expect(resampler.process(pcm).length).toBe(0);
    expect(() => createResampler(0, 16_000)).toThrow(/positive integers/);
    expect(() => createResampler(16_000.5, 24_000)).toThrow(/positive integers/);
  });

  it('clamps instead of wrapping when the filter overshoots a full-scale square wave', () => {
    const square = Buffer.alloc(3_200);
    for (let i = 0; i < 1_600; i++) square.writeInt16LE(Math.floor(i / 20) % 2 ? 32_767 : -32_768, i * 2);
    const out = samplesOf(createResampler(16_000, 24_000).process(square));
    // A wrapped sample would flip sign next to a full-scale neighbour of the other sign.
    for (let i = 1; i < out.length; i++) expect(Math.abs((out[i] as number) - (out[i - 1] as number))).toBeLessThan(40_000);
  });
});
