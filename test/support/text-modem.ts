import type { SpeechSynth } from '../../src/audio/index.ts';

/**
 * "Speech" that a stand-in can read back: text sent as tones, one 25 ms tone per 4-bit nibble of
 * its UTF-8 bytes, framed by start and end tones. It survives what real speech goes through in a
 * call (the server's 16↔24 kHz resampling, 20 ms framing, pacing), so a transcription stand-in
 * can decode the agent's words and a realtime stand-in the caller's, and the tests can check
 * what each side actually said, not just that audio moved. All tones lie in the telephone band
 * (300–3,400 Hz) with room to spare, so the modem also survives an 8 kHz mu-law leg (the Twilio
 * Media Streams relay): its framing tones sit below the nibbles, far from the band edge where an
 * 8 kHz resampler's low-pass cuts.
 */

const SYMBOL_S = 0.025;
const AMPLITUDE = 9_000;
const RAMP_S = 0.003;
const START_HZ = 400;
const END_HZ = 560;
/** Nibble k is a tone at 720 + 160·k Hz (720–3,120 Hz). */
const nibbleHz = (k: number): number => 720 + 160 * k;
const ALL_HZ = [...Array.from({ length: 16 }, (_, k) => nibbleHz(k)), START_HZ, END_HZ];

function symbolSamples(rateHz: number): number {
  return Math.round(rateHz * SYMBOL_S);
}

/** Encodes text as modem PCM16 at `rateHz`. */
export function encodeModem(text: string, rateHz: number): Buffer {
  const n = symbolSamples(rateHz);
  const freqs = [START_HZ, START_HZ];
  for (const byte of Buffer.from(text, 'utf8')) freqs.push(nibbleHz(byte >> 4), nibbleHz(byte & 15));
  freqs.push(END_HZ, END_HZ);
  const out = Buffer.alloc(freqs.length * n * 2);
  const ramp = Math.max(1, Math.round(rateHz * RAMP_S));
  freqs.forEach((hz, s) => {
    for (let i = 0; i < n; i++) {
      const envelope = Math.min(1, i / ramp, (n - 1 - i) / ramp);
      out.writeInt16LE(Math.round(AMPLITUDE * envelope * Math.sin((2 * Math.PI * hz * i) / rateHz)), (s * n + i) * 2);
    }
  });
  return out;
}

function goertzel(samples: Int16Array, from: number, to: number, hz: number, rateHz: number): number {
  const w = (2 * Math.PI * hz) / rateHz;
  const coeff = 2 * Math.cos(w);
  let s1 = 0;
  let s2 = 0;
  for (let i = from; i < to; i++) {
    const s0 = (samples[i] ?? 0) + coeff * s1 - s2;
    s2 = s1;
    s1 = s0;
  }
  return s1 * s1 + s2 * s2 - coeff * s1 * s2;
}

function strongest(samples: Int16Array, from: number, to: number, rateHz: number): number {
  let best = ALL_HZ[0] as number;
  let bestPower = -1;
  for (const hz of ALL_HZ) {
    const p = goertzel(samples, from, to, hz, rateHz);
    if (p > bestPower) {
      bestPower = p;
      best = hz;
    }
  }
  return best;
}

/** Every complete message (end tone heard) in modem PCM16 at `rateHz`, in order; silence and other audio between them are skipped. */
export function decodeModemAll(pcm: Buffer, rateHz: number): string[] {
  const samples = new Int16Array(pcm.length >> 1);
  for (let i = 0; i < samples.length; i++) samples[i] = pcm.readInt16LE(i * 2);
  const n = symbolSamples(rateHz);
  const messages: string[] = [];
  let cursor = 0;
  while (cursor < samples.length) {
    let onset = -1;
    for (let i = cursor; i < samples.length; i++) {
      if (Math.abs(samples[i] ?? 0) > 2_000) {
        onset = Math.max(0, i - Math.round(rateHz * 0.001));
        break;
      }
    }
    if (onset < 0 || onset + 3 * n > samples.length) break;
    const symbolAt = (s: number): number => strongest(samples, onset + s * n + Math.round(n * 0.2), Math.min(samples.length, onset + s * n + Math.round(n * 0.8)), rateHz);
    if (symbolAt(0) !== START_HZ || symbolAt(1) !== START_HZ) {
      cursor = onset + n;
      continue;
    }
    const bytes: number[] = [];
    let s = 2;
    let complete = false;
    for (; onset + (s + 1) * n <= samples.length; s += 2) {
      const hi = symbolAt(s);
      if (hi === END_HZ) {
        complete = true;
        break;
      }
      const lo = symbolAt(s + 1);
      bytes.push((ALL_HZ.indexOf(hi) << 4) | ALL_HZ.indexOf(lo));
    }
    if (!complete) break;
    messages.push(Buffer.from(bytes).toString('utf8'));
    cursor = onset + (s + 2) * n;
  }
  return messages;
}

/** The first message, or '' when the audio holds none. */
export function decodeModem(pcm: Buffer, rateHz: number): string {
  return decodeModemAll(pcm, rateHz)[0] ?? '';
}

/** A SpeechSynth that speaks modem at `rateHz` (the server's agent voice, or a caller's mouth in tests). */
export function modemSynth(rateHz = 16_000): SpeechSynth {
  return { engine: 'modem', synthesize: (text) => Promise.resolve(encodeModem(text, rateHz)) };
}

/**
 * Modem speech one sentence at a time: each sentence its own message, back to back in one
 * utterance, so a transcriber of the utterance so far reads every sentence already finished (the
 * partial transcripts a duplex caller overhears, docs/caller.md).
 */
export function sentenceModemSynth(rateHz = 16_000): SpeechSynth {
  return { engine: 'modem', synthesize: (text) => Promise.resolve(Buffer.concat(text.split(/(?<=[.?!])\s+/).map((sentence) => encodeModem(sentence, rateHz)))) };
}
