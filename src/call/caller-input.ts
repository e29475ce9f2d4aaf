import type { Clock } from '../core/index.ts';

/** Bytes of CHIRP caller audio per millisecond (PCM16 mono 16 kHz). */
const BYTES_PER_MS = 32;
/** Text frames a caller may send at once, and per second after that (Bluejay sends a few a second). */
export const TEXT_FRAME_BURST = 2_000;
export const TEXT_FRAMES_PER_S = 100;

/** The limits caller input is held to. */
export interface CallerInputLimits {
  /** How far audio may run ahead of real time (MIVAS_CALLER_AUDIO_LEAD_S). */
  readonly audioLeadMs: number;
  /** The call's longest duration (MIVAS_MAX_CALL_S): no call carries more caller audio than this plus the lead. */
  readonly maxCallMs: number;
  /** Fast mode: callers send each utterance at once, so only the total is bounded, not the rate. */
  readonly fast: boolean;
}

/**
 * Holds a caller's input to real time, as a media server's jitter buffer does: audio may arrive
 * in bursts up to `audioLeadMs` ahead of the clock since accept (never more than the call's
 * maximum duration in all), text frames up to a burst plus a steady rate. Input past either is a
 * flood: the call ends `caller_flood` instead of buffering it (the recorder, the resampler and the
 * provider socket would each hold it in memory). Measured on the injected clock.
 */
export class CallerInputBudget {
  private readonly startMs: number;
  private audioBytes = 0;
  private textFrames = 0;

  private readonly clock: Clock;
  private readonly limits: CallerInputLimits;

  constructor(
    clock: Clock,
    limits: CallerInputLimits,
  ) {
    this.clock = clock;
    this.limits = limits;
    this.startMs = clock.nowMs();
  }

  /** Counts a binary frame; null while within the budget, else why it is a flood. */
  audio(byteLength: number): string | null {
    this.audioBytes += byteLength;
    const audioMs = this.audioBytes / BYTES_PER_MS;
    const elapsedMs = this.clock.nowMs() - this.startMs;
    const { audioLeadMs, maxCallMs, fast } = this.limits;
    if (audioMs > maxCallMs + audioLeadMs) return `caller sent ${seconds(audioMs)} s of audio, more than MIVAS_MAX_CALL_S (${seconds(maxCallMs)} s) plus the lead`;
    if (!fast && audioMs > elapsedMs + audioLeadMs) {
      return `caller audio ran ${seconds(audioMs - elapsedMs)} s ahead of real time (${seconds(audioMs)} s in ${seconds(elapsedMs)} s; MIVAS_CALLER_AUDIO_LEAD_S is ${seconds(audioLeadMs)})`;
    }
    return null;
  }

  /** Counts a text frame; null while within the budget, else why it is a flood. */
  text(): string | null {
    this.textFrames++;
    const elapsedS = (this.clock.nowMs() - this.startMs) / 1000;
    const allowed = TEXT_FRAME_BURST + TEXT_FRAMES_PER_S * elapsedS;
    return this.textFrames > allowed ? `caller sent ${this.textFrames} text frames in ${elapsedS.toFixed(1)} s (at most ${TEXT_FRAME_BURST} at once, then ${TEXT_FRAMES_PER_S} a second)` : null;
  }

  /** Seconds of caller audio accepted so far. */
  audioSeconds(): number {
    return this.audioBytes / BYTES_PER_MS / 1000;
  }
}

function seconds(ms: number): string {
  return (ms / 1000).toFixed(1);
}
