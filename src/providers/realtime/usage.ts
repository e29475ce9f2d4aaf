import type { Usage } from '../../snapshot/index.ts';
import type { ProviderUsage } from './server-events.ts';

/**
 * A provider usage object in the six price classes (wire.md §2.9). Input text and audio are
 * stored net of their cached share, so each class is priced once: cost = Σ class × price.
 * When the cached split by modality is missing, cached tokens count as cached text.
 */
export function usageFromProvider(raw: ProviderUsage): Usage {
  const inDetails = raw.input_token_details ?? {};
  const outDetails = raw.output_token_details ?? {};
  const cachedSplit = inDetails.cached_tokens_details ?? null;
  const cachedTotal = inDetails.cached_tokens ?? 0;
  const cachedAudio = cachedSplit?.audio_tokens ?? 0;
  const cachedText = cachedSplit ? (cachedSplit.text_tokens ?? 0) : cachedTotal;
  const inputText = inDetails.text_tokens ?? Math.max(0, (raw.input_tokens ?? 0) - (inDetails.audio_tokens ?? 0));
  const inputAudio = inDetails.audio_tokens ?? 0;
  const outputAudio = outDetails.audio_tokens ?? 0;
  const outputText = outDetails.text_tokens ?? Math.max(0, (raw.output_tokens ?? 0) - outputAudio);
  const input = raw.input_tokens ?? inputText + inputAudio;
  const output = raw.output_tokens ?? outputText + outputAudio;
  return {
    input_tokens: input,
    output_tokens: output,
    total_tokens: raw.total_tokens ?? input + output,
    input_text_tokens: Math.max(0, inputText - cachedText),
    input_audio_tokens: Math.max(0, inputAudio - cachedAudio),
    cached_text_tokens: cachedText,
    cached_audio_tokens: cachedAudio,
    output_text_tokens: outputText,
    output_audio_tokens: outputAudio,
  };
}
