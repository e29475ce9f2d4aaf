import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { diskRecordingFiles, StereoRecorder, type RecordingFiles, type RecordingHandle } from '../../../src/audio/stereo-recorder.ts';
import { parseWav, wavHeader } from '../../../src/audio/wav.ts';

/** `ms` of a constant PCM16 value. */
function tone(ms: number, value: number): Buffer {
  const buf = Buffer.alloc(ms * 32);
  for (let i = 0; i < buf.length; i += 2) buf.writeInt16LE(value, i);
  return buf;
}

/** The samples of one channel of a rendered recording. */
function channel(wav: Buffer, ch: 0 | 1): number[] {
  const { data } = parseWav(wav);
  const out: number[] = [];
  for (let f = 0; f < data.length / 4; f++) out.push(data.readInt16LE(f * 4 + ch * 2));
  return out;
}

/** [start ms, end ms) runs of a value in a channel. */
function runsOf(samples: number[], value: number): [number, number][] {
  const runs: [number, number][] = [];
  let start = -1;
  samples.forEach((s, i) => {
    if (s === value && start < 0) start = i;
    if (s !== value && start >= 0) {
      runs.push([start / 16, i / 16]);
      start = -1;
    }
  });
  if (start >= 0) runs.push([start / 16, samples.length / 16]);
  return runs;
}

describe('StereoRecorder', () => {
  it('renders a stereo 16 kHz PCM16 WAV: caller left, agent right, on the media clock', () => {
    const rec = new StereoRecorder();
    rec.write('caller', 0, tone(100, 1000));
    rec.write('agent', 500, tone(200, -2000));
    const wav = rec.toWav();
    const info = parseWav(wav);
    expect([info.channels, info.rateHz, info.bitsPerSample]).toEqual([2, 16_000, 16]);
    expect(info.data.length).toBe(700 * 16 * 4);
    expect(runsOf(channel(wav, 0), 1000)).toEqual([[0, 100]]);
    expect(runsOf(channel(wav, 1), -2000)).toEqual([[500, 700]]);
    expect(runsOf(channel(wav, 0), -2000)).toEqual([]);
    expect(runsOf(channel(wav, 1), 1000)).toEqual([]);
  });

  it('appends audio that arrives with jitter back to back, and starts late audio where it arrived', () => {
    const rec = new StereoRecorder();
    rec.write('caller', 0, tone(20, 1));
    rec.write('caller', 45, tone(20, 2)); // 25 ms late: jitter, not silence
    rec.write('caller', 10, tone(20, 3)); // early: still after what is there
    rec.write('caller', 300, tone(20, 4)); // 240 ms after the cursor: real silence
    const left = channel(rec.toWav(), 0);
    expect(runsOf(left, 1)).toEqual([[0, 20]]);
    expect(runsOf(left, 2)).toEqual([[20, 40]]);
    expect(runsOf(left, 3)).toEqual([[40, 60]]);
    expect(runsOf(left, 0)).toEqual([[60, 300]]);
    expect(runsOf(left, 4)).toEqual([[300, 320]]);
    expect(rec.lengthMs()).toBe(320);
  });

  it('pads to the call duration and clamps negative offsets to zero', () => {
    const rec = new StereoRecorder();
    rec.write('agent', -50, tone(10, 7));
    const wav = rec.toWav(1_000);
    expect(parseWav(wav).data.length).toBe(1_000 * 16 * 4);
    expect(runsOf(channel(wav, 1), 7)).toEqual([[0, 10]]);
  });

  it('renders an empty recording as a valid WAV of the call duration', () => {
    const info = parseWav(new StereoRecorder().toWav(250));
    expect(info.channels).toBe(2);
    expect(info.data.length).toBe(250 * 16 * 4);
    expect(info.data.every((b) => b === 0)).toBe(true);
  });
});

describe('parseWav', () => {
  it('walks chunks before data and reads a streamed header (size 0xFFFFFFFF) to the end', () => {
    const pcm = tone(10, 5);
    const list = Buffer.concat([Buffer.from('LIST'), Buffer.from([3, 0, 0, 0]), Buffer.from('abc'), Buffer.alloc(1)]);
    const header = wavHeader(pcm.length, 22_050, 1);
    const fmt = header.subarray(12, 36);
    const dataHeader = Buffer.from('data\xff\xff\xff\xff', 'latin1');
    const file = Buffer.concat([header.subarray(0, 12), list, fmt, dataHeader, pcm]);
    const info = parseWav(file);
    expect([info.channels, info.rateHz, info.bitsPerSample]).toEqual([1, 22_050, 16]);
    expect(info.data.equals(pcm)).toBe(true);
  });

  it('rejects what is not a PCM WAV', () => {
    expect(() => parseWav(Buffer.from('not a wav file at all'))).toThrow();
    expect(() => parseWav(Buffer.concat([Buffer.from('RIFF'), Buffer.alloc(4), Buffer.from('WAVE')]))).toThrow(/no data/);
  });
});

/** Recording files held in memory: writes complete at once (a real implementation of the seam, for counting what stays in memory). */
class MemoryFiles implements RecordingFiles {
  private readonly files = new Map<string, Buffer>();
  bytes(path: string): Buffer {
    return this.files.get(path) ?? Buffer.alloc(0);
  }
  async open(path: string): Promise<RecordingHandle> {
    this.files.set(path, Buffer.alloc(0));
    const grow = (length: number): Buffer => {
      const current = this.bytes(path);
      if (current.length >= length) return current;
      const grown = Buffer.alloc(length);
      current.copy(grown);
      this.files.set(path, grown);
      return grown;
    };
    return {
      write: async (data, position) => void data.copy(grow(position + data.length), position),
      read: async (data, position) => this.bytes(path).copy(data, 0, position),
      truncate: async (length) => void this.files.set(path, Buffer.from(grow(length).subarray(0, length))),
      close: async () => undefined,
    };
  }
  async remove(path: string): Promise<void> {
    this.files.delete(path);
  }
}

describe('StereoRecorder spilling to a file', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });
  const spillPath = (): string => {
    const dir = mkdtempSync(join(tmpdir(), 'mivas-rec-'));
    dirs.push(dir);
    return join(dir, 'call.wav');
  };
  /** A call's worth of writes: 20 ms caller frames and agent bursts, with a gap and late jitter. */
  const script = async (rec: StereoRecorder, afterEach: () => Promise<void> = async () => undefined): Promise<void> => {
    for (let f = 0; f < 400; f++) {
      rec.write('caller', f * 20 + (f % 3), tone(20, 100 + (f % 50)));
      if (f % 30 === 0 && f / 30 < 6) rec.write('agent', 1_000 + (f / 30) * 1_200, tone(700, -300 - f));
      await afterEach();
    }
    rec.write('caller', 9_000, tone(500, 42));
  };

  it('writes the same WAV as the in-memory recorder to disk, header and all', async () => {
    const memory = new StereoRecorder();
    await script(memory);
    const path = spillPath();
    const spilled = new StereoRecorder({ path, blockFrames: 8_000, keepBlocks: 2 });
    await script(spilled);
    const finished = await spilled.finish(12_000);
    expect(finished.kind).toBe('file');
    const onDisk = readFileSync(path);
    expect(onDisk.equals(memory.toWav(12_000))).toBe(true);
    expect(finished.kind === 'file' && finished.bytes).toBe(onDisk.length);
    expect(spilled.fileFailures()).toBe(0);
  });

  it('holds the window in memory, not the call', async () => {
    const files = new MemoryFiles();
    const spilled = new StereoRecorder({ path: 'call.wav', files, blockFrames: 8_000, keepBlocks: 2 });
    let peak = 0;
    // Between frames the event loop turns, as it does between a call's 20 ms frames, so writes complete.
    await script(spilled, async () => {
      peak = Math.max(peak, spilled.blocksInMemory());
      await new Promise((resolve) => setImmediate(resolve));
    });
    await spilled.finish(12_000);
    const memory = new StereoRecorder();
    await script(memory);
    expect(files.bytes('call.wav').equals(memory.toWav(12_000))).toBe(true);
    // 9.5 s in 0.5 s blocks (19): the newest and the two kept, the blocks a 700 ms agent burst
    // ahead of the caller opens, and one being patched behind it.
    expect(peak).toBeLessThanOrEqual(6);
  });

  it('patches audio that lands in a block already written', async () => {
    const path = spillPath();
    const rec = new StereoRecorder({ path, blockFrames: 1_600, keepBlocks: 1 });
    const memory = new StereoRecorder();
    for (const r of [rec, memory]) {
      r.write('caller', 0, tone(2_000, 11));
      r.write('agent', 100, tone(300, -22)); // far behind the caller's cursor: its blocks are spilled
    }
    const finished = await rec.finish();
    expect(finished.kind).toBe('file');
    const wav = readFileSync(path);
    expect(wav.equals(memory.toWav())).toBe(true);
    expect(runsOf(channel(wav, 1), -22)).toEqual([[100, 400]]);
  });

  it('keeps blocks the disk refuses in memory and returns the whole WAV as bytes', async () => {
    const path = spillPath();
    let full = true;
    const files: RecordingFiles = {
      async open(p) {
        const real = await diskRecordingFiles.open(p);
        return { ...real, write: async (data, position) => (full && position > 44 ? Promise.reject(Object.assign(new Error('ENOSPC'), { code: 'ENOSPC' })) : real.write(data, position)) };
      },
      remove: diskRecordingFiles.remove,
    };
    const rec = new StereoRecorder({ path, files, blockFrames: 1_600, keepBlocks: 1 });
    const memory = new StereoRecorder();
    for (const r of [rec, memory]) r.write('caller', 0, tone(600, 5));
    full = false; // space returns: the refused blocks are written with the next spill
    for (const r of [rec, memory]) r.write('caller', 600, tone(600, 6));
    full = true; // and the disk fills again before the end
    for (const r of [rec, memory]) r.write('agent', 1_000, tone(400, 7));
    const finished = await rec.finish(1_500);
    expect(rec.fileFailures()).toBeGreaterThan(0);
    expect(finished.kind).toBe('buffer');
    if (finished.kind === 'buffer') expect(finished.wav.equals(memory.toWav(1_500))).toBe(true);
    expect(existsSync(path)).toBe(false);
  });

  it('ignores writes after finish and returns the same result twice', async () => {
    const rec = new StereoRecorder({ path: spillPath() });
    rec.write('caller', 0, tone(40, 3));
    const first = await rec.finish(100);
    rec.write('caller', 40, tone(40, 4));
    expect(await rec.finish(100)).toBe(first);
  });
});
