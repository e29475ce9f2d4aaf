import { describe, expect, it } from 'vitest';
import { azureAuthHeaders, TOKEN_REUSE_MS } from '../../../src/providers/index.ts';
import { ConfigError } from '../../../src/core/index.ts';

describe('Azure auth (api-key or Microsoft Entra ID bearer)', () => {
  it('sends the resource key as the api-key header', async () => {
    expect(await azureAuthHeaders({ kind: 'api-key', apiKey: 'k1' }, 'azure/realtime')()).toEqual({ 'api-key': 'k1' });
  });

  it('sends a fixed Entra token as a bearer token', async () => {
    expect(await azureAuthHeaders({ kind: 'entra', token: 'eyJ.fixed', tokenCommand: undefined }, 'azure/realtime')()).toEqual({ Authorization: 'Bearer eyJ.fixed' });
  });

  it('runs the token command, reuses its token for five minutes, then runs it again', async () => {
    let now = 0;
    const command = 'n=$(cat "$COUNTER" 2>/dev/null || echo 0); n=$((n+1)); echo $n > "$COUNTER"; echo "tok-$n"';
    process.env.COUNTER = `/tmp/mivas-azure-token-${process.pid}`;
    const headers = azureAuthHeaders({ kind: 'entra', token: 'ignored', tokenCommand: command }, 'azure/realtime', () => now);
    expect(await headers()).toEqual({ Authorization: 'Bearer tok-1' });
    now += TOKEN_REUSE_MS - 1;
    expect(await headers()).toEqual({ Authorization: 'Bearer tok-1' });
    now += 1;
    expect(await headers()).toEqual({ Authorization: 'Bearer tok-2' });
  });

  it('reports a command that prints nothing, and refuses entra without a token source at boot', async () => {
    await expect(azureAuthHeaders({ kind: 'entra', token: undefined, tokenCommand: 'true' }, 'azure/realtime')()).rejects.toThrow(/printed no token/);
    expect(() => azureAuthHeaders({ kind: 'entra', token: undefined, tokenCommand: undefined }, 'azure/realtime')).toThrow(ConfigError);
    expect(() => azureAuthHeaders({ kind: 'entra', token: undefined, tokenCommand: undefined }, 'azure/realtime')).toThrow(/AZURE_OPENAI_AD_TOKEN or MIVAS_AZURE_TOKEN_COMMAND/);
    expect(() => azureAuthHeaders({ kind: 'api-key', apiKey: undefined }, 'azure/realtime')).toThrow(/AZURE_OPENAI_API_KEY/);
  });
});
