import type { SpeechSynth } from '../audio/index.ts';
import type { ProviderSettings } from '../config.ts';
import { ConfigError, type Clock } from '../core/index.ts';
import type { HarnessFactory } from './model-session.ts';
import { noopHarness } from './noop.ts';
import { realtimeHarness } from './realtime/index.ts';
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
  if (!(HARNESS_NAMES as readonly string[]).includes(name)) throw new ConfigError('UNKNOWN_HARNESS', `unknown harness "${name}"; known: ${HARNESS_NAMES.join(', ')}`);
  return HARNESS_BUILDERS[name as HarnessName](deps);
}

type HarnessName = (typeof HARNESS_NAMES)[number];

/** Each harness name's factory, from what it needs. */
const HARNESS_BUILDERS: Readonly<Record<HarnessName, (deps: HarnessDeps) => HarnessFactory>> = {
  scripted: (d) => scriptedHarness(d.synth),
  noop: (d) => noopHarness(d.synth, d.clock, d.noopWaitMs),
  'openai/realtime': (d) => realtimeHarness('openai/realtime', d.providers),
  'azure/realtime': (d) => realtimeHarness('azure/realtime', d.providers),
  'xai/grok-voice': (d) => realtimeHarness('xai/grok-voice', d.providers),
  'qwen/omni-realtime': (d) => realtimeHarness('qwen/omni-realtime', d.providers),
  cascaded: (d) => cascadedHarness(d.providers, d.clock),
  'google/gemini-live': (d) => geminiLiveHarness(d.providers),
  'aws/nova-sonic': (d) => novaSonicHarness(d.providers, d.clock),
  'openai/gpt-live': (d) => gptLiveHarness(d.providers),
  'phonic/sts': (d) => phonicHarness(d.providers, d.clock),
  'qwen/audio-realtime': (d) => qwenAudioRealtimeHarness(d.providers),
  'relay/twilio-ms': (d) => twilioRelayHarness(d.providers, d.clock),
  'relay/elevenlabs': (d) => elevenLabsRelayHarness(d.providers, d.clock),
};
