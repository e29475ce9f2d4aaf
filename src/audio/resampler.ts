import libsamplerate from '@alexanderolsen/libsamplerate-js';
import { floatToPcm16, pcm16ToFloat } from './pcm.ts';

/** A stateful mono PCM16 resampler: one per direction per call (wire.md §1.3). */
export interface Resampler {
  readonly fromHz: number;
  readonly toHz: number;
  /** Resamples a chunk, keeping filter state across calls so chunk edges leave no artifacts. */
  process(pcm: Buffer): Buffer;
  /** Frees the converter (at hangup): back to its pool, or destroyed. */
  destroy(): void;
}

type Converter = Awaited<ReturnType<typeof libsamplerate.create>>;

/** Silence fed to a returned converter so the next call starts with no trace of the last one. */
const FLUSH_SECONDS = 0.05;

function newConverter(fromHz: number, toHz: number): Promise<Converter> {
  // The package is CommonJS: its named exports are reached through the default import.
  // SINC_FASTEST: still band-limited sinc (97 dB SNR) with an 80% passband (6.4 kHz at 16 kHz,
  // above telephone speech), at under half of SINC_MEDIUM's CPU; resampling was over half of a
  // live call's server CPU (docs/performance.md).
  return libsamplerate.create(1, fromHz, toHz, { converterType: libsamplerate.ConverterType.SRC_SINC_FASTEST });
}

function wrap(fromHz: number, toHz: number, converter: Converter, release: (c: Converter) => void): Resampler {
  let released = false;
  return {
    fromHz,
    toHz,
    process(pcm) {
      if (released || pcm.length === 0) return Buffer.alloc(0);
      return floatToPcm16(converter.full(pcm16ToFloat(pcm)));
    },
    destroy() {
      if (released) return;
      released = true;
      release(converter);
    },
  };
}

const passThrough = (fromHz: number, toHz: number): Resampler => ({ fromHz, toHz, process: (pcm) => pcm, destroy: () => undefined });

/** Creates a resampler of its own; equal rates give a pass-through. */
export async function createResampler(fromHz: number, toHz: number): Promise<Resampler> {
  if (fromHz === toHz) return passThrough(fromHz, toHz);
  return wrap(fromHz, toHz, await newConverter(fromHz, toHz), (c) => c.destroy());
}

/**
 * Reuses converters across calls. Creating one starts a WASM instance (11 to 22 ms of CPU on the
 * event loop, where every live call's pacer runs), so calls take them from here and give them
 * back at hangup, flushed with silence. Each stays exclusive to one call while held.
 */
export class ResamplerPool {
  private readonly idle = new Map<string, Converter[]>();
  private closed = false;

  constructor(private readonly maxIdlePerRate = 64) {}

  /** A resampler for one direction of one call. */
  async acquire(fromHz: number, toHz: number): Promise<Resampler> {
    if (fromHz === toHz) return passThrough(fromHz, toHz);
    const key = `${fromHz}>${toHz}`;
    const converter = this.idle.get(key)?.pop() ?? (await newConverter(fromHz, toHz));
    return wrap(fromHz, toHz, converter, (c) => this.giveBack(key, fromHz, c));
  }

  /** Converters waiting for a call. */
  idleCount(): number {
    return [...this.idle.values()].reduce((n, list) => n + list.length, 0);
  }

  /** Destroys every idle converter; later returns are destroyed too. */
  close(): void {
    this.closed = true;
    for (const list of this.idle.values()) for (const c of list.splice(0)) c.destroy();
  }

  private giveBack(key: string, fromHz: number, converter: Converter): void {
    const list = this.idle.get(key) ?? [];
    if (this.closed || list.length >= this.maxIdlePerRate) return converter.destroy();
    converter.full(new Float32Array(Math.round(fromHz * FLUSH_SECONDS)));
    list.push(converter);
    this.idle.set(key, list);
  }
}
