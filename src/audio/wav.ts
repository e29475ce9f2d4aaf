/** A 44-byte RIFF/WAVE header for PCM16 little-endian audio. */
export function wavHeader(dataBytes: number, rateHz: number, channels: number): Buffer {
  const header = Buffer.alloc(44);
  header.write('RIFF', 0, 'ascii');
  header.writeUInt32LE(36 + dataBytes, 4);
  header.write('WAVE', 8, 'ascii');
  header.write('fmt ', 12, 'ascii');
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20);
  header.writeUInt16LE(channels, 22);
  header.writeUInt32LE(rateHz, 24);
  header.writeUInt32LE(rateHz * channels * 2, 28);
  header.writeUInt16LE(channels * 2, 32);
  header.writeUInt16LE(16, 34);
  header.write('data', 36, 'ascii');
  header.writeUInt32LE(dataBytes, 40);
  return header;
}

/** The format fields and PCM data of a PCM16 WAV file. */
export interface WavInfo {
  readonly rateHz: number;
  readonly channels: number;
  readonly bitsPerSample: number;
  readonly data: Buffer;
}

/** Reads a PCM WAV (walking its chunks); throws on anything else. */
export function parseWav(file: Buffer): WavInfo {
  if (file.toString('ascii', 0, 4) !== 'RIFF' || file.toString('ascii', 8, 12) !== 'WAVE') throw new Error('not a RIFF/WAVE file');
  let offset = 12;
  let format: Omit<WavInfo, 'data'> | undefined;
  while (offset + 8 <= file.length) {
    const id = file.toString('ascii', offset, offset + 4);
    // espeak-ng writes 0xFFFFFFFF as the data size when streaming to stdout: read to the end.
    const declared = file.readUInt32LE(offset + 4);
    const size = Math.min(declared, file.length - offset - 8);
    if (id === 'fmt ') {
      format = { channels: file.readUInt16LE(offset + 10), rateHz: file.readUInt32LE(offset + 12), bitsPerSample: file.readUInt16LE(offset + 22) };
    } else if (id === 'data') {
      if (!format) throw new Error('WAV data before fmt');
      return { ...format, data: file.subarray(offset + 8, offset + 8 + (size & ~1)) };
    }
    offset += 8 + size + (size & 1);
  }
  throw new Error('WAV has no data chunk');
}
