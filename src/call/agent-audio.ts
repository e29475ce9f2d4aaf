import { StereoRecorder, type Resampler } from '../audio/index.ts';
import { encodeTextFrame, OutboundPacer, type ChirpSocket, type Interruption, type OutboundChirpType } from '../chirp/index.ts';
import type { Clock, IdSource } from '../core/index.ts';
import type { Timeline } from '../snapshot/index.ts';
import { countClipping } from './smoke.ts';

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
  private firstFrameMs: number | null = null;
  private clipping = 0;

  constructor(private readonly deps: AgentAudioDeps) {
    this.pacer = new OutboundPacer(deps.clock, this.effects(), () => `u_${deps.ids.hex(12)}`, deps.fast);
  }

  /** Sets the provider-rate → 16 kHz resampler. */
  useResampler(resampler: Resampler): void {
    this.resampler = resampler;
  }

  /** Queues provider audio for an item. */
  push(itemId: string, pcm: Buffer): void {
    this.pacer.push(itemId, this.resampler?.process(pcm) ?? pcm);
  }

  /** The item's audio is complete. */
  finish(itemId: string): void {
    this.pacer.finish(itemId);
  }

  /** Barge-in: drop unsent audio and report what the caller heard. */
  interrupt(): Interruption | null {
    return this.pacer.interrupt();
  }

  /** Resolves once everything queued has been sent. */
  whenIdle(): Promise<void> {
    return this.pacer.whenIdle();
  }

  /** Media offset of the first agent frame, or null when the agent never spoke. */
  firstAudioMs(): number | null {
    return this.firstFrameMs;
  }

  /** Runs of three or more full-scale samples sent so far. */
  clippingEvents(): number {
    return this.clipping;
  }

  /** Sends a CHIRP text event in the envelope. */
  sendText(type: OutboundChirpType, data: Record<string, unknown>): void {
    this.deps.socket.sendText(encodeTextFrame(type, data, this.deps.ids, this.deps.clock.epochMs()));
  }

  /** Stops pacing and frees the resampler. */
  dispose(): void {
    this.pacer.dispose();
    this.resampler?.destroy();
  }

  private effects(): ConstructorParameters<typeof OutboundPacer>[1] {
    const { timeline, socket, recorder, clock, acceptedMs } = this.deps;
    return {
      utteranceStarted: (utteranceId) => {
        this.firstFrameMs ??= clock.nowMs() - acceptedMs;
        this.sendText('speech.started', { utterance_id: utteranceId });
        timeline.add({ type: 'speech.started', side: 'agent', utterance_id: utteranceId });
      },
      frame: (pcm, _utteranceId, positionMs) => {
        socket.sendBinary(pcm);
        this.clipping += countClipping(pcm);
        recorder.write('agent', positionMs - acceptedMs, pcm);
      },
      utteranceCompleted: (utteranceId, _itemId, interrupted) => {
        this.sendText('speech.completed', { utterance_id: utteranceId });
        if (!interrupted) this.sendText('mark', { name: utteranceId });
        timeline.add({ type: 'speech.completed', side: 'agent', utterance_id: utteranceId, interrupted });
      },
      underrun: (utteranceId, gapMs) => {
        timeline.add({ type: 'audio.underrun', utterance_id: utteranceId, gap_ms: Math.round(gapMs) });
      },
    };
  }
}
