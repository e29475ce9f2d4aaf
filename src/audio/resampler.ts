import libsamplerate from '@alexanderolsen/libsamplerate-js';
import { floatToPcm16, pcm16ToFloat } from './pcm.ts';

/** A stateful mono PCM16 resampler: one per direction per call (wire.md §1.3). */
export interface Resampler {
  readonly fromHz: number;
  readonly toHz: number;
  /** Resamples a chunk, keeping filter state across calls so chunk edges leave no artifacts. */
  process(pcm: Buffer): Buffer;
  /** Frees the converter (at hangup). */
  destroy(): void;
}

/** Creates a resampler; equal rates give a pass-through. */
export async function createResampler(fromHz: number, toHz: number): Promise<Resampler> {
  if (fromHz === toHz) return { fromHz, toHz, process: (pcm) => pcm, destroy: () => undefined };
  // The package is CommonJS: its named exports are reached through the default import.
  // SINC_FASTEST: still band-limited sinc (97 dB SNR) with an 80% passband (6.4 kHz at 16 kHz,
  // above telephone speech), at under half of SINC_MEDIUM's CPU; resampling was over half of a
  // live call's server CPU (docs/performance.md).
  const src = await libsamplerate.create(1, fromHz, toHz, { converterType: libsamplerate.ConverterType.SRC_SINC_FASTEST });
  let destroyed = false;
  return {
    fromHz,
    toHz,
    process(pcm) {
      if (destroyed || pcm.length === 0) return Buffer.alloc(0);
      return floatToPcm16(src.full(pcm16ToFloat(pcm)));
    },
    destroy() {
      if (destroyed) return;
      destroyed = true;
      src.destroy();
    },
  };
}
