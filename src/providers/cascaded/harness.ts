import type { ProviderSettings } from '../../config.ts';
import type { Clock } from '../../core/index.ts';
import { harnessOf, requiredSetting } from '../harness-kit.ts';
import type { HarnessFactory } from '../model-session.ts';
import { CascadedSession, type CascadedTargets } from './cascaded-session.ts';
import { chatTools } from './endpoints.ts';

function required(value: string | undefined, variable: string): string {
  return requiredSetting(value, variable, 'cascaded');
}

/** The three endpoints of the cascade from settings; a missing base URL or chat model throws a ConfigError (exit 3 at boot). */
export function cascadedTargets(settings: ProviderSettings): CascadedTargets {
  const c = settings.cascaded;
  const json = { timeoutMs: c.timeoutMs, maxBodyBytes: c.maxBodyBytes };
  const audio = { timeoutMs: c.timeoutMs, maxBodyBytes: c.maxAudioBytes };
  return {
    stt: { baseUrl: required(c.stt.baseUrl, 'MIVAS_CASCADE_STT_BASE_URL'), model: required(c.stt.model, 'MIVAS_CASCADE_STT_MODEL'), apiKey: c.stt.apiKey, stream: c.stt.stream, bounds: json },
    llm: { baseUrl: required(c.llm.baseUrl, 'MIVAS_CASCADE_LLM_BASE_URL'), model: required(c.llm.model, 'MIVAS_CASCADE_LLM_MODEL'), apiKey: c.llm.apiKey, bounds: json },
    tts: { baseUrl: required(c.tts.baseUrl, 'MIVAS_CASCADE_TTS_BASE_URL'), model: required(c.tts.model, 'MIVAS_CASCADE_TTS_MODEL'), apiKey: c.tts.apiKey, voice: c.tts.voice, rateHz: c.tts.rateHz, bounds: audio },
  };
}

/** `cascaded`: STT → LLM → TTS on OpenAI-compatible endpoints, the graph hosted natively (architecture.md §19). */
export function cascadedHarness(settings: ProviderSettings, clock: Clock): HarnessFactory {
  const targets = cascadedTargets(settings);
  return harnessOf('cascaded', () => new CascadedSession(targets, settings.cascaded, { clock }), (agent) => chatTools(agent.tools));
}
