import { CHIRP_BYTES_PER_MS, CHIRP_RATE_HZ, pcm16Samples } from './pcm.ts';
import { wavHeader } from './wav.ts';

/** Channel of the call recording: left is the caller, right the agent. */
export type RecordingSide = 'caller' | 'agent';

/** A gap larger than this between where audio arrives and where the channel's cursor stands is real silence. */
const GAP_TOLERANCE_MS = 60;

/** Interleaved stereo frames per storage block: 10 s, so a long call never regrows one big array. */
const BLOCK_FRAMES = CHIRP_RATE_HZ * 10;

/**
 * Records both directions of a call on the media clock and renders one stereo 16 kHz WAV.
 * Audio that arrives close to the channel cursor is appended back to back (arrival jitter is not
 * silence); audio that arrives later than the cursor by more than the tolerance starts there.
 * Samples are interleaved as they arrive, so rendering at hangup is one copy, not a pass over
 * every sample while other calls wait on the event loop.
 */
export class StereoRecorder {
  private readonly blocks: Int16Array[] = [];
  private readonly cursorBytes: Record<RecordingSide, number> = { caller: 0, agent: 0 };

  /** Places mono 16 kHz PCM16 for a side at a media offset. */
  write(side: RecordingSide, atMs: number, pcm: Buffer): void {
    if (pcm.length < 2) return;
    const arrival = Math.max(0, Math.round(atMs)) * CHIRP_BYTES_PER_MS;
    const cursor = this.cursorBytes[side];
    const offsetBytes = arrival - cursor > GAP_TOLERANCE_MS * CHIRP_BYTES_PER_MS ? arrival : cursor;
    this.place(side === 'caller' ? 0 : 1, offsetBytes / 2, pcm16Samples(pcm));
    this.cursorBytes[side] = offsetBytes + pcm.length;
  }

  /** Length in ms of the longer channel. */
  lengthMs(): number {
    return Math.max(this.cursorBytes.caller, this.cursorBytes.agent) / CHIRP_BYTES_PER_MS;
  }

  /** Renders the WAV, at least `minDurationMs` long (the call's duration). */
  toWav(minDurationMs = 0): Buffer {
    const frames = Math.max(Math.ceil(minDurationMs * (CHIRP_RATE_HZ / 1000)), Math.max(this.cursorBytes.caller, this.cursorBytes.agent) / 2);
    const header = wavHeader(frames * 4, CHIRP_RATE_HZ, 2);
    const wav = Buffer.alloc(header.length + frames * 4);
    header.copy(wav);
    this.blocks.forEach((block, b) => {
      const bytes = Math.min(block.byteLength, frames * 4 - b * BLOCK_FRAMES * 4);
      if (bytes > 0) Buffer.from(block.buffer, block.byteOffset, bytes).copy(wav, header.length + b * BLOCK_FRAMES * 4);
    });
    return wav;
  }

  private place(channel: 0 | 1, firstFrame: number, samples: Int16Array): void {
    for (let i = 0; i < samples.length; ) {
      const frame = firstFrame + i;
      const b = Math.floor(frame / BLOCK_FRAMES);
      while (this.blocks.length <= b) this.blocks.push(new Int16Array(BLOCK_FRAMES * 2));
      const block = this.blocks[b] as Int16Array;
      const inBlock = Math.min(samples.length - i, BLOCK_FRAMES - (frame - b * BLOCK_FRAMES));
      for (let k = 0, at = (frame - b * BLOCK_FRAMES) * 2 + channel; k < inBlock; k++, at += 2) block[at] = samples[i + k] as number;
      i += inBlock;
    }
  }
}
