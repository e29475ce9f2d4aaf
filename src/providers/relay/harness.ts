import type { ProviderSettings } from '../../config.ts';
import { ConfigError, type Clock } from '../../core/index.ts';
import type { HarnessFactory } from '../model-session.ts';
import { TwilioRelaySession, type TwilioRelayOptions } from './twilio-session.ts';

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
