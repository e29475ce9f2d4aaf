import { describe, expect, it } from 'vitest';
import { configKeys, loadConfig } from '../../../src/config.ts';
import { FOREIGN_PLACEHOLDER_KEY, foreignEndpointSettings, REALTIME_HARNESSES, realtimeDialect } from '../../../src/providers/index.ts';

/** Every variable whose name says it holds a credential, each set to a value no other setting has. */
function secretEnv(extra: Record<string, string> = {}): Record<string, string> {
  const names = configKeys().filter((k) => /(_API_KEY|_AD_TOKEN|_TOKEN_COMMAND|_WORKSPACE)$/.test(k));
  return { ...Object.fromEntries(names.map((k) => [k, `secret-${k.toLowerCase()}`])), MIVAS_AZURE_BASE_URL: 'wss://configured.example/openai/v1', ...extra };
}

function settingsOf(env: Record<string, string>) {
  const parsed = loadConfig(env);
  if (!parsed.ok) throw new Error(parsed.problems.join('\n'));
  return parsed.config.providers;
}

describe('foreignEndpointSettings: a request\'s URL gets the request\'s credentials only', () => {
  for (const auth of ['api-key', 'entra'] as const) {
    it(`keeps no server credential anywhere in the settings (Azure ${auth})`, async () => {
      const env = secretEnv({ MIVAS_AZURE_AUTH: auth });
      const base = settingsOf(env);
      // The credentials the provider settings hold (the caller's and the policy's live elsewhere in the config).
      const secrets = Object.values(env).filter((v) => v.startsWith('secret-') && JSON.stringify(base).includes(v));
      const expected = ['openai_api_key', 'azure_openai_api_key', 'xai_api_key', 'dashscope_api_key', 'mivas_qwen_workspace', 'gemini_api_key', 'mivas_cascade_llm_api_key', ...(auth === 'entra' ? ['azure_openai_ad_token', 'mivas_azure_token_command'] : [])];
      expect(secrets).toEqual(expect.arrayContaining(expected.map((k) => `secret-${k}`)));
      for (const protocol of REALTIME_HARNESSES) {
        for (const apiKey of [undefined, 'trainer-key']) {
          const settings = foreignEndpointSettings(base, protocol, { url: 'ws://trainer.example/v1', apiKey, model: undefined, voice: undefined });
          expect(secrets.filter((s) => JSON.stringify(settings).includes(s)), protocol).toEqual([]);
          const dialect = realtimeDialect(protocol, settings);
          const headers = JSON.stringify(await dialect.authHeaders());
          expect(headers, protocol).toContain(apiKey ?? FOREIGN_PLACEHOLDER_KEY);
          expect(dialect.url).toBe(`ws://trainer.example/v1/realtime?model=${encodeURIComponent(dialect.model)}`);
        }
      }
    });
  }

  it('takes the request\'s model and voice, and keeps the server\'s when the request names none', () => {
    const base = settingsOf(secretEnv());
    const named = foreignEndpointSettings(base, 'xai/grok-voice', { url: 'ws://t/v1', apiKey: 'k', model: 'm-1', voice: 'v-1' });
    expect(named.xai).toMatchObject({ baseUrl: 'ws://t/v1', apiKey: 'k', model: 'm-1', voice: 'v-1' });
    const plain = foreignEndpointSettings(base, 'xai/grok-voice', { url: 'ws://t/v1', apiKey: undefined, model: undefined, voice: undefined });
    expect(plain.xai).toMatchObject({ model: base.xai.model, voice: base.xai.voice, apiKey: FOREIGN_PLACEHOLDER_KEY });
  });
});
