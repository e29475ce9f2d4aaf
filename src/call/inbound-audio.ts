import { SampleAligner, type Resampler, type StereoRecorder } from '../audio/index.ts';
import type { Clock } from '../core/index.ts';

/** Caller audio kept while the provider is not ready yet: the newest 30 s. */
const MAX_BUFFERED_BYTES = 30 * 32_000;

/**
 * The caller's direction of a call: whole samples out of any frame size (an odd byte carried),
 * the recording's left channel, resampling to the provider's rate, and buffering until the
 * provider is ready, flushed in arrival order (wire.md §1.3).
 */
export class InboundAudio {
  private readonly aligner = new SampleAligner();
  private resampler: Resampler | null = null;
  private ready = false;
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private lastFrameMs: number;

  private readonly clock: Clock;
  private readonly recorder: StereoRecorder;
  private readonly send: (pcm: Buffer) => void;

  constructor(
    clock: Clock,
    recorder: StereoRecorder,
    send: (pcm: Buffer) => void,
  ) {
    this.clock = clock;
    this.recorder = recorder;
    this.send = send;
    this.lastFrameMs = clock.nowMs();
  }

  /** Sets the 16 kHz → provider-rate resampler (created asynchronously at call start). */
  useResampler(resampler: Resampler): void {
    this.resampler = resampler;
  }

  /** Milliseconds on the clock when the last caller frame arrived (for the silence watchdog). */
  lastFrameAtMs(): number {
    return this.lastFrameMs;
  }

  /** Takes one binary frame received at media offset `mediaMs`. */
  write(chunk: Buffer, mediaMs: number): void {
    this.lastFrameMs = this.clock.nowMs();
    const pcm = this.aligner.write(chunk);
    if (pcm.length === 0) return;
    this.recorder.write('caller', mediaMs - pcm.length / 32, pcm);
    if (this.ready && this.resampler) {
      this.send(this.resampler.process(pcm));
      return;
    }
    this.pending.push(pcm);
    this.pendingBytes += pcm.length;
    while (this.pendingBytes > MAX_BUFFERED_BYTES) this.pendingBytes -= this.pending.shift()?.length ?? this.pendingBytes;
  }

  /** The provider is ready: flush what was buffered, then stream. */
  markReady(): void {
    const resampler = this.resampler;
    if (this.ready || !resampler) return;
    this.ready = true;
    for (const pcm of this.pending.splice(0)) this.send(resampler.process(pcm));
    this.pendingBytes = 0;
  }

  /** Frees the resampler (at hangup). */
  dispose(): void {
    this.resampler?.destroy();
    this.pending = [];
  }
}
