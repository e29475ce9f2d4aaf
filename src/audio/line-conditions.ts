import { mulberry32 } from '../core/index.ts';
import { pcm16Samples } from './pcm.ts';

/**
 * Audio conditions rendered locally on the caller's outbound audio (issue 16), so a task's
 * `background_noise` and `bad_signal` variants mean something without Bluejay (packs.md §3.7).
 * Everything is procedural (no recorded data) and deterministic by seed: the same seed and the
 * same input give the same bytes. Streaming: each condition keeps its state across 20 ms frames,
 * hold audio included, as a phone line would.
 *
 * - background_noise: a noise bed (procedural babble of several talkers, a room tone, the
 *   clatter of a cafe or the keys of an office) mixed at a stated SNR: the bed's long-term RMS
 *   is set `snr_db` below the caller's active speech level, to which each caller line is first
 *   normalised (`NOMINAL_SPEECH_RMS`).
 * - bad_signal: a degraded phone line with no added noise: band limit 300–3400 Hz (8th-order
 *   Butterworth low-pass, 4th-order high-pass), an 8 kHz G.711 μ-law round trip, and seeded
 *   bursty packet loss (Gilbert model, 20 ms packets) concealed by repeating the last good
 *   packet with a fade.
 */

const RATE = 16_000;
/** The active speech level lines are normalised to before noise is mixed: about −20.8 dBFS. */
export const NOMINAL_SPEECH_RMS = 3_000;

/** A stateful transform of the caller's outbound audio, with the parameters it records. */
export interface LineCondition {
  readonly name: 'background_noise' | 'bad_signal';
  readonly params: Readonly<Record<string, string | number | boolean | null>>;
  /** Prepares one caller line before it is framed (background noise: normalise its level). */
  line(pcm: Buffer): Buffer;
  /** Transforms one outbound frame (any even size), keeping state across frames. */
  process(frame: Buffer): Buffer;
}

/** The seeded noise source of line conditions: core's one seeded PRNG (mulberry32). */
export const seededRandom = mulberry32;

/** One RBJ-cookbook biquad section, direct form I. */
class Biquad {
  private x1 = 0;
  private x2 = 0;
  private y1 = 0;
  private y2 = 0;

  private readonly b0: number;
  private readonly b1: number;
  private readonly b2: number;
  private readonly a1: number;
  private readonly a2: number;

  private constructor(
    b0: number,
    b1: number,
    b2: number,
    a1: number,
    a2: number,
  ) {
    this.b0 = b0;
    this.b1 = b1;
    this.b2 = b2;
    this.a1 = a1;
    this.a2 = a2;
  }

  static lowPass(hz: number, q: number, rate = RATE): Biquad {
    const w = (2 * Math.PI * hz) / rate;
    const alpha = Math.sin(w) / (2 * q);
    const cos = Math.cos(w);
    const a0 = 1 + alpha;
    return new Biquad((1 - cos) / 2 / a0, (1 - cos) / a0, (1 - cos) / 2 / a0, (-2 * cos) / a0, (1 - alpha) / a0);
  }

  static highPass(hz: number, q: number, rate = RATE): Biquad {
    const w = (2 * Math.PI * hz) / rate;
    const alpha = Math.sin(w) / (2 * q);
    const cos = Math.cos(w);
    const a0 = 1 + alpha;
    return new Biquad((1 + cos) / 2 / a0, -(1 + cos) / a0, (1 + cos) / 2 / a0, (-2 * cos) / a0, (1 - alpha) / a0);
  }

  static bandPass(hz: number, q: number, rate = RATE): Biquad {
    const w = (2 * Math.PI * hz) / rate;
    const alpha = Math.sin(w) / (2 * q);
    const cos = Math.cos(w);
    const a0 = 1 + alpha;
    return new Biquad(alpha / a0, 0, -alpha / a0, (-2 * cos) / a0, (1 - alpha) / a0);
  }

  step(x: number): number {
    const y = this.b0 * x + this.b1 * this.x1 + this.b2 * this.x2 - this.a1 * this.y1 - this.a2 * this.y2;
    this.x2 = this.x1;
    this.x1 = x;
    this.y2 = this.y1;
    this.y1 = y;
    return y;
  }
}

/** Butterworth Q values of an order-2n filter's n biquad sections. */
function butterworthQs(order: number): number[] {
  const n = order / 2;
  return Array.from({ length: n }, (_, k) => 1 / (2 * Math.cos(((2 * k + 1) * Math.PI) / (4 * n))));
}

function cascade(sections: readonly Biquad[], x: number): number {
  let y = x;
  for (const s of sections) y = s.step(y);
  return y;
}

function toBuffer(samples: Float64Array | number[]): Buffer {
  const out = Buffer.alloc(samples.length * 2);
  for (let i = 0; i < samples.length; i++) out.writeInt16LE(Math.max(-32768, Math.min(32767, Math.round(samples[i] ?? 0))), i * 2);
  return out;
}

/** RMS of PCM16 samples. */
export function rmsOf(pcm: Buffer): number {
  const s = pcm16Samples(pcm);
  let sum = 0;
  for (const v of s) sum += v * v;
  return s.length ? Math.sqrt(sum / s.length) : 0;
}

/** The active level of a line: RMS over its 20 ms frames within 20 dB of the loudest (pauses left out). */
export function activeLevel(pcm: Buffer): number {
  const frame = 320;
  const s = pcm16Samples(pcm);
  const frames: number[] = [];
  for (let i = 0; i + frame <= s.length; i += frame) {
    let sum = 0;
    for (let j = i; j < i + frame; j++) sum += (s[j] ?? 0) ** 2;
    frames.push(sum / frame);
  }
  const loudest = Math.max(0, ...frames);
  const active = frames.filter((p) => p >= loudest / 100);
  return active.length ? Math.sqrt(active.reduce((a, b) => a + b, 0) / active.length) : 0;
}

/** One babbling talker: a glottal pulse train with jitter through two formants, gated into syllables and phrases. */
class Talker {
  private phase = 0;
  private f0: number;
  private readonly f1: Biquad;
  private readonly f2: Biquad;
  private syllableLeft = 0;
  private syllableLength = 1;
  private pauseLeft = 0;

  private readonly random: () => number;

  constructor(random: () => number) {
    this.random = random;
    this.f0 = 95 + random() * 130;
    this.f1 = Biquad.bandPass(350 + random() * 500, 2.5);
    this.f2 = Biquad.bandPass(1_100 + random() * 1_200, 3);
    this.pauseLeft = Math.floor(random() * RATE * 0.6);
  }

  next(): number {
    if (this.pauseLeft > 0) {
      this.pauseLeft--;
      this.f1.step(0);
      return this.f2.step(0);
    }
    if (this.syllableLeft <= 0) {
      this.syllableLength = Math.floor(RATE * (0.12 + this.random() * 0.16));
      this.syllableLeft = this.syllableLength;
      this.f0 = Math.max(80, Math.min(260, this.f0 * (0.92 + this.random() * 0.16)));
    }
    const t = 1 - this.syllableLeft / this.syllableLength;
    const envelope = Math.sin(Math.PI * t);
    this.syllableLeft--;
    if (this.syllableLeft <= 0) this.pauseLeft = Math.floor(RATE * (this.random() < 0.15 ? 0.35 + this.random() * 0.5 : 0.03 + this.random() * 0.09));
    this.phase += this.f0 / RATE;
    let source = (this.random() - 0.5) * 0.3;
    if (this.phase >= 1) {
      this.phase -= 1;
      source += 6;
    }
    return envelope * (this.f1.step(source) + 0.6 * this.f2.step(source));
  }
}

/** The noise bed of a cafe or an office: babble, room tone and their incidental sounds. */
class NoiseBed {
  private readonly talkers: Talker[];
  private readonly roomLp: Biquad[];
  private pinkState = [0, 0, 0];
  private eventLeft = 0;
  private eventGain = 0;
  private humPhase = 0;
  private readonly eventLp: Biquad;

  private readonly kind: 'cafe' | 'office';
  private readonly random: () => number;

  constructor(
    kind: 'cafe' | 'office',
    random: () => number,
  ) {
    this.kind = kind;
    this.random = random;
    this.talkers = Array.from({ length: kind === 'cafe' ? 7 : 3 }, () => new Talker(random));
    this.roomLp = butterworthQs(4).map((q) => Biquad.lowPass(kind === 'cafe' ? 2_500 : 1_200, q));
    this.eventLp = kind === 'cafe' ? Biquad.highPass(2_000, 0.7) : Biquad.bandPass(2_500, 1.2);
  }

  next(): number {
    let babble = 0;
    for (const t of this.talkers) babble += t.next();
    // Pink-ish room tone: three leaky integrators of white noise.
    const white = this.random() * 2 - 1;
    const p = this.pinkState;
    p[0] = 0.997 * (p[0] ?? 0) + 0.029 * white;
    p[1] = 0.985 * (p[1] ?? 0) + 0.032 * white;
    p[2] = 0.95 * (p[2] ?? 0) + 0.048 * white;
    const room = cascade(this.roomLp, ((p[0] ?? 0) + (p[1] ?? 0) + (p[2] ?? 0)) * 4);
    // Incidental sounds: cups and cutlery in a cafe (rarer, brighter), keystrokes in an office.
    if (this.eventLeft <= 0 && this.random() < (this.kind === 'cafe' ? 0.8 : 3) / RATE) {
      this.eventLeft = Math.floor(RATE * (this.kind === 'cafe' ? 0.08 : 0.015));
      this.eventGain = (this.kind === 'cafe' ? 0.6 : 0.35) * (0.5 + this.random());
    }
    let event = 0;
    if (this.eventLeft > 0) {
      this.eventLeft--;
      event = this.eventLp.step((this.random() * 2 - 1) * this.eventGain);
      this.eventGain *= this.kind === 'cafe' ? 0.9995 : 0.996;
    } else this.eventLp.step(0);
    this.humPhase += 120 / RATE;
    const hum = this.kind === 'office' ? 0.05 * Math.sin(2 * Math.PI * this.humPhase) : 0;
    return babble * (this.kind === 'cafe' ? 0.16 : 0.2) + room * (this.kind === 'cafe' ? 0.5 : 0.8) + event + hum;
  }
}

/** Seconds of bed measured to set its gain (the bed's long-term level). */
const CALIBRATION_S = 20;

/** Background noise: the bed at `snrDb` below the normalised speech level. */
export function backgroundNoise(options: { bed: 'cafe' | 'office'; snrDb: number; seed: number }): LineCondition {
  const make = (): NoiseBed => new NoiseBed(options.bed, seededRandom(options.seed));
  const calibration = make();
  let sum = 0;
  const n = CALIBRATION_S * RATE;
  for (let i = 0; i < n; i++) sum += calibration.next() ** 2;
  const bedRms = Math.sqrt(sum / n) || 1;
  const gain = NOMINAL_SPEECH_RMS / 10 ** (options.snrDb / 20) / bedRms;
  const bed = make();
  return {
    name: 'background_noise',
    params: { bed: options.bed, snr_db: options.snrDb, seed: options.seed, speech_rms: NOMINAL_SPEECH_RMS, noise_rms: Math.round((NOMINAL_SPEECH_RMS / 10 ** (options.snrDb / 20)) * 10) / 10, talkers: options.bed === 'cafe' ? 7 : 3 },
    line(pcm) {
      const level = activeLevel(pcm);
      if (level === 0) return pcm;
      const s = pcm16Samples(pcm);
      const scale = NOMINAL_SPEECH_RMS / level;
      return toBuffer(Array.from(s, (v) => v * scale));
    },
    process(frame) {
      const s = pcm16Samples(frame);
      const out = new Float64Array(s.length);
      for (let i = 0; i < s.length; i++) out[i] = (s[i] ?? 0) + bed.next() * gain;
      return toBuffer(out);
    },
  };
}

/** G.711 μ-law: one 16-bit sample to its 8-bit code and back (ITU-T G.711, bias 0x84, clip 32635). */
export function muLawEncode(sample: number): number {
  const BIAS = 0x84;
  let s = Math.max(-32635, Math.min(32635, Math.round(sample)));
  const sign = s < 0 ? 0x80 : 0;
  if (s < 0) s = -s;
  s += BIAS;
  let exponent = 7;
  for (let mask = 0x4000; (s & mask) === 0 && exponent > 0; mask >>= 1) exponent--;
  const mantissa = (s >> (exponent + 3)) & 0x0f;
  return ~(sign | (exponent << 4) | mantissa) & 0xff;
}

/** The 16-bit sample of a G.711 μ-law code. */
export function muLawDecode(code: number): number {
  const u = ~code & 0xff;
  const sign = u & 0x80;
  const exponent = (u >> 4) & 0x07;
  const mantissa = u & 0x0f;
  const magnitude = (((mantissa << 3) + 0x84) << exponent) - 0x84;
  return sign ? -magnitude : magnitude;
}

/** The degraded phone line of `bad_signal`. */
export function badSignal(options: { seed: number; lossEnterProb?: number; lossExitProb?: number }): LineCondition & { readonly stats: () => { packets: number; lost: number } } {
  const enter = options.lossEnterProb ?? 0.03;
  const exit = options.lossExitProb ?? 0.5;
  const random = seededRandom(options.seed);
  const qs = butterworthQs(8);
  const downLp = qs.map((q) => Biquad.lowPass(3_400, q));
  const upLp = qs.map((q) => Biquad.lowPass(3_400, q));
  const hp = butterworthQs(4).map((q) => Biquad.highPass(300, q));
  const PACKET = 160; // 20 ms at 8 kHz
  let phase = 0; // which 16 kHz sample of each pair is kept
  let packet: number[] = [];
  let lastGood: number[] = new Array<number>(PACKET).fill(0);
  let lost = false;
  let lostRun = 0;
  const ready: number[] = [];
  let lostPackets = 0;
  let packets = 0;
  const sendPacket = (): void => {
    packets++;
    lost = lost ? random() >= exit : random() < enter;
    let out: number[];
    if (lost) {
      lostPackets++;
      lostRun++;
      const fade = 0.5 ** lostRun;
      out = lastGood.map((v) => v * fade);
    } else {
      lostRun = 0;
      out = packet.map((v) => muLawDecode(muLawEncode(v)));
      lastGood = out;
    }
    ready.push(...out);
    packet = [];
  };
  const condition: LineCondition & { readonly stats: () => { packets: number; lost: number } } = {
    name: 'bad_signal',
    params: { band_low_hz: 300, band_high_hz: 3400, codec: 'g711_mulaw_8khz', packet_ms: 20, loss_model: 'gilbert', loss_enter_prob: enter, loss_exit_prob: exit, mean_loss_rate: Math.round((enter / (enter + exit)) * 10_000) / 10_000, concealment: 'repeat_with_fade', seed: options.seed },
    line: (pcm) => pcm,
    process(frame) {
      const s = pcm16Samples(frame);
      const out = new Float64Array(s.length);
      for (let i = 0; i < s.length; i++) {
        // Band-limit and decimate to 8 kHz; packetise; μ-law and loss; back up to 16 kHz.
        const x = cascade(hp, cascade(downLp, s[i] ?? 0));
        if (phase === 0) {
          packet.push(x);
          if (packet.length === PACKET) sendPacket();
        }
        phase ^= 1;
        // One 20 ms packet of latency: output lags until the first packet is through.
        const y = phase === 1 ? (ready.length ? (ready[0] ?? 0) : 0) * 2 : 0;
        if (phase === 0 && ready.length) ready.shift();
        out[i] = cascade(upLp, y);
      }
      return toBuffer(out);
    },
    stats: () => ({ packets, lost: lostPackets }),
  };
  return condition;
}

/** Runs a whole signal through a fresh condition in 20 ms frames (tests and offline renders). */
export function renderCondition(condition: LineCondition, pcm: Buffer, frameBytes = 640): Buffer {
  const out: Buffer[] = [];
  for (let i = 0; i < pcm.length; i += frameBytes) out.push(condition.process(pcm.subarray(i, i + frameBytes)));
  return Buffer.concat(out);
}

/** SNR of the moderate background noise every pack's `-BG` variant gets (packs.md §3.7: a phone number still gets through). */
export const BACKGROUND_SNR_DB = 12;

/**
 * The condition of a task's audio variant, or null for `perfect`: cafe noise for C1, C3 and C5,
 * office noise for C2, C4 and R (packs.md §3.7), at `BACKGROUND_SNR_DB`; a bad phone line for
 * `bad_signal`. The seed is the call's caller seed, so trials differ and repeats are identical.
 */
export function lineConditionFor(condition: 'perfect' | 'background_noise' | 'bad_signal', category: string, seed: number): { outbound: LineCondition; params: Readonly<Record<string, string | number | boolean | null>> } | null {
  if (condition === 'perfect') return null;
  const made = condition === 'background_noise' ? backgroundNoise({ bed: ['C1', 'C3', 'C5'].includes(category) ? 'cafe' : 'office', snrDb: BACKGROUND_SNR_DB, seed }) : badSignal({ seed });
  return { outbound: made, params: made.params };
}
