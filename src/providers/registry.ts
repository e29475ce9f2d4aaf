import type { SpeechSynth } from '../audio/index.ts';
import type { ProviderSettings } from '../config.ts';
import { ConfigError, type Clock } from '../core/index.ts';
import type { HarnessFactory } from './model-session.ts';
import { noopHarness } from './noop.ts';
import { azureRealtimeHarness, openaiRealtimeHarness, qwenOmniRealtimeHarness, xaiGrokVoiceHarness } from './realtime/index.ts';
import { scriptedHarness } from './scripted.ts';
import { cascadedHarness } from './cascaded/index.ts';
import { geminiLiveHarness } from './gemini/index.ts';
import { novaSonicHarness } from './nova/index.ts';
import { GPT_LIVE_UNCONFIRMED, gptLiveHarness } from './gpt-live/index.ts';
import { PHONIC_UNCONFIRMED, phonicHarness } from './phonic/index.ts';
import { QWEN_AUDIO_UNCONFIRMED, qwenAudioRealtimeHarness } from './qwen-audio/index.ts';
import { elevenLabsRelayHarness, twilioRelayHarness } from './relay/index.ts';

/** What harness factories may need. */
export interface HarnessDeps {
  readonly synth: SpeechSynth;
  readonly clock: Clock;
  readonly noopWaitMs: number;
  /** Keys, models, voices and endpoints of the provider harnesses (config.providers). */
  readonly providers: ProviderSettings;
}

/** Names of the harnesses this build knows. */
export const HARNESS_NAMES = ['scripted', 'noop', 'openai/realtime', 'azure/realtime', 'xai/grok-voice', 'qwen/omni-realtime', 'cascaded', 'google/gemini-live', 'aws/nova-sonic', 'openai/gpt-live', 'phonic/sts', 'qwen/audio-realtime', 'relay/twilio-ms', 'relay/elevenlabs'] as const;

/** Per harness, the details of its provider's wire that no reference confirmed (`mivas preflight` prints them; docs/providers.md). */
export const UNCONFIRMED_DETAILS: Readonly<Record<string, readonly string[]>> = {
  'openai/gpt-live': GPT_LIVE_UNCONFIRMED,
  'phonic/sts': PHONIC_UNCONFIRMED,
  'qwen/audio-realtime': QWEN_AUDIO_UNCONFIRMED,
};

/**
 * Maps a harness name to its factory (the only place a name meets a class). A provider harness
 * whose key or endpoint is missing throws a ConfigError naming the variable, so the process
 * fails at boot (exit 3), not at the first call.
 */
export function createHarnessFactory(name: string, deps: HarnessDeps): HarnessFactory {
  switch (name) {
    case 'scripted':
      return scriptedHarness(deps.synth);
    case 'noop':
      return noopHarness(deps.synth, deps.clock, deps.noopWaitMs);
    case 'openai/realtime':
      return openaiRealtimeHarness(deps.providers);
    case 'azure/realtime':
      return azureRealtimeHarness(deps.providers);
    case 'xai/grok-voice':
      return xaiGrokVoiceHarness(deps.providers);
    case 'qwen/omni-realtime':
      return qwenOmniRealtimeHarness(deps.providers);
    case 'cascaded':
      return cascadedHarness(deps.providers, deps.clock);
    case 'google/gemini-live':
      return geminiLiveHarness(deps.providers);
    case 'aws/nova-sonic':
      return novaSonicHarness(deps.providers, deps.clock);
    case 'openai/gpt-live':
      return gptLiveHarness(deps.providers);
    case 'phonic/sts':
      return phonicHarness(deps.providers, deps.clock);
    case 'qwen/audio-realtime':
      return qwenAudioRealtimeHarness(deps.providers);
    case 'relay/twilio-ms':
      return twilioRelayHarness(deps.providers, deps.clock);
    case 'relay/elevenlabs':
      return elevenLabsRelayHarness(deps.providers, deps.clock);
    default:
      throw new ConfigError('UNKNOWN_HARNESS', `unknown harness "${name}"; known: ${HARNESS_NAMES.join(', ')}`);
  }
}
