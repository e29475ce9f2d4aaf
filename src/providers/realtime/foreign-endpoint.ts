import type { ProviderSettings } from '../../config.ts';
import type { RealtimeHarnessName } from './harnesses.ts';

/** A realtime endpoint named by a request (a speech rollout's policy), not by this server's configuration. */
export interface ForeignEndpoint {
  /** The full base URL to dial (without `/realtime`). */
  readonly url: string;
  /** The request's own key; absent, a placeholder goes (the dialects always send an auth header). */
  readonly apiKey: string | undefined;
  readonly model: string | undefined;
  readonly voice: string | undefined;
}

/** What goes in the auth header when the request brought no key: a trainer's own server may take none. */
export const FOREIGN_PLACEHOLDER_KEY = 'mivas-rollout';

/**
 * The provider settings with every credential of this server removed: provider keys, the Azure
 * key and Entra token or token command, the Qwen workspace id (also Qwen-Audio's), Gemini's,
 * GPT-Live's, Phonic's and the cascade's keys.
 * What is left (models, voices, URLs, VAD) is configuration, not a secret.
 */
function withoutServerCredentials(base: ProviderSettings): ProviderSettings {
  const { cascaded } = base;
  return {
    ...base,
    openai: { ...base.openai, apiKey: undefined },
    azure: { ...base.azure, apiKey: undefined, auth: { kind: 'api-key', apiKey: undefined } },
    xai: { ...base.xai, apiKey: undefined },
    qwen: { ...base.qwen, apiKey: undefined, workspace: undefined },
    gemini: { ...base.gemini, apiKey: undefined },
    gptLive: { ...base.gptLive, apiKey: undefined },
    phonic: { ...base.phonic, apiKey: undefined },
    qwenAudio: { ...base.qwenAudio, apiKey: undefined, workspace: undefined },
    cascaded: { ...cascaded, stt: { ...cascaded.stt, apiKey: undefined }, llm: { ...cascaded.llm, apiKey: undefined }, tts: { ...cascaded.tts, apiKey: undefined } },
  };
}

/**
 * Settings for dialing an endpoint a request named. A URL from a request gets only that
 * request's credentials: this server's keys, tokens and workspace ids go only to the endpoints
 * its own configuration names (docs/rl.md, "Speech rollouts"). The protocol's entry takes the
 * request's URL, key, model and voice; every other credential is gone.
 */
export function foreignEndpointSettings(base: ProviderSettings, protocol: RealtimeHarnessName, endpoint: ForeignEndpoint): ProviderSettings {
  const clean = withoutServerCredentials(base);
  const apiKey = endpoint.apiKey ?? FOREIGN_PLACEHOLDER_KEY;
  const patch = <T extends { readonly model: string; readonly voice: string }>(current: T) => ({ ...current, baseUrl: endpoint.url, apiKey, model: endpoint.model ?? current.model, voice: endpoint.voice ?? current.voice });
  switch (protocol) {
    case 'openai/realtime':
      return { ...clean, openai: patch(clean.openai) };
    case 'azure/realtime':
      return { ...clean, azure: { ...patch(clean.azure), auth: { kind: 'api-key', apiKey } } };
    case 'xai/grok-voice':
      return { ...clean, xai: patch(clean.xai) };
    case 'qwen/omni-realtime':
      return { ...clean, qwen: patch(clean.qwen) };
  }
}
