import { resolve } from 'node:path';
import { lineConditionFor } from '../audio/index.ts';
import { directoryCache, type CallerCache, type CallerKind, type CallerSettings, type EndpointSettings, type MouthSettings } from '../caller/index.ts';
import type { CallerConfig, CallerEndpointConfig, Config } from '../config.ts';

/** What a caller's user chooses over the configuration (`mivas run`'s flags); each falls back to MIVAS_CALLER_*. */
export interface CallerChoices {
  readonly kind: CallerKind;
  readonly model?: string;
  readonly seedBase?: number;
  readonly audio?: 'task' | 'perfect';
  /** A cache of the caller's own choosing; undefined: MIVAS_CALLER_CACHE (or none). */
  readonly cache?: CallerCache;
}

function endpointOf(e: CallerEndpointConfig): EndpointSettings {
  return { baseUrl: e.baseUrl, apiKey: e.apiKey, timeoutMs: e.timeoutMs, ...(e.maxBodyBytes === undefined ? {} : { maxBodyBytes: e.maxBodyBytes }) };
}

function mouthOf(tts: CallerConfig['tts']): MouthSettings {
  if (tts.kind === 'espeak') return { kind: 'espeak' };
  return { kind: 'endpoint', endpoint: endpointOf(tts), model: tts.model, voices: tts.voices, rateHz: tts.rateHz };
}

/**
 * The caller settings of a process (docs/caller.md): the llm caller's chat endpoint, its ears and
 * mouth, seeds, caps, cache, audio condition and prices from MIVAS_CALLER_*, with the given
 * choices over them. `mivas run` and `mivas call` build their callers here, and so do speech
 * rollouts (docs/rl.md), so a rollout's caller is the same digital human as a run's.
 */
export function callerSettingsOf(config: Config, choices: CallerChoices, cwd: string = process.cwd()): CallerSettings {
  const c = config.caller;
  const audio = choices.audio ?? c.audio;
  return {
    kind: choices.kind,
    chat: { endpoint: endpointOf(c.chat), model: choices.model ?? c.chat.model },
    ears: choices.kind === 'scripted' || choices.kind === 'replay' ? null : { endpoint: endpointOf(c.stt), model: c.stt.model },
    mouth: mouthOf(c.tts),
    seedBase: choices.seedBase ?? c.seedBase,
    maxTurns: c.maxTurns,
    limits: { maxDurationMs: c.maxCallMs, agentSilenceMs: c.agentSilenceMs, hangupGraceMs: c.hangupGraceMs },
    cache: choices.cache ?? (c.cacheDir ? directoryCache(resolve(cwd, c.cacheDir)) : null),
    ...(audio === 'task' ? { conditionFor: (task, seed) => lineConditionFor(task.metadata.audio_condition, task.metadata.category, seed) } : {}),
    prices: c.prices,
  };
}

/** Why the llm caller cannot run on this configuration (a vendor endpoint with no key), or null. */
export function llmCallerProblem(config: Config): string | null {
  const chat = config.caller.chat;
  if (chat.apiKey || !/api\.openai\.com/.test(chat.baseUrl)) return null;
  return 'the llm caller needs MIVAS_CALLER_API_KEY for api.openai.com (or point MIVAS_CALLER_BASE_URL at a keyless local server)';
}
