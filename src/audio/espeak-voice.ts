import { execFile } from 'node:child_process';
import { createResampler } from './resampler.ts';
import { toneSpeech, type SpeechSynth } from './speech-synth.ts';
import { parseWav } from './wav.ts';

/**
 * espeak-ng voices a caller may speak with: English accents crossed with espeak's voice variants
 * (`+m1`…`+f4` change pitch and formants). A persona gets one of them by seed.
 */
export const ESPEAK_CALLER_VOICES: readonly string[] = ['en-us+m3', 'en-us+f2', 'en-gb+m1', 'en-gb+f3', 'en-us+m7', 'en-us+f4', 'en-gb-scotland+m2', 'en-029+f1'];

/** Runs espeak-ng and returns its WAV bytes; injected in tests. */
export type EspeakRunner = (args: readonly string[]) => Promise<Buffer>;

export const runEspeakNg: EspeakRunner = (args) =>
  new Promise((resolve, reject) => {
    execFile('espeak-ng', [...args], { encoding: 'buffer', maxBuffer: 64 * 1024 * 1024 }, (err, stdout) => (err ? reject(err) : resolve(stdout)));
  });

/** The espeak-ng arguments for one line: WAV on stdout, a fixed rate of 160 words a minute, the voice. */
export function espeakArgs(text: string, voice: string): string[] {
  return ['--stdout', '-s', '160', '-v', voice, text];
}

/**
 * A caller's mouth on espeak-ng with a chosen voice, resampled to `rateHz`; when espeak-ng is
 * missing or fails, the deterministic tone speech of `speech-synth.ts` (engine `tones`). Results
 * are cached per text, so a repeated line is the same audio.
 */
export function espeakVoiceSynth(rateHz: number, voice: string, run: EspeakRunner = runEspeakNg): SpeechSynth & { readonly voice: string } {
  const cache = new Map<string, Promise<Buffer>>();
  let engine = 'espeak-ng';
  const speak = async (text: string): Promise<Buffer> => {
    try {
      const wav = parseWav(await run(espeakArgs(text, voice)));
      const resampler = createResampler(wav.rateHz, rateHz);
      try {
        return resampler.process(wav.data);
      } finally {
        resampler.destroy();
      }
    } catch {
      engine = 'tones';
      return toneSpeech(text, rateHz);
    }
  };
  return {
    voice,
    get engine() {
      return engine;
    },
    synthesize(text) {
      const cached = cache.get(text);
      if (cached) return cached;
      const made = speak(text);
      cache.set(text, made);
      return made;
    },
  };
}
