import { execFile } from 'node:child_process';
import { createResampler } from './resampler.ts';
import { parseWav } from './wav.ts';

/** Turns text into mono PCM16 at a given rate. */
export interface SpeechSynth {
  /** "espeak-ng" or "tones" */
  readonly engine: string;
  synthesize(text: string): Promise<Buffer>;
}

function runEspeak(text: string): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    execFile('espeak-ng', ['--stdout', '-s', '165', text], { encoding: 'buffer', maxBuffer: 64 * 1024 * 1024 }, (err, stdout) => {
      if (err) reject(err);
      else resolve(stdout);
    });
  });
}

/** Whether espeak-ng answers on this machine. */
export function espeakAvailable(): Promise<boolean> {
  return runEspeak('ok').then(
    () => true,
    () => false,
  );
}

/**
 * Deterministic stand-in speech when espeak-ng is absent: a tone per word at a level well above
 * hold noise, with short pauses, so both VAD and the recording see speech of a plausible length.
 */
export function toneSpeech(text: string, rateHz: number): Buffer {
  const words = text.split(/\s+/).filter(Boolean);
  const chunks: Buffer[] = [];
  words.forEach((word, w) => {
    const toneSamples = Math.round((rateHz * (120 + 45 * Math.min(word.length, 10))) / 1000);
    const pauseSamples = Math.round(rateHz * 0.06);
    const freq = 180 + ((word.charCodeAt(0) * 7 + w * 13) % 140);
    const buf = Buffer.alloc((toneSamples + pauseSamples) * 2);
    for (let i = 0; i < toneSamples; i++) {
      const envelope = Math.min(1, i / 160, (toneSamples - i) / 160);
      buf.writeInt16LE(Math.round(9000 * envelope * Math.sin((2 * Math.PI * freq * i) / rateHz)), i * 2);
    }
    chunks.push(buf);
  });
  return Buffer.concat(chunks);
}

/** A synth that prefers espeak-ng and falls back to tones; results are cached per text. */
export async function createSpeechSynth(rateHz: number, options: { preferTones?: boolean } = {}): Promise<SpeechSynth> {
  const useEspeak = !options.preferTones && (await espeakAvailable());
  const cache = new Map<string, Promise<Buffer>>();
  const espeak = async (text: string): Promise<Buffer> => {
    const wav = parseWav(await runEspeak(text));
    const resampler = createResampler(wav.rateHz, rateHz);
    try {
      return resampler.process(wav.data);
    } finally {
      resampler.destroy();
    }
  };
  return {
    engine: useEspeak ? 'espeak-ng' : 'tones',
    synthesize(text) {
      const cached = cache.get(text);
      if (cached) return cached;
      const made = useEspeak ? espeak(text).catch(() => toneSpeech(text, rateHz)) : Promise.resolve(toneSpeech(text, rateHz));
      cache.set(text, made);
      return made;
    },
  };
}
