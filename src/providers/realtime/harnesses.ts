import type { ProviderSettings, RealtimeProviderSettings } from '../../config.ts';
import { ConfigError } from '../../core/index.ts';
import type { HarnessFactory } from '../model-session.ts';
import type { RealtimeDialect } from './dialect.ts';
import { gaDialect } from './ga-dialect.ts';
import { qwenDialect } from './qwen-dialect.ts';
import { RealtimeSession } from './realtime-session.ts';
import { xaiDialect } from './xai-dialect.ts';

/** A setting the selected harness cannot run without; thrown at boot, not at the first call. */
function required(value: string | undefined, variable: string, harness: string): string {
  if (value === undefined || value.trim() === '') {
    throw new ConfigError('PROVIDER_SETTING_MISSING', `harness ${harness} needs ${variable}; set it in the environment (see .env.example and docs/providers.md)`);
  }
  return value;
}

/** Every realtime variant is the same session over a different dialect. */
function realtimeFactory(name: string, dialect: RealtimeDialect): HarnessFactory {
  return {
    name,
    refuse: () => null,
    create: () => new RealtimeSession(dialect),
    offeredTools: (agent) => dialect.tools(agent),
  };
}

/** The GA-protocol services differ only in their settings, variable names and auth header. */
interface GaService {
  readonly name: string;
  readonly provider: 'openai' | 'azure';
  readonly baseUrlVariable: string;
  readonly keyVariable: string;
  readonly auth: 'bearer' | 'api-key';
}

function gaHarness(settings: ProviderSettings, service: GaService): HarnessFactory {
  const { name, provider } = service;
  const s = settings[provider];
  return realtimeFactory(
    name,
    gaDialect({
      provider,
      baseUrl: required(s.baseUrl, service.baseUrlVariable, name),
      model: s.model,
      voice: s.voice,
      transcriptionModel: s.transcriptionModel,
      turnDetection: settings.turnDetection,
      auth: { kind: service.auth, key: required(s.apiKey, service.keyVariable, name) },
    }),
  );
}

/** `openai/realtime`: OpenAI Realtime GA (wire.md §2). */
export function openaiRealtimeHarness(settings: ProviderSettings): HarnessFactory {
  return gaHarness(settings, { name: 'openai/realtime', provider: 'openai', baseUrlVariable: 'MIVAS_OPENAI_BASE_URL', keyVariable: 'OPENAI_API_KEY', auth: 'bearer' });
}

/** `azure/realtime`: Azure OpenAI on the GA endpoint, `api-key` auth, the deployment as model (wire.md §3.1). */
export function azureRealtimeHarness(settings: ProviderSettings): HarnessFactory {
  return gaHarness(settings, { name: 'azure/realtime', provider: 'azure', baseUrlVariable: 'MIVAS_AZURE_BASE_URL', keyVariable: 'AZURE_OPENAI_API_KEY', auth: 'api-key' });
}

/** `xai/grok-voice`: xAI Grok Voice Agent, billed per minute (wire.md §3.2). */
export function xaiGrokVoiceHarness(settings: ProviderSettings): HarnessFactory {
  const name = 'xai/grok-voice';
  const s: RealtimeProviderSettings = settings.xai;
  return realtimeFactory(
    name,
    xaiDialect({ baseUrl: required(s.baseUrl, 'MIVAS_XAI_BASE_URL', name), model: s.model, voice: s.voice, apiKey: required(s.apiKey, 'XAI_API_KEY', name) }),
  );
}

/** `qwen/omni-realtime`: Qwen omni realtime, beta session shape (wire.md §3.3). */
export function qwenOmniRealtimeHarness(settings: ProviderSettings): HarnessFactory {
  const name = 'qwen/omni-realtime';
  const s = settings.qwen;
  return realtimeFactory(
    name,
    qwenDialect({
      baseUrl: required(s.baseUrl, 'MIVAS_QWEN_BASE_URL', name),
      model: s.model,
      voice: s.voice,
      apiKey: required(s.apiKey, 'DASHSCOPE_API_KEY', name),
      workspace: s.workspace,
    }),
  );
}
