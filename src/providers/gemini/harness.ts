import type { ProviderSettings } from '../../config.ts';
import { harnessOf, requiredSetting } from '../harness-kit.ts';
import type { HarnessFactory } from '../model-session.ts';
import { GeminiLiveSession, type GeminiOptions } from './gemini-session.ts';
import { geminiTools } from './wire.ts';

/** The harness's options from settings; a missing key is a ConfigError (exit 3 at boot). */
export function geminiOptions(settings: ProviderSettings): GeminiOptions {
  const g = settings.gemini;
  return { apiKey: requiredSetting(g.apiKey, 'GEMINI_API_KEY', 'google/gemini-live'), baseUrl: g.baseUrl, model: g.model, voice: g.voice, silenceMs: g.silenceMs };
}

/** `google/gemini-live`: the Live API through Google's SDK, a new stream per specialist given the history as text (architecture.md §19). */
export function geminiLiveHarness(settings: ProviderSettings): HarnessFactory {
  const options = geminiOptions(settings);
  return harnessOf('google/gemini-live', () => new GeminiLiveSession(options), geminiTools);
}
