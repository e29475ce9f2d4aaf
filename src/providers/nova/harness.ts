import type { ProviderSettings } from '../../config.ts';
import type { Clock } from '../../core/index.ts';
import { harnessOf } from '../harness-kit.ts';
import type { HarnessFactory } from '../model-session.ts';
import { NovaSonicSession, novaTools } from './nova-session.ts';
import { bedrockTransport, type NovaTransport } from './transport.ts';

/**
 * `aws/nova-sonic`: Amazon Nova Sonic through Bedrock's bidirectional stream, a new stream per
 * specialist (architecture.md §19). AWS credentials are the SDK's own (environment, profile, role):
 * they are not checked at boot, so a missing one shows as the call's provider_error.
 */
export function novaSonicHarness(settings: ProviderSettings, clock: Clock, transport?: NovaTransport): HarnessFactory {
  const n = settings.nova;
  const open = transport ?? bedrockTransport({ region: n.region, endpoint: n.endpoint });
  return harnessOf('aws/nova-sonic', () => new NovaSonicSession({ model: n.model, voice: n.voice, endpointing: n.endpointing, transport: open, clock }), novaTools);
}
