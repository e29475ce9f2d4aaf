import type { ProviderSettings } from '../../config.ts';
import type { Clock } from '../../core/index.ts';
import { harnessOf, requiredSetting } from '../harness-kit.ts';
import type { HarnessFactory } from '../model-session.ts';
import { PhonicSession, type PhonicOptions } from './phonic-session.ts';
import { phonicTools } from './wire.ts';

/** The speech-to-speech WebSocket path (phonic-node `src/api/resources/conversations/client/Client.ts`, `connect`). */
export const PHONIC_PATH = '/v1/sts/ws';

/** Details of the Phonic wire no reference confirmed on 2026-12-01 (docs/providers.md, "Phonic"); `mivas preflight` prints them. */
export const PHONIC_UNCONFIRMED = [
  'readiness: the harness waits for `ready_to_start_conversation` or `conversation_created` after `config`; their order is not documented',
  'whether `reset` keeps the conversation history: the next agent\'s system prompt carries it either way',
  'inline tools require `strict: true`; whether Phonic rejects a pack schema that strict mode would not accept is not documented',
] as const;

/** The harness's options from settings; a missing key is a ConfigError (exit 3 at boot). */
export function phonicOptions(settings: ProviderSettings): PhonicOptions {
  const p = settings.phonic;
  return { url: `${p.baseUrl}${PHONIC_PATH}`, apiKey: requiredSetting(p.apiKey, 'PHONIC_API_KEY', 'phonic/sts'), model: p.model, voice: p.voice };
}

/** `phonic/sts`: Phonic's speech-to-speech WebSocket, one conversation reset per specialist (architecture.md §19). */
export function phonicHarness(settings: ProviderSettings, clock: Clock): HarnessFactory {
  const options = phonicOptions(settings);
  return harnessOf('phonic/sts', () => new PhonicSession(options, clock), phonicTools);
}
