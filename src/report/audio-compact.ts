import { muLawEncode } from '../audio/index.ts';
import { wavLayout } from './waveform.ts';

/**
 * The report's compact recording: the stereo call (caller left, agent right) at 8 kHz in G.711
 * μ-law, a WAV every browser plays. One byte per sample per channel: 16,000 bytes per second of a
 * stereo call, a quarter of the 16 kHz PCM16 original (64,000 bytes per second).
 */
export const COMPACT_RATE_HZ = 8000;

/** Bytes per second of a compact recording with this many channels. */
export function compactBytesPerSecond(channels = 2): number {
  return COMPACT_RATE_HZ * channels;
}

/** G.711 μ-law of one PCM16 sample, and back (audio's one codec; the names the report has always exported). */
export { muLawEncode as linearToMulaw, muLawDecode as mulawToLinear } from '../audio/index.ts';

/** A 15-tap windowed-sinc low-pass at `cutoff` (a fraction of the input rate), normalised to unit gain. */
function lowPass(cutoff: number, taps = 15): Float64Array {
  const h = new Float64Array(taps);
  const mid = (taps - 1) / 2;
  let sum = 0;
  for (let i = 0; i < taps; i++) {
    const x = i - mid;
    const sinc = x === 0 ? 2 * cutoff : Math.sin(2 * Math.PI * cutoff * x) / (Math.PI * x);
    const window = 0.54 - 0.46 * Math.cos((2 * Math.PI * i) / (taps - 1));
    h[i] = sinc * window;
    sum += h[i] as number;
  }
  for (let i = 0; i < taps; i++) h[i] = (h[i] as number) / sum;
  return h;
}

function header(channels: number, frames: number): Buffer {
  const fmt = Buffer.alloc(8 + 18);
  fmt.write('fmt ', 0, 'ascii');
  fmt.writeUInt32LE(18, 4);
  fmt.writeUInt16LE(7, 8); // WAVE_FORMAT_MULAW
  fmt.writeUInt16LE(channels, 10);
  fmt.writeUInt32LE(COMPACT_RATE_HZ, 12);
  fmt.writeUInt32LE(COMPACT_RATE_HZ * channels, 16);
  fmt.writeUInt16LE(channels, 20);
  fmt.writeUInt16LE(8, 22);
  fmt.writeUInt16LE(0, 24);
  const fact = Buffer.alloc(12);
  fact.write('fact', 0, 'ascii');
  fact.writeUInt32LE(4, 4);
  fact.writeUInt32LE(frames, 8);
  const data = Buffer.alloc(8);
  data.write('data', 0, 'ascii');
  data.writeUInt32LE(frames * channels, 4);
  const riff = Buffer.alloc(12);
  riff.write('RIFF', 0, 'ascii');
  riff.writeUInt32LE(4 + fmt.length + fact.length + data.length + frames * channels + ((frames * channels) % 2), 4);
  riff.write('WAVE', 8, 'ascii');
  return Buffer.concat([riff, fmt, fact, data]);
}

/**
 * Re-encodes a PCM16 WAV as the compact recording: low-passed below 3.6 kHz, resampled to 8 kHz
 * (linear interpolation between filtered samples), μ-law. Null when the bytes are not PCM16 WAV.
 */
export function compactWav(bytes: Uint8Array): Buffer | null {
  const layout = wavLayout(bytes);
  if (!layout) return null;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const ch = layout.channels;
  const inFrames = Math.floor(layout.dataBytes / (2 * ch));
  const ratio = layout.rateHz / COMPACT_RATE_HZ;
  const outFrames = Math.max(0, Math.floor(inFrames / ratio));
  const h = lowPass(Math.min(0.5, 3600 / layout.rateHz));
  const mid = (h.length - 1) / 2;
  const sample = (frame: number, c: number): number => view.getInt16(layout.dataOffset + (Math.min(inFrames - 1, Math.max(0, frame)) * ch + c) * 2, true);
  const filtered = (frame: number, c: number): number => {
    if (ratio <= 1) return sample(frame, c);
    let acc = 0;
    for (let k = 0; k < h.length; k++) acc += (h[k] as number) * sample(frame + k - mid, c);
    return acc;
  };
  const body = Buffer.alloc(outFrames * ch + ((outFrames * ch) % 2));
  for (let i = 0; i < outFrames; i++) {
    const t = i * ratio;
    const j = Math.floor(t);
    const frac = t - j;
    for (let c = 0; c < ch; c++) {
      const v = frac === 0 ? filtered(j, c) : filtered(j, c) * (1 - frac) + filtered(j + 1, c) * frac;
      body[i * ch + c] = muLawEncode(Math.max(-32768, Math.min(32767, v)));
    }
  }
  return Buffer.concat([header(ch, outFrames), body]);
}
