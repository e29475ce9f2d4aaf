import { describe, expect, it } from 'vitest';
import {
  activeLevel,
  backgroundNoise,
  badSignal,
  lineConditionFor,
  muLawDecode,
  muLawEncode,
  NOMINAL_SPEECH_RMS,
  pcm16Samples,
  renderCondition,
  rmsOf,
  seededRandom,
  toneSpeech,
} from '../../../src/audio/index.ts';

const RATE = 16_000;
const SPEECH = toneSpeech('My date of birth is March fourth nineteen eighty two and my zip code is one zero zero two two', RATE);

function sine(hz: number, seconds: number, amplitude = 8_000): Buffer {
  const n = Math.round(seconds * RATE);
  const out = Buffer.alloc(n * 2);
  for (let i = 0; i < n; i++) out.writeInt16LE(Math.round(amplitude * Math.sin((2 * Math.PI * hz * i) / RATE)), i * 2);
  return out;
}

/** Power of one frequency over a span of samples (Goertzel), normalised to a sine's amplitude². */
function tonePower(pcm: Buffer, hz: number, fromS = 0.2): number {
  const s = pcm16Samples(pcm);
  const from = Math.round(fromS * RATE);
  const n = s.length - from;
  const coeff = 2 * Math.cos((2 * Math.PI * hz) / RATE);
  let s1 = 0;
  let s2 = 0;
  for (let i = from; i < s.length; i++) {
    const s0 = (s[i] ?? 0) + coeff * s1 - s2;
    s2 = s1;
    s1 = s0;
  }
  return (4 * (s1 * s1 + s2 * s2 - coeff * s1 * s2)) / (n * n);
}

const db = (ratio: number): number => 10 * Math.log10(ratio);

/** Issue 16, acceptance 4: the SNR of the mixed signal and the band limit of the degraded line, within stated tolerances; one seed, one render. */
describe('background noise (cafe and office beds)', () => {
  it.each(['cafe', 'office'] as const)('%s: mixes the bed 12 dB below the normalised speech (±1 dB), measured on the mixed signal', (bed) => {
    for (const seed of [1, 2, 3]) {
      const condition = backgroundNoise({ bed, snrDb: 12, seed });
      const clean = condition.line(SPEECH);
      expect(Math.abs(activeLevel(clean) - NOMINAL_SPEECH_RMS)).toBeLessThan(NOMINAL_SPEECH_RMS * 0.01);
      const mixed = renderCondition(condition, clean);
      const a = pcm16Samples(clean);
      const b = pcm16Samples(mixed);
      let noise = 0;
      for (let i = 0; i < a.length; i++) noise += ((b[i] ?? 0) - (a[i] ?? 0)) ** 2;
      const snr = 20 * Math.log10(activeLevel(clean) / Math.sqrt(noise / a.length));
      expect(Math.abs(snr - 12), `${bed} seed ${seed}: ${snr.toFixed(2)} dB`).toBeLessThanOrEqual(1);
    }
  });

  it('fills the hold audio too: silence comes out as the bed alone, at its stated level', () => {
    const condition = backgroundNoise({ bed: 'office', snrDb: 12, seed: 9 });
    const held = renderCondition(condition, Buffer.alloc(10 * RATE * 2));
    expect(Math.abs(db(rmsOf(held) ** 2 / Number(condition.params.noise_rms) ** 2))).toBeLessThan(1);
  });

  it('renders identically twice with one seed, differently with another', () => {
    const render = (seed: number): Buffer => {
      const c = backgroundNoise({ bed: 'cafe', snrDb: 12, seed });
      return renderCondition(c, c.line(SPEECH));
    };
    expect(render(42).equals(render(42))).toBe(true);
    expect(render(42).equals(render(43))).toBe(false);
  });
});

describe('bad signal (a degraded phone line)', () => {
  const clean = (): ReturnType<typeof badSignal> => badSignal({ seed: 1, lossEnterProb: 0 });

  it('passes the voice band (1 kHz within ±1 dB) and cuts outside 300–3400 Hz (≥ 40 dB at 5 kHz and 6 kHz, ≥ 12 dB at 150 Hz)', () => {
    const gain = (hz: number): number => db(tonePower(renderCondition(clean(), sine(hz, 2)), hz) / 8_000 ** 2);
    expect(Math.abs(gain(1_000))).toBeLessThanOrEqual(1);
    expect(Math.abs(gain(2_500))).toBeLessThanOrEqual(1);
    expect(gain(5_000)).toBeLessThanOrEqual(-40);
    expect(gain(6_000)).toBeLessThanOrEqual(-40);
    expect(gain(150)).toBeLessThanOrEqual(-12);
  });

  it('leaves less than 1% of white noise energy above 3.8 kHz', () => {
    const random = seededRandom(5);
    const white = Buffer.alloc(4 * RATE * 2);
    for (let i = 0; i < white.length / 2; i++) white.writeInt16LE(Math.round((random() * 2 - 1) * 8_000), i * 2);
    const out = renderCondition(clean(), white);
    let high = 0;
    for (let hz = 3_800; hz < 8_000; hz += 100) high += tonePower(out, hz);
    let all = 0;
    for (let hz = 100; hz < 8_000; hz += 100) all += tonePower(out, hz);
    expect(high / all).toBeLessThan(0.01);
  });

  it('round-trips through G.711 μ-law (the standard codes, and at most 1/16 of a sample off within range)', () => {
    expect([muLawEncode(0), muLawEncode(32_767), muLawEncode(-32_768)]).toEqual([0xff, 0x80, 0x00]);
    expect(muLawDecode(0xff)).toBe(0);
    for (const x of [100, 1_000, 5_000, -12_345, 30_000]) expect(Math.abs(muLawDecode(muLawEncode(x)) - x)).toBeLessThanOrEqual(Math.abs(x) / 16 + 4);
  });

  it('loses packets in seeded bursts near the stated mean rate, the same packets for the same seed', () => {
    const run = (seed: number): { out: Buffer; stats: { packets: number; lost: number } } => {
      const line = badSignal({ seed });
      const out = renderCondition(line, sine(800, 60));
      return { out, stats: line.stats() };
    };
    const a = run(7);
    const rate = a.stats.lost / a.stats.packets;
    expect(Math.abs(rate - 0.03 / 0.53)).toBeLessThan(0.025);
    expect(a.out.equals(run(7).out)).toBe(true);
    expect(a.out.equals(run(8).out)).toBe(false);
  });
});

describe('lineConditionFor (packs.md §3.7)', () => {
  it('gives cafe noise to C1, C3, C5, office noise to C2, C4, R, a bad line to bad_signal and nothing to perfect', () => {
    expect(lineConditionFor('perfect', 'C1', 1)).toBeNull();
    expect(lineConditionFor('background_noise', 'C3', 1)?.params).toMatchObject({ bed: 'cafe', snr_db: 12 });
    expect(lineConditionFor('background_noise', 'R', 1)?.params).toMatchObject({ bed: 'office', snr_db: 12 });
    expect(lineConditionFor('bad_signal', 'C2', 1)?.params).toMatchObject({ band_low_hz: 300, band_high_hz: 3400, codec: 'g711_mulaw_8khz' });
  });
});
