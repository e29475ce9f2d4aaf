import { CHIRP_BYTES_PER_MS, CHIRP_RATE_HZ } from './pcm.ts';
import { wavHeader } from './wav.ts';

/** Channel of the call recording: left is the caller, right the agent. */
export type RecordingSide = 'caller' | 'agent';

interface Placed {
  readonly offsetBytes: number;
  readonly pcm: Buffer;
}

/** A gap larger than this between where audio arrives and where the channel's cursor stands is real silence. */
const GAP_TOLERANCE_MS = 60;

/**
 * Records both directions of a call on the media clock and renders one stereo 16 kHz WAV.
 * Audio that arrives close to the channel cursor is appended back to back (arrival jitter is not
 * silence); audio that arrives later than the cursor by more than the tolerance starts there.
 */
export class StereoRecorder {
  private readonly placed: Record<RecordingSide, Placed[]> = { caller: [], agent: [] };
  private readonly cursorBytes: Record<RecordingSide, number> = { caller: 0, agent: 0 };

  /** Places mono 16 kHz PCM16 for a side at a media offset. */
  write(side: RecordingSide, atMs: number, pcm: Buffer): void {
    if (pcm.length === 0) return;
    const arrival = Math.max(0, Math.round(atMs)) * CHIRP_BYTES_PER_MS;
    const cursor = this.cursorBytes[side];
    const offsetBytes = arrival - cursor > GAP_TOLERANCE_MS * CHIRP_BYTES_PER_MS ? arrival : cursor;
    this.placed[side].push({ offsetBytes, pcm });
    this.cursorBytes[side] = offsetBytes + pcm.length;
  }

  /** Length in ms of the longer channel. */
  lengthMs(): number {
    return Math.max(this.cursorBytes.caller, this.cursorBytes.agent) / CHIRP_BYTES_PER_MS;
  }

  /** Renders the WAV, at least `minDurationMs` long (the call's duration). */
  toWav(minDurationMs = 0): Buffer {
    const frames = Math.max(Math.ceil(minDurationMs * (CHIRP_RATE_HZ / 1000)), Math.max(this.cursorBytes.caller, this.cursorBytes.agent) / 2);
    const data = Buffer.alloc(frames * 4);
    (['caller', 'agent'] as const).forEach((side, channel) => {
      for (const { offsetBytes, pcm } of this.placed[side]) {
        const firstFrame = offsetBytes / 2;
        for (let i = 0; i + 1 < pcm.length && firstFrame + i / 2 < frames; i += 2) {
          data.writeInt16LE(pcm.readInt16LE(i), (firstFrame + i / 2) * 4 + channel * 2);
        }
      }
    });
    return Buffer.concat([wavHeader(data.length, CHIRP_RATE_HZ, 2), data]);
  }
}
