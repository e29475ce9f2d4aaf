import { z } from 'zod';
import { bytesToMs, wavHeader } from '../audio/index.ts';
import type { Clock } from '../core/index.ts';
import { requestKey, throughCache, type CallerCache } from './caller-cache.ts';
import type { CallerLog } from './caller-log.ts';
import { postWithRetry, type EndpointSettings, type RetryPolicy } from './endpoint.ts';
import { sha256Hex } from './llm-mind.ts';

/** The caller's ears: the words of one agent utterance (PCM16 mono 16 kHz, as CHIRP carries it). */
export interface Ears {
  readonly model: string;
  hear(pcm: Buffer, turnSeq: number | null): Promise<string>;
}

/**
 * `POST <base>/audio/transcriptions` answers `{text}`, optionally with `usage` as tokens
 * (`{type:"tokens", input_tokens, output_tokens, total_tokens}`) or as audio duration
 * (`{type:"duration", seconds}`); extra fields (whisper's `language`, `duration`) are ignored.
 */
const transcriptionSchema = z.looseObject({
  text: z.string(),
  usage: z
    .looseObject({ type: z.string().optional(), seconds: z.number().optional(), input_tokens: z.number().optional(), output_tokens: z.number().optional(), total_tokens: z.number().optional() })
    .nullable()
    .optional(),
});
type Transcription = z.infer<typeof transcriptionSchema>;

export interface TranscriptionEarsOptions {
  readonly endpoint: EndpointSettings;
  readonly model: string;
  /** ISO-639-1 hint; the packs are English. */
  readonly language?: string;
  readonly clock: Clock;
  readonly cache: CallerCache | null;
  readonly log: CallerLog;
  readonly retry?: RetryPolicy;
}

/**
 * Ears on an OpenAI-compatible transcription endpoint (OpenAI, speaches, a whisper server):
 * multipart/form-data with the utterance as a 16 kHz WAV `file`, `model`, `language`,
 * `response_format=json` and `temperature=0`. Each utterance is cached by its audio's hash, so a
 * repeated run that hears identical agent audio hears identical words.
 */
export function transcriptionEars(options: TranscriptionEarsOptions): Ears {
  const language = options.language ?? 'en';
  return {
    model: options.model,
    async hear(pcm, turnSeq) {
      const audioMs = bytesToMs(pcm.length);
      if (pcm.length === 0) return '';
      const wav = Buffer.concat([wavHeader(pcm.length, 16_000, 1), pcm]);
      const audioSha = sha256Hex(wav);
      const request = { model: options.model, language, response_format: 'json', temperature: 0, file: { name: 'agent.wav', type: 'audio/wav', bytes: wav.length, sha256: audioSha, audio_ms: Math.round(audioMs) } };
      const key = requestKey('transcription', { model: options.model, language, audio: audioSha });
      const fetchText = async (): Promise<Transcription> => {
        const form = new FormData();
        form.append('file', new Blob([wav], { type: 'audio/wav' }), 'agent.wav');
        form.append('model', options.model);
        form.append('language', language);
        form.append('response_format', 'json');
        form.append('temperature', '0');
        const res = await postWithRetry(options.endpoint, '/audio/transcriptions', form, {}, options.clock, options.retry);
        const parsed = transcriptionSchema.safeParse(await res.json());
        if (!parsed.success) throw new Error('transcription reply without text');
        return parsed.data;
      };
      try {
        const { value, cached } = await throughCache(options.cache, key, request, fetchText, (stored) => {
          const parsed = transcriptionSchema.safeParse(stored);
          return parsed.success ? parsed.data : undefined;
        });
        const seconds = value.usage?.seconds ?? audioMs / 1000;
        const usage: Record<string, number> = { seconds };
        if (value.usage?.input_tokens !== undefined) usage.input_tokens = value.usage.input_tokens;
        if (value.usage?.output_tokens !== undefined) usage.output_tokens = value.usage.output_tokens;
        options.log.exchange({ kind: 'transcription', turn_seq: turnSeq, model: options.model, seed: null, prompt_hash: null, request_hash: key, cached, request, response: value, system_fingerprint: null, usage, error: null });
        return value.text.trim();
      } catch (err) {
        options.log.exchange({ kind: 'transcription', turn_seq: turnSeq, model: options.model, seed: null, prompt_hash: null, request_hash: key, cached: false, request, response: null, system_fingerprint: null, usage: null, error: err instanceof Error ? err.message : String(err) });
        throw err;
      }
    },
  };
}
