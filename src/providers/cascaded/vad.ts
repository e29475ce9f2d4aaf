import { bytesToMs } from '../../audio/index.ts';

/** How the energy detector decides (docs/providers.md, "Cascaded: turn-taking"). */
export interface EnergyVadOptions {
  /** PCM16 mono input rate. */
  readonly rateHz: number;
  /** A frame louder than this RMS level (dBFS) is speech. */
  readonly thresholdDbfs: number;
  /** Speech this long in a row opens a turn. */
  readonly startMs: number;
  /** Silence this long after speech closes it (endpointing). */
  readonly endpointMs: number;
}

/** What one chunk of audio changed: a turn opened, closed, or neither. */
export type VadEvent = 'started' | 'ended';

const FRAME_MS = 20;

/** RMS level of PCM16 samples in dBFS (digital silence: -Infinity). */
export function levelDbfs(pcm: Buffer): number {
  const samples = Math.floor(pcm.length / 2);
  if (samples === 0) return -Infinity;
  let sum = 0;
  for (let i = 0; i < samples; i++) {
    const s = pcm.readInt16LE(i * 2) / 32768;
    sum += s * s;
  }
  return 10 * Math.log10(sum / samples);
}

/**
 * A documented energy voice activity detector with endpointing: 20 ms frames, a fixed dBFS
 * threshold, a minimum run of loud frames to open a turn and a run of quiet frames to close it.
 * It counts time in samples, never on a clock, so the same audio always gives the same turns.
 * No model ships in a registry package this project already installs, so this is the VAD
 * (Silero via onnxruntime-node would add a ~100 MB native dependency; docs/providers.md).
 */
export class EnergyVad {
  private readonly frameBytes: number;
  private pending: Buffer = Buffer.alloc(0);
  private speaking = false;
  private loudMs = 0;
  private quietMs = 0;

  private readonly options: EnergyVadOptions;

  constructor(options: EnergyVadOptions) {
    this.options = options;
    this.frameBytes = Math.round((options.rateHz * FRAME_MS) / 1000) * 2;
  }

  /** True while a turn is open. */
  inSpeech(): boolean {
    return this.speaking;
  }

  /** Feeds audio; returns the turn boundaries it crossed, in order. */
  push(pcm: Buffer): VadEvent[] {
    const events: VadEvent[] = [];
    this.pending = this.pending.length ? Buffer.concat([this.pending, pcm]) : pcm;
    while (this.pending.length >= this.frameBytes) {
      const frame = this.pending.subarray(0, this.frameBytes);
      this.pending = this.pending.subarray(this.frameBytes);
      const ms = bytesToMs(frame.length, this.options.rateHz);
      const loud = levelDbfs(frame) > this.options.thresholdDbfs;
      if (!this.speaking) {
        this.loudMs = loud ? this.loudMs + ms : 0;
        if (this.loudMs >= this.options.startMs) {
          this.speaking = true;
          this.quietMs = 0;
          events.push('started');
        }
      } else {
        this.quietMs = loud ? 0 : this.quietMs + ms;
        if (this.quietMs >= this.options.endpointMs) {
          this.speaking = false;
          this.loudMs = 0;
          events.push('ended');
        }
      }
    }
    return events;
  }

  /** Forgets the open turn (a CHIRP speech.completed closed it first). */
  reset(): void {
    this.speaking = false;
    this.loudMs = 0;
    this.quietMs = 0;
  }
}
