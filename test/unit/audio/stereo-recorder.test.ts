import { describe, expect, it } from 'vitest';
import { StereoRecorder } from '../../../src/audio/stereo-recorder.ts';
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
