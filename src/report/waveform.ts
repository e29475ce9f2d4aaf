/** Peak amplitudes of a stereo recording, for drawing the waveform on a canvas. */
export interface WaveformPeaks {
  readonly durationMs: number;
  readonly rateHz: number;
  /** Caller (left channel): peak |sample| per bucket in [0, 1], two decimals. */
  readonly left: readonly number[];
  /** Agent (right channel). */
  readonly right: readonly number[];
}

/** Where a PCM16 WAV's samples are. */
export interface WavLayout {
  readonly channels: number;
  readonly rateHz: number;
  readonly dataOffset: number;
  readonly dataBytes: number;
}

/** Finds the fmt and data chunks of a PCM16 RIFF/WAVE file; null when it is not one. */
export function wavLayout(bytes: Uint8Array): WavLayout | null {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const tag = (at: number): string => String.fromCharCode(...bytes.subarray(at, at + 4));
  if (bytes.length < 12 || tag(0) !== 'RIFF' || tag(8) !== 'WAVE') return null;
  let at = 12;
  let fmt: { channels: number; rateHz: number; bits: number } | null = null;
  while (at + 8 <= bytes.length) {
    const size = view.getUint32(at + 4, true);
    if (tag(at) === 'fmt ' && at + 24 <= bytes.length) fmt = { channels: view.getUint16(at + 10, true), rateHz: view.getUint32(at + 12, true), bits: view.getUint16(at + 22, true) };
    if (tag(at) === 'data') {
      if (!fmt || fmt.bits !== 16 || fmt.channels < 1 || fmt.rateHz < 1) return null;
      return { channels: fmt.channels, rateHz: fmt.rateHz, dataOffset: at + 8, dataBytes: Math.min(size, bytes.length - at - 8) };
    }
    at += 8 + size + (size % 2);
  }
  return null;
}

/**
 * Peaks per bucket for each channel (a mono file draws the same peaks twice). Pure: the caller
 * reads the bytes. 1,200 buckets keep a conversation page small while filling a wide canvas.
 */
export function waveformPeaks(bytes: Uint8Array, buckets = 1200): WaveformPeaks | null {
  const layout = wavLayout(bytes);
  if (!layout) return null;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const frameBytes = 2 * layout.channels;
  const frames = Math.floor(layout.dataBytes / frameBytes);
  const count = Math.max(1, Math.min(buckets, frames));
  const left = new Array<number>(count).fill(0);
  const right = new Array<number>(count).fill(0);
  for (let f = 0; f < frames; f++) {
    const b = Math.min(count - 1, Math.floor((f * count) / frames));
    const base = layout.dataOffset + f * frameBytes;
    const l = Math.abs(view.getInt16(base, true));
    const r = layout.channels > 1 ? Math.abs(view.getInt16(base + 2, true)) : l;
    if (l > (left[b] ?? 0)) left[b] = l;
    if (r > (right[b] ?? 0)) right[b] = r;
  }
  const scale = (v: number): number => Math.round((v / 32768) * 100) / 100;
  return { durationMs: Math.round((frames / layout.rateHz) * 1000), rateHz: layout.rateHz, left: left.map(scale), right: right.map(scale) };
}

/**
 * Stretches of sound per channel (caller left, agent right), in ms: 10 ms frames whose peak
 * passes `threshold`, joined across gaps shorter than `minGapMs`. Used to place a fast run's
 * utterances, which the recorder lays back to back.
 */
export function voicedRuns(bytes: Uint8Array, threshold = 200, minGapMs = 40): { readonly left: readonly (readonly [number, number])[]; readonly right: readonly (readonly [number, number])[] } | null {
  const layout = wavLayout(bytes);
  if (!layout) return null;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const frameBytes = 2 * layout.channels;
  const frames = Math.floor(layout.dataBytes / frameBytes);
  const per = Math.max(1, Math.round(layout.rateHz / 100));
  const runs = (channel: number): [number, number][] => {
    const out: [number, number][] = [];
    let on: number | null = null;
    for (let f0 = 0; f0 < frames; f0 += per) {
      let peak = 0;
      for (let f = f0; f < Math.min(frames, f0 + per); f++) peak = Math.max(peak, Math.abs(view.getInt16(layout.dataOffset + f * frameBytes + 2 * channel, true)));
      const ms = (f0 / layout.rateHz) * 1000;
      if (peak > threshold && on === null) on = ms;
      if (peak <= threshold && on !== null) {
        out.push([on, ms]);
        on = null;
      }
    }
    if (on !== null) out.push([on, (frames / layout.rateHz) * 1000]);
    const merged: [number, number][] = [];
    for (const r of out) {
      const last = merged[merged.length - 1];
      if (last && r[0] - last[1] < minGapMs) last[1] = r[1];
      else merged.push([r[0], r[1]]);
    }
    return merged;
  };
  return { left: runs(0), right: layout.channels > 1 ? runs(1) : runs(0) };
}
