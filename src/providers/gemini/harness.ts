import type { ProviderSettings } from '../../config.ts';
import { ConfigError } from '../../core/index.ts';
import type { HarnessFactory } from '../model-session.ts';
import { GeminiLiveSession, type GeminiOptions } from './gemini-session.ts';
import { geminiTools } from './wire.ts';

/** The harness's options from settings; a missing key is a ConfigError (exit 3 at boot). */
export function geminiOptions(settings: ProviderSettings): GeminiOptions {
  const g = settings.gemini;
  if (!g.apiKey?.trim()) throw new ConfigError('PROVIDER_SETTING_MISSING', 'harness google/gemini-live needs GEMINI_API_KEY; set it in the environment (see .env.example and docs/providers.md)');
  return { apiKey: g.apiKey, baseUrl: g.baseUrl, model: g.model, voice: g.voice, silenceMs: g.silenceMs };
}

/** `google/gemini-live`: the Live API through Google's SDK, a new stream per specialist given the history as text (architecture.md §19). */
export function geminiLiveHarness(settings: ProviderSettings): HarnessFactory {
  const options = geminiOptions(settings);
  return {
    name: 'google/gemini-live',
    refuse: () => null,
    create: () => new GeminiLiveSession(options),
    offeredTools: (agent) => geminiTools(agent),
  };
}
