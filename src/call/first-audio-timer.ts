import type { Clock } from '../core/index.ts';

/**
 * Times each model response from what asked for it to its first audio delta (time to first
 * audio, `mivas_model_ttft_seconds`). A response answers the latest trigger before it began: a
 * response request, or the end of caller speech the model answers on its own. A response with
 * no trigger or no audio is not timed.
 */
export class FirstAudioTimer {
  private triggeredAtMs: number | null = null;
  private timing: { readonly responseId: string | null; readonly fromMs: number } | null = null;

  private readonly clock: Clock;
  private readonly record: (responseId: string | null, ttftMs: number) => void;

  constructor(
    clock: Clock,
    record: (responseId: string | null, ttftMs: number) => void,
  ) {
    this.clock = clock;
    this.record = record;
  }

  /** A response was requested, or the caller stopped speaking. */
  triggered(): void {
    this.triggeredAtMs = this.clock.nowMs();
  }

  /** A response began: it answers the latest trigger. */
  responseStarted(responseId: string | null): void {
    this.timing = this.triggeredAtMs === null ? null : { responseId, fromMs: this.triggeredAtMs };
    this.triggeredAtMs = null;
  }

  /** Agent audio arrived: the first of a timed response is recorded. */
  audioArrived(): void {
    if (!this.timing) return;
    this.record(this.timing.responseId, this.clock.nowMs() - this.timing.fromMs);
    this.timing = null;
  }

  /** The response ended (with or without audio). */
  responseDone(): void {
    this.timing = null;
  }
}
