import { open, rm } from 'node:fs/promises';
import { CHIRP_BYTES_PER_MS, CHIRP_RATE_HZ, pcm16Samples } from './pcm.ts';
import { wavHeader } from './wav.ts';

/** Channel of the call recording: left is the caller, right the agent. */
export type RecordingSide = 'caller' | 'agent';

/** A gap larger than this between where audio arrives and where the channel's cursor stands is real silence. */
const GAP_TOLERANCE_MS = 60;

/** Interleaved stereo frames per storage block: 5 s (320 KiB), so a long call never regrows one big array. */
const BLOCK_FRAMES = CHIRP_RATE_HZ * 5;

/** Blocks kept in memory behind the newest one when spilling to a file: 20 s in all. */
const KEEP_BLOCKS = 4;

const HEADER_BYTES = 44;
const BYTES_PER_FRAME = 4;

/** An open recording file: positional reads and writes (a seam so a test can make the disk fail). */
export interface RecordingHandle {
  write(data: Buffer, position: number): Promise<void>;
  /** Reads into `data` from `position`; resolves with the bytes read (fewer at the end of the file). */
  read(data: Buffer, position: number): Promise<number>;
  truncate(length: number): Promise<void>;
  close(): Promise<void>;
}

/** How a recorder opens and removes its file. */
export interface RecordingFiles {
  open(path: string): Promise<RecordingHandle>;
  remove(path: string): Promise<void>;
}

/** The real file system (node:fs/promises). */
export const diskRecordingFiles: RecordingFiles = {
  async open(path) {
    const handle = await open(path, 'w+');
    return {
      write: async (data, position) => {
        let done = 0;
        while (done < data.length) done += (await handle.write(data, done, data.length - done, position + done)).bytesWritten;
      },
      read: async (data, position) => (await handle.read(data, 0, data.length, position)).bytesRead,
      truncate: (length) => handle.truncate(length),
      close: () => handle.close(),
    };
  },
  remove: (path) => rm(path, { force: true }),
};

/** Where a finished recording is: the WAV file on disk, or (in memory, or when the disk failed) its bytes. */
export type FinishedRecording = { readonly kind: 'file'; readonly path: string; readonly bytes: number } | { readonly kind: 'buffer'; readonly wav: Buffer };

/** A recorder writing its finished blocks to `path` as they fall behind; without one it stays in memory. */
export interface RecordingSpill {
  readonly path: string;
  readonly files?: RecordingFiles;
  /** Blocks kept in memory behind the newest (default 4 of 5 s). */
  readonly keepBlocks?: number;
  /** Frames per block (default 5 s); tests use small blocks. */
  readonly blockFrames?: number;
}

/**
 * Records both directions of a call on the media clock and renders one stereo 16 kHz WAV.
 * Audio that arrives close to the channel cursor is appended back to back (arrival jitter is not
 * silence); audio that arrives later than the cursor by more than the tolerance starts there.
 *
 * Samples are interleaved into blocks as they arrive. With a spill file, a block that falls more
 * than `keepBlocks` behind the newest is written to the file (one async positional write, in
 * order) and dropped from memory, so a call holds at most about 25 s of audio whatever its length;
 * `finish()` writes the rest and the header and hands over the file. Audio that lands in a block
 * already written is patched into the file; a block the disk refused stays in memory and is
 * retried, and if the disk still refuses at the end, the WAV is returned as bytes instead.
 */
export class StereoRecorder {
  private readonly blocks = new Map<number, Int16Array>();
  private readonly cursorBytes: Record<RecordingSide, number> = { caller: 0, agent: 0 };
  private readonly blockFrames: number;
  private readonly keepBlocks: number;
  /** Blocks below this index have left memory (written, queued, or held in `unwritten`). */
  private spilledBelow = 0;
  /** Blocks out of memory's window whose bytes are not on disk yet (queued, or refused by the disk): written later. */
  private readonly unwritten = new Map<number, Int16Array>();
  /** Blocks with a write waiting in the chain. */
  private readonly queued = new Set<number>();
  /** Changes to each unwritten block, so a write that raced a change is done again. */
  private readonly versions = new Map<number, number>();
  private handle: Promise<RecordingHandle | null> | null = null;
  /** File operations run one at a time, in order. */
  private chain: Promise<void> = Promise.resolve();
  private finished: Promise<FinishedRecording> | null = null;
  private failures = 0;

  private readonly spill: RecordingSpill | null;

  constructor(spill: RecordingSpill | null = null) {
    this.spill = spill;
    this.blockFrames = spill?.blockFrames ?? BLOCK_FRAMES;
    this.keepBlocks = spill?.keepBlocks ?? KEEP_BLOCKS;
  }

  /** Places mono 16 kHz PCM16 for a side at a media offset (ignored once finish() has been called). */
  write(side: RecordingSide, atMs: number, pcm: Buffer): void {
    if (pcm.length < 2 || this.finished) return;
    const arrival = Math.max(0, Math.round(atMs)) * CHIRP_BYTES_PER_MS;
    const cursor = this.cursorBytes[side];
    const offsetBytes = arrival - cursor > GAP_TOLERANCE_MS * CHIRP_BYTES_PER_MS ? arrival : cursor;
    this.place(side === 'caller' ? 0 : 1, offsetBytes / 2, pcm16Samples(pcm));
    this.cursorBytes[side] = offsetBytes + (pcm.length & ~1);
    if (this.spill) this.spillBehind();
  }

  /** Length in ms of the longer channel. */
  lengthMs(): number {
    return Math.max(this.cursorBytes.caller, this.cursorBytes.agent) / CHIRP_BYTES_PER_MS;
  }

  /** Blocks held in memory now (the bound the spill keeps). */
  blocksInMemory(): number {
    return this.blocks.size + this.unwritten.size;
  }

  /** File operations that failed so far (each failed block is kept in memory and retried). */
  fileFailures(): number {
    return this.failures;
  }

  /** Renders the WAV in memory, at least `minDurationMs` long (a recorder without a spill file). */
  toWav(minDurationMs = 0): Buffer {
    if (this.spill) throw new Error('a spilling recorder is rendered with finish()');
    const frames = this.frameCount(minDurationMs);
    const wav = Buffer.alloc(HEADER_BYTES + frames * BYTES_PER_FRAME);
    wavHeader(frames * BYTES_PER_FRAME, CHIRP_RATE_HZ, 2).copy(wav);
    for (const [b, block] of this.blocks) this.copyBlock(wav, b, block, frames);
    return wav;
  }

  /**
   * Ends the recording (later writes are ignored) and renders it, at least `minDurationMs` long:
   * the spill file with its header (`kind: 'file'`), or the bytes when there is no file or the disk
   * failed. Never rejects. Calling it again returns the same result.
   */
  finish(minDurationMs = 0): Promise<FinishedRecording> {
    this.finished ??= this.spill ? this.finishFile(this.spill, minDurationMs) : Promise.resolve({ kind: 'buffer', wav: this.toWav(minDurationMs) });
    return this.finished;
  }

  private frameCount(minDurationMs: number): number {
    return Math.max(Math.ceil(minDurationMs * (CHIRP_RATE_HZ / 1000)), Math.max(this.cursorBytes.caller, this.cursorBytes.agent) / 2);
  }

  private copyBlock(wav: Buffer, b: number, block: Int16Array, frames: number): void {
    const bytes = Math.min(block.byteLength, (frames - b * this.blockFrames) * BYTES_PER_FRAME);
    if (bytes > 0) Buffer.from(block.buffer, block.byteOffset, bytes).copy(wav, HEADER_BYTES + b * this.blockFrames * BYTES_PER_FRAME);
  }

  private async finishFile(spill: RecordingSpill, minDurationMs: number): Promise<FinishedRecording> {
    const frames = this.frameCount(minDurationMs);
    for (const b of [...this.blocks.keys()].sort((x, y) => x - y)) this.spillBlock(b);
    this.spilledBelow = Number.POSITIVE_INFINITY;
    for (const b of this.unwritten.keys()) this.requestWrite(b);
    // A patch may queue another write as it runs: wait (bounded) until nothing is queued.
    for (let round = 0; round < 4 && (round === 0 || this.queued.size > 0); round++) await this.chain;
    const header = wavHeader(frames * BYTES_PER_FRAME, CHIRP_RATE_HZ, 2);
    let headerWritten = false;
    this.enqueue(async (file) => {
      await file.write(header, 0);
      await file.truncate(HEADER_BYTES + frames * BYTES_PER_FRAME);
      headerWritten = true;
    });
    await this.chain;
    const file = await this.openFile();
    if (headerWritten && this.unwritten.size === 0 && file) {
      const closed = await file.close().then(
        () => true,
        () => false,
      );
      if (closed) return { kind: 'file', path: spill.path, bytes: HEADER_BYTES + frames * BYTES_PER_FRAME };
    }
    return this.renderFromFile(spill, file, frames, header);
  }

  /** The disk failed: the WAV from what the file holds plus the blocks kept in memory. */
  private async renderFromFile(spill: RecordingSpill, file: RecordingHandle | null, frames: number, header: Buffer): Promise<FinishedRecording> {
    const wav = Buffer.alloc(HEADER_BYTES + frames * BYTES_PER_FRAME);
    if (file) {
      await file.read(wav, 0).catch(() => 0);
      await file.close().catch(() => undefined);
    }
    header.copy(wav);
    for (const [b, block] of this.unwritten) this.copyBlock(wav, b, block, frames);
    await (spill.files ?? diskRecordingFiles).remove(spill.path).catch(() => undefined);
    return { kind: 'buffer', wav };
  }

  private openFile(): Promise<RecordingHandle | null> {
    const spill = this.spill;
    if (!spill) return Promise.resolve(null);
    this.handle ??= (spill.files ?? diskRecordingFiles).open(spill.path).then(
      async (file) => {
        // A streaming header first, so the file of a call cut short by a crash still plays.
        await file.write(wavHeader(0xffffffff - 36, CHIRP_RATE_HZ, 2), 0).catch(() => undefined);
        return file;
      },
      () => {
        this.failures++;
        return null;
      },
    );
    return this.handle;
  }

  private enqueue(op: (file: RecordingHandle) => Promise<void>): void {
    this.chain = this.chain
      .then(async () => {
        const file = await this.openFile();
        if (file) await op(file);
      })
      .catch(() => {
        this.failures++;
      });
  }

  private requestWrite(b: number): void {
    if (this.queued.has(b)) return;
    this.queued.add(b);
    this.enqueue(() => this.writeBlock(b));
  }

  /** Moves every block that fell `keepBlocks` behind the newest out of memory. */
  private spillBehind(): void {
    const newest = Math.floor(Math.max(this.cursorBytes.caller, this.cursorBytes.agent) / 2 / this.blockFrames);
    const below = newest - this.keepBlocks;
    if (this.spilledBelow >= below) return;
    for (; this.spilledBelow < below; this.spilledBelow++) this.spillBlock(this.spilledBelow);
    // Blocks the disk refused before are tried again with each new one.
    for (const b of this.unwritten.keys()) this.requestWrite(b);
  }

  private spillBlock(b: number): void {
    const block = this.blocks.get(b);
    if (!block) return;
    this.blocks.delete(b);
    // Held as unwritten until its write succeeds, so a late write and a failed disk both find it.
    this.unwritten.set(b, block);
    this.requestWrite(b);
  }

  /** Writes a copy of an unwritten block; it leaves memory only if nothing changed it meanwhile. */
  private async writeBlock(b: number): Promise<void> {
    this.queued.delete(b);
    const block = this.unwritten.get(b);
    const file = await this.openFile();
    if (!block || !file) return;
    const version = this.versions.get(b) ?? 0;
    const bytes = Buffer.from(block.buffer.slice(block.byteOffset, block.byteOffset + block.byteLength));
    try {
      await file.write(bytes, HEADER_BYTES + b * this.blockFrames * BYTES_PER_FRAME);
    } catch {
      this.failures++;
      return;
    }
    if ((this.versions.get(b) ?? 0) === version) {
      this.unwritten.delete(b);
      this.versions.delete(b);
    } else this.requestWrite(b);
  }

  private touch(b: number): void {
    this.versions.set(b, (this.versions.get(b) ?? 0) + 1);
    this.requestWrite(b);
  }

  /** Audio for a block already on disk: read it back, overlay the channel, write it again (in order). */
  private patch(b: number, channel: 0 | 1, frameInBlock: number, samples: Int16Array): void {
    this.enqueue(async (file) => {
      const held = this.unwritten.get(b);
      if (held) {
        interleave(held, channel, frameInBlock, samples);
        return this.touch(b);
      }
      const block = new Int16Array(this.blockFrames * 2);
      const position = HEADER_BYTES + b * this.blockFrames * BYTES_PER_FRAME;
      try {
        await file.read(Buffer.from(block.buffer), position);
      } catch {
        this.failures++;
      }
      interleave(block, channel, frameInBlock, samples);
      this.unwritten.set(b, block);
      this.requestWrite(b);
    });
  }

  private place(channel: 0 | 1, firstFrame: number, samples: Int16Array): void {
    for (let i = 0; i < samples.length; ) {
      const frame = firstFrame + i;
      const b = Math.floor(frame / this.blockFrames);
      const inBlock = Math.min(samples.length - i, this.blockFrames - (frame - b * this.blockFrames));
      const part = samples.subarray(i, i + inBlock);
      if (b >= this.spilledBelow) {
        let block = this.blocks.get(b);
        if (!block) {
          block = new Int16Array(this.blockFrames * 2);
          this.blocks.set(b, block);
        }
        interleave(block, channel, frame - b * this.blockFrames, part);
      } else {
        const held = this.unwritten.get(b);
        if (held) {
          interleave(held, channel, frame - b * this.blockFrames, part);
          this.touch(b);
        } else this.patch(b, channel, frame - b * this.blockFrames, part.slice());
      }
      i += inBlock;
    }
  }
}

function interleave(block: Int16Array, channel: 0 | 1, frameInBlock: number, samples: Int16Array): void {
  for (let k = 0, at = frameInBlock * 2 + channel; k < samples.length; k++, at += 2) block[at] = samples[k] as number;
}
