import type { ProviderSettings } from '../../config.ts';
import { requiredSetting } from '../harness-kit.ts';
import type { HarnessFactory } from '../model-session.ts';
import { realtimeFactory, type RealtimeDialect } from '../realtime/index.ts';
import { qwenAudioDialect } from './dialect.ts';

/** Details of the Qwen-Audio wire no reference confirmed on 2026-12-01 (docs/providers.md); `mivas preflight` prints them. */
export const QWEN_AUDIO_UNCONFIRMED = [
  'the event names the server uses (GA `response.output_audio.*` or beta `response.audio.*`): the realtime adapter reads both',
  'that a bare `response.create` after a seeded user text item makes the model greet (as on Qwen-Omni)',
  'the `X-DashScope-WorkSpace` header (sent only when MIVAS_QWEN_WORKSPACE is set): the Qwen-Audio pages use workspace hosts instead',
  'the fields of `response.done` usage, which the cost is priced from (read as on every realtime dialect)',
] as const;

/** The dialect from settings; a missing key is a ConfigError (exit 3 at boot). */
export function qwenAudioDialectOf(settings: ProviderSettings): RealtimeDialect {
  const s = settings.qwenAudio;
  return qwenAudioDialect({ baseUrl: s.baseUrl, model: s.model, voice: s.voice, apiKey: requiredSetting(s.apiKey, 'DASHSCOPE_API_KEY', 'qwen/audio-realtime'), workspace: s.workspace });
}

/** `qwen/audio-realtime`: Qwen-Audio realtime on the realtime adapter, one socket with instruction swaps (architecture.md §19). */
export function qwenAudioRealtimeHarness(settings: ProviderSettings): HarnessFactory {
  return realtimeFactory('qwen/audio-realtime', qwenAudioDialectOf(settings));
}
