import type { ProviderSettings } from '../../config.ts';
import { harnessOf, requiredSetting as required } from '../harness-kit.ts';
import type { HarnessFactory } from '../model-session.ts';
import { azureAuthHeaders } from './azure-auth.ts';
import type { RealtimeDialect } from './dialect.ts';
import { gaDialect } from './ga-dialect.ts';
import { qwenDialect } from './qwen-dialect.ts';
import { RealtimeSession } from './realtime-session.ts';
import { xaiDialect } from './xai-dialect.ts';

/** Every realtime variant (Qwen-Audio's too) is the same session over a different dialect. */
export function realtimeFactory(name: string, dialect: RealtimeDialect): HarnessFactory {
  return harnessOf(name, () => new RealtimeSession(dialect), (agent) => dialect.tools(agent));
}

/** The realtime harness names, each with the dialect its settings build. */
export const REALTIME_HARNESSES = ['openai/realtime', 'azure/realtime', 'xai/grok-voice', 'qwen/omni-realtime'] as const;
export type RealtimeHarnessName = (typeof REALTIME_HARNESSES)[number];

/** True for a harness that talks to a realtime provider (and so has a key and a model). */
export function isRealtimeHarness(name: string): name is RealtimeHarnessName {
  return (REALTIME_HARNESSES as readonly string[]).includes(name);
}

/** The dialect a realtime harness speaks with these settings; a missing setting throws a ConfigError. */
export function realtimeDialect(name: RealtimeHarnessName, settings: ProviderSettings): RealtimeDialect {
  return REALTIME_DIALECTS[name](settings);
}

/** A realtime harness by name: its dialect from the settings over the one realtime session. */
export function realtimeHarness(name: RealtimeHarnessName, settings: ProviderSettings): HarnessFactory {
  return realtimeFactory(name, realtimeDialect(name, settings));
}

/** The endpoint of a keyed realtime harness: its base URL and key required at boot (in that order), its model and voice. */
function keyedEndpoint(s: { readonly baseUrl: string | undefined; readonly apiKey: string | undefined; readonly model: string; readonly voice: string }, name: RealtimeHarnessName, baseUrlVariable: string, keyVariable: string) {
  return { baseUrl: required(s.baseUrl, baseUrlVariable, name), model: s.model, voice: s.voice, apiKey: required(s.apiKey, keyVariable, name) };
}

/** `openai/realtime`: OpenAI Realtime GA (wire.md §2). */
function openaiDialect(settings: ProviderSettings): RealtimeDialect {
  const { apiKey, ...endpoint } = keyedEndpoint(settings.openai, 'openai/realtime', 'MIVAS_OPENAI_BASE_URL', 'OPENAI_API_KEY');
  return gaDialect({ provider: 'openai', ...endpoint, transcriptionModel: settings.openai.transcriptionModel, turnDetection: settings.turnDetection, auth: { kind: 'bearer', key: apiKey } });
}

/**
 * `azure/realtime`: Azure OpenAI on the GA endpoint, the deployment as model, `api-key` or Entra ID
 * auth, and the transcription *deployment* as the transcription model (docs/providers.md).
 */
function azureDialect(settings: ProviderSettings): RealtimeDialect {
  const name = 'azure/realtime';
  const s = settings.azure;
  const baseUrl = required(s.baseUrl, 'MIVAS_AZURE_BASE_URL', name);
  return gaDialect({
      provider: 'azure',
      baseUrl,
      model: s.model,
      voice: s.voice,
      transcriptionModel: s.transcriptionDeployment ?? null,
      turnDetection: settings.turnDetection,
      auth: azureAuthHeaders(s.auth, name),
    });
}

/** `xai/grok-voice`: xAI Grok Voice Agent, billed per minute (wire.md §3.2). */
function xaiDialectOf(settings: ProviderSettings): RealtimeDialect {
  return xaiDialect({ ...keyedEndpoint(settings.xai, 'xai/grok-voice', 'MIVAS_XAI_BASE_URL', 'XAI_API_KEY'), transcriptionModel: settings.xai.transcriptionModel });
}

/** `qwen/omni-realtime`: Qwen omni realtime, beta session shape (wire.md §3.3). */
function qwenDialectOf(settings: ProviderSettings): RealtimeDialect {
  return qwenDialect({ ...keyedEndpoint(settings.qwen, 'qwen/omni-realtime', 'MIVAS_QWEN_BASE_URL', 'DASHSCOPE_API_KEY'), workspace: settings.qwen.workspace });
}

/** Each realtime harness name's dialect builder. */
const REALTIME_DIALECTS: Readonly<Record<RealtimeHarnessName, (settings: ProviderSettings) => RealtimeDialect>> = {
  'openai/realtime': openaiDialect,
  'azure/realtime': azureDialect,
  'xai/grok-voice': xaiDialectOf,
  'qwen/omni-realtime': qwenDialectOf,
};
