import { createResampler, ESPEAK_CALLER_VOICES, espeakVoiceSynth, type SpeechSynth } from '../audio/index.ts';
import { DEFAULT_AUDIO_CAP_BYTES, type Clock } from '../core/index.ts';
import type { CallerLog } from './caller-log.ts';
import { postWithRetry, type EndpointSettings, type RetryPolicy } from './endpoint.ts';
import { sha256Hex } from './llm-mind.ts';

/** The caller's mouth: a speech synth at 16 kHz plus the voice it speaks with. */
export interface Mouth extends SpeechSynth {
  readonly voice: string | null;
}

/** One voice of a list for a persona and seed: the same pair always gets the same voice. */
export function voiceFor(persona: string, seed: number, voices: readonly string[]): string {
  if (!voices.length) throw new Error('no caller voices configured');
  const index = Number.parseInt(sha256Hex(`voice:${persona}:${seed}`).slice(0, 8), 16) % voices.length;
  return voices[index] as string;
}

/** espeak-ng (the local default) with a voice chosen per persona and seed. */
export function espeakMouth(persona: string, seed: number, voices: readonly string[] = ESPEAK_CALLER_VOICES): Mouth {
  return espeakVoiceSynth(16_000, voiceFor(persona, seed, voices));
}

export interface SpeechEndpointOptions {
  readonly endpoint: EndpointSettings;
  readonly model: string;
  readonly voice: string;
  /** The PCM rate the endpoint returns (OpenAI and Kokoro-FastAPI: 24000). */
  readonly rateHz: number;
  readonly clock: Clock;
  readonly log: CallerLog;
  readonly retry?: RetryPolicy;
}

/**
 * A mouth on an OpenAI-compatible `/v1/audio/speech` endpoint (OpenAI, Kokoro-FastAPI,
 * speaches): `{model, voice, input, response_format:"pcm"}` answers raw PCM16 mono at the
 * endpoint's rate (24 kHz for OpenAI), streamed in chunks; each chunk is resampled to 16 kHz as it
 * arrives, with one resampler per line so chunk edges leave no artifacts.
 */
export function speechEndpointMouth(options: SpeechEndpointOptions): Mouth {
  const cache = new Map<string, Promise<Buffer>>();
  const speak = async (text: string): Promise<Buffer> => {
    const request = { model: options.model, voice: options.voice, input: text, response_format: 'pcm' };
    const endpoint = { ...options.endpoint, maxBodyBytes: options.endpoint.maxBodyBytes ?? DEFAULT_AUDIO_CAP_BYTES };
    const res = await postWithRetry(endpoint, '/audio/speech', JSON.stringify(request), { 'Content-Type': 'application/json' }, options.clock, options.retry);
    const resampler = createResampler(options.rateHz, 16_000);
    const out: Buffer[] = [];
    let received = 0;
    let carry: Buffer | null = null;
    try {
      if (!res.body) throw new Error('speech reply without a body');
      for await (const chunk of res.body as AsyncIterable<Uint8Array>) {
        let bytes = Buffer.from(chunk);
        received += bytes.length;
        if (carry) bytes = Buffer.concat([carry, bytes]);
        const even = bytes.length & ~1;
        carry = even < bytes.length ? bytes.subarray(even) : null;
        out.push(resampler.process(bytes.subarray(0, even)));
      }
    } finally {
      resampler.destroy();
    }
    const pcm = Buffer.concat(out);
    options.log.exchange({
      kind: 'speech',
      turn_seq: null,
      model: options.model,
      seed: null,
      prompt_hash: null,
      request_hash: sha256Hex(JSON.stringify(request)),
      cached: false,
      request,
      response: { bytes: received, rate_hz: options.rateHz, audio_ms: Math.round((received / 2 / options.rateHz) * 1000), sha256: sha256Hex(pcm) },
      system_fingerprint: null,
      usage: { characters: text.length },
      error: null,
    });
    return pcm;
  };
  return {
    engine: 'speech-endpoint',
    voice: options.voice,
    synthesize(text) {
      const cached = cache.get(text);
      if (cached) return cached;
      const made = speak(text);
      cache.set(text, made);
      made.catch(() => cache.delete(text));
      return made;
    },
  };
}
