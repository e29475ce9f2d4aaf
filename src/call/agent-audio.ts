import { StereoRecorder, type Resampler } from '../audio/index.ts';
import { encodeServerFrame, OutboundPacer, serverFrame, type ChirpSocket, type Interruption, type PacingStats, type ServerFrameFields, type ServerFrameType } from '../chirp/index.ts';
import type { Clock, IdSource, Timer } from '../core/index.ts';
import { countClipping, type Timeline } from '../snapshot/index.ts';

/** Resampled audio kept queued ahead of the pacer: its 200 ms lead plus as much again. */
const REFILL_TARGET_MS = 400;

/** Where the agent's direction of a call runs: its clock, ids, socket, timeline and recorder. */
export interface AgentAudioDeps {
  readonly clock: Clock;
  readonly ids: IdSource;
  readonly socket: ChirpSocket;
  readonly timeline: Timeline;
  readonly recorder: StereoRecorder;
  /** Clock time the socket was accepted: media offset zero. */
  readonly acceptedMs: number;
  readonly fast: boolean;
}

/**
 * The agent's direction of a call: provider audio resampled to 16 kHz, paced to the caller with
 * `speech.started` / `speech.completed` / `mark` around each utterance (wire.md §1.4, §1.7),
 * recorded on the right channel, with the figures the smoke rubric needs.
 */
export class AgentAudio {
  private readonly pacer: OutboundPacer;
  private resampler: Resampler | null = null;
  /** Provider audio not yet resampled, per item in arrival order. */
  private readonly raw: { readonly itemId: string; readonly chunks: Buffer[]; finished: boolean }[] = [];
  private refilling = false;
  private firstFrameMs: number | null = null;
  private clipping = 0;
  /** Items cut by barge-in: deltas of theirs still in flight must not open a new utterance. */
  private readonly cutItems = new Set<string>();
  /** False once the caller's socket can no longer be written: speech events then go to the timeline only. */
  private wireOpen = true;
  private playout: { readonly timer: Timer; readonly resolve: () => void } | null = null;
  private disposed = false;
  /** The per-frame top-up, made once rather than a closure for every 20 ms frame. */
  private readonly refillAfterFrame = (): void => this.refill();

  private readonly deps: AgentAudioDeps;

  constructor(deps: AgentAudioDeps) {
    this.deps = deps;
    this.pacer = new OutboundPacer(deps.clock, this.effects(), () => `u_${deps.ids.hex(12)}`, deps.fast);
  }

  /** Sets the provider-rate → 16 kHz resampler. */
  useResampler(resampler: Resampler): void {
    this.resampler = resampler;
  }

  /** Queues provider audio for an item; false (and dropped) when the item was cut by barge-in. */
  push(itemId: string, pcm: Buffer): boolean {
    if (this.cutItems.has(itemId)) return false;
    let entry = this.raw.find((r) => r.itemId === itemId && !r.finished);
    if (!entry) {
      entry = { itemId, chunks: [], finished: false };
      this.raw.push(entry);
    }
    entry.chunks.push(pcm);
    this.refill();
    return true;
  }

  /** The item's audio is complete. */
  finish(itemId: string): void {
    const entry = this.raw.find((r) => r.itemId === itemId && !r.finished);
    if (entry) entry.finished = true;
    this.refill();
  }

  /**
   * Barge-in: drop unsent audio and report what the caller heard. Every item dropped is marked cut,
   * so the provider's deltas still in flight for it are dropped too instead of replaying the reply.
   */
  interrupt(): Interruption | null {
    for (const itemId of this.pacer.queuedItemIds()) this.cutItems.add(itemId);
    for (const entry of this.raw) this.cutItems.add(entry.itemId);
    this.raw.length = 0;
    return this.pacer.interrupt();
  }

  /**
   * Call teardown: closes every utterance still open with `speech.completed` (interrupted), on the
   * wire while `onWire` (the socket is still writable) and always in the timeline, so each
   * `speech.started` has its pair before the close.
   */
  closeOpenUtterances(onWire: boolean): void {
    this.wireOpen = onWire;
    this.raw.length = 0;
    this.pacer.interrupt();
  }

  /** Resolves once everything queued has been sent. */
  async whenIdle(): Promise<void> {
    for (;;) {
      await this.pacer.whenIdle();
      if (this.raw.every((r) => r.chunks.length === 0)) return;
      this.refill();
    }
  }

  /**
   * Resolves once everything queued has been sent and has played at the caller's real-time
   * position (the pacer leads real time by up to 200 ms, so the last send is early by that much).
   * Fast mode does not pace and does not wait. Resolves at once after dispose().
   */
  async whenPlayed(): Promise<void> {
    await this.whenIdle();
    const remainingMs = this.pacer.playedOutAtMs() - this.deps.clock.nowMs();
    if (this.deps.fast || this.disposed || remainingMs <= 0) return;
    await new Promise<void>((resolve) => {
      const timer = this.deps.clock.setTimer(remainingMs, () => {
        this.playout = null;
        resolve();
      });
      this.playout = { timer, resolve };
    });
  }

  /**
   * Resamples provider audio only as the pacer needs it. A provider sends a reply's audio in a
   * burst, faster than real time; resampling all of it on arrival held the event loop for several
   * milliseconds, while every call's pacer waits on the same loop (docs/performance.md).
   */
  private refill(): void {
    if (this.refilling) return;
    this.refilling = true;
    try {
      while (this.pacer.queuedMs() < REFILL_TARGET_MS) {
        const head = this.raw[0];
        if (!head) return;
        const chunk = head.chunks.shift();
        if (chunk) this.pacer.push(head.itemId, this.resampler?.process(chunk) ?? chunk);
        else if (head.finished) {
          this.raw.shift();
          this.pacer.finish(head.itemId);
        } else return;
      }
    } finally {
      this.refilling = false;
    }
  }

  /** Media offset of the first agent frame, or null when the agent never spoke. */
  firstAudioMs(): number | null {
    return this.firstFrameMs;
  }

  /** How evenly paced frames left so far; null in fast mode, which does not pace. */
  pacing(): PacingStats | null {
    return this.deps.fast ? null : this.pacer.pacingStats();
  }

  /** Runs of three or more full-scale samples sent so far. */
  clippingEvents(): number {
    return this.clipping;
  }

  /** Sends a CHIRP text frame, encoded by the codec (`sendText('mark', { name })`). */
  sendText<T extends ServerFrameType>(type: T, fields: ServerFrameFields<T>): void {
    if (!this.wireOpen) return;
    this.deps.socket.sendText(encodeServerFrame(serverFrame(type, fields), this.deps.ids, this.deps.clock.epochMs()));
  }

  /** Stops pacing, ends a play-out wait and frees the resampler. */
  dispose(): void {
    this.disposed = true;
    this.pacer.dispose();
    this.resampler?.destroy();
    const playout = this.playout;
    this.playout = null;
    playout?.timer.cancel();
    playout?.resolve();
  }

  private effects(): ConstructorParameters<typeof OutboundPacer>[1] {
    const { timeline, socket, recorder, clock, acceptedMs } = this.deps;
    return {
      utteranceStarted: (utteranceId) => {
        this.firstFrameMs ??= clock.nowMs() - acceptedMs;
        this.sendText('speech.started', { utteranceId });
        timeline.add({ type: 'speech.started', side: 'agent', utterance_id: utteranceId });
      },
      frame: (pcm, _utteranceId, positionMs) => {
        // Never re-enter the pacer from its own effect: top up once this frame's pump is done.
        queueMicrotask(this.refillAfterFrame);
        socket.sendBinary(pcm);
        this.clipping += countClipping(pcm);
        recorder.write('agent', positionMs - acceptedMs, pcm);
      },
      utteranceCompleted: (utteranceId, _itemId, interrupted) => {
        this.sendText('speech.completed', { utteranceId });
        // The mark leaves with this speech.completed, so its echo's lag is measured from it (mivas_mark_echo_seconds).
        if (!interrupted) this.sendText('mark', { name: utteranceId });
        timeline.add({ type: 'speech.completed', side: 'agent', utterance_id: utteranceId, interrupted });
      },
      underrun: (utteranceId, gapMs) => {
        timeline.add({ type: 'audio.underrun', utterance_id: utteranceId, gap_ms: Math.round(gapMs) });
      },
      clockReset: (utteranceId, behindMs) => {
        timeline.add({ type: 'audio.clock_reset', utterance_id: utteranceId, behind_ms: Math.round(behindMs) });
      },
    };
  }
}
