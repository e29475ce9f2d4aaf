import type { ProviderSettings } from '../../config.ts';
import { ConfigError, type Clock } from '../../core/index.ts';
import type { HarnessFactory } from '../model-session.ts';
import { TwilioRelaySession, type TwilioRelayOptions } from './twilio-session.ts';
import { loadDeskMap, type DeskMap } from './desk-map.ts';
import { ElevenLabsRelaySession } from './elevenlabs-session.ts';
import { ELEVENLABS_PATH } from './elevenlabs-wire.ts';
import type { Pack } from '../../packs/index.ts';

/** The relay's options from settings; a missing bot URL is a ConfigError (exit 3 at boot). */
export function twilioRelayOptions(settings: ProviderSettings): TwilioRelayOptions {
  const r = settings.relay;
  if (!r.twilioUrl) throw new ConfigError('PROVIDER_SETTING_MISSING', 'harness relay/twilio-ms needs MIVAS_RELAY_TWILIO_URL (the team\'s Media Streams bot, ws:// or wss://); see .env.example and docs/platforms.md');
  return { url: r.twilioUrl, authToken: r.twilioAuthToken, accountSid: r.twilioAccountSid };
}

/** `relay/twilio-ms`: a team's phone bot dialed over Twilio Media Streams (docs/platforms.md). */
export function twilioRelayHarness(settings: ProviderSettings, clock: Clock): HarnessFactory {
  const options = twilioRelayOptions(settings);
  return {
    name: 'relay/twilio-ms',
    refuse: () => null,
    create: (call) => new TwilioRelaySession(options, call, clock),
  };
}

/** `relay/elevenlabs`: a team's ElevenLabs agent over its conversation WebSocket (docs/platforms.md); a missing agent id is a ConfigError. */
export function elevenLabsRelayHarness(settings: ProviderSettings, clock: Clock): HarnessFactory {
  const r = settings.relay;
  if (!r.elevenLabsAgentId) throw new ConfigError('PROVIDER_SETTING_MISSING', 'harness relay/elevenlabs needs MIVAS_RELAY_ELEVENLABS_AGENT_ID (the team\'s public agent id); see .env.example and docs/platforms.md');
  const url = `${r.elevenLabsBaseUrl}${ELEVENLABS_PATH}?agent_id=${encodeURIComponent(r.elevenLabsAgentId)}`;
  const desks = new Map<string, DeskMap>();
  const desksOf = (pack: Pack): DeskMap => desks.get(pack.id) ?? desks.set(pack.id, loadDeskMap(r.deskMapFile, pack)).get(pack.id) ?? new Map();
  return {
    name: 'relay/elevenlabs',
    refuse: () => null,
    create: (call) => new ElevenLabsRelaySession({ url, desks: desksOf(call.pack) }, call, clock),
  };
}
