import type { ProviderSettings } from '../../config.ts';
import { harnessOf, requiredSetting } from '../harness-kit.ts';
import type { HarnessFactory } from '../model-session.ts';
import { GptLiveSession, type GptLiveOptions } from './gpt-live-session.ts';
import { gptLiveTools } from './wire.ts';

/** The Live WebSocket path under the API base (openai@7.59.0 `resources/live/internal-base.js`, `buildURL`). */
export const GPT_LIVE_PATH = '/live/sessions';

/** Output audio that pauses this long ends the model's turn. */
const TURN_GAP_MS = 600;

/** Details of the GPT-Live wire no reference confirmed on 2026-12-01 (docs/providers.md, "GPT-Live"); `mivas preflight` prints them. */
export const GPT_LIVE_UNCONFIRMED = [
  'the delegated backend\'s function calls are read as nested Responses `response.output_item.done` events with a `function_call` item (the SDK types the nested event only as an object)',
  'the opening and handoff cues go as `session.instructions.append`; whether the model speaks on them without caller audio is not documented',
  'turns end when output audio pauses for 600 ms: GPT-Live sends no turn-end event',
] as const;

/** The harness's options from settings; a missing key is a ConfigError (exit 3 at boot). */
export function gptLiveOptions(settings: ProviderSettings): GptLiveOptions {
  const g = settings.gptLive;
  return { url: `${g.baseUrl.replace(/\/+$/, '')}${GPT_LIVE_PATH}`, apiKey: requiredSetting(g.apiKey, 'OPENAI_API_KEY', 'openai/gpt-live'), model: g.model, voice: g.voice, backendModel: g.backendModel, turnGapMs: TURN_GAP_MS };
}

/** `openai/gpt-live`: OpenAI's full-duplex Live API, a new session per specialist seeded with the history (architecture.md §19). */
export function gptLiveHarness(settings: ProviderSettings): HarnessFactory {
  const options = gptLiveOptions(settings);
  return harnessOf('openai/gpt-live', () => new GptLiveSession(options), gptLiveTools);
}
