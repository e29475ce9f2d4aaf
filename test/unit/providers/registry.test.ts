import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createSpeechSynth } from '../../../src/audio/index.ts';
import { configKeys, loadConfig, type Config } from '../../../src/config.ts';
import { ConfigError, ManualClock } from '../../../src/core/index.ts';
import { createHarnessFactory, gaDialect, HARNESS_NAMES, type AgentSetup } from '../../../src/providers/index.ts';

const PROVIDER_KEYS = [
  'OPENAI_API_KEY',
  'MIVAS_OPENAI_MODEL',
  'MIVAS_OPENAI_VOICE',
  'MIVAS_OPENAI_BASE_URL',
  'MIVAS_OPENAI_TRANSCRIPTION_MODEL',
  'MIVAS_TURN_DETECTION',
  'AZURE_OPENAI_API_KEY',
  'MIVAS_AZURE_BASE_URL',
  'MIVAS_AZURE_DEPLOYMENT',
  'MIVAS_AZURE_VOICE',
  'MIVAS_AZURE_TRANSCRIPTION_DEPLOYMENT',
  'MIVAS_AZURE_AUTH',
  'AZURE_OPENAI_AD_TOKEN',
  'MIVAS_AZURE_TOKEN_COMMAND',
  'XAI_API_KEY',
  'MIVAS_XAI_MODEL',
  'MIVAS_XAI_VOICE',
  'MIVAS_XAI_BASE_URL',
  'MIVAS_XAI_TRANSCRIPTION_MODEL',
  'DASHSCOPE_API_KEY',
  'MIVAS_QWEN_MODEL',
  'MIVAS_QWEN_VOICE',
  'MIVAS_QWEN_BASE_URL',
  'MIVAS_QWEN_WORKSPACE',
];

function config(env: Record<string, string>): Config {
  const parsed = loadConfig({ MIVAS_LOG_LEVEL: 'silent', ...env });
  if (!parsed.ok) throw new Error(parsed.problems.join('\n'));
  return parsed.config;
}

async function factory(harness: string, env: Record<string, string>) {
  const synth = await createSpeechSynth(16_000, { preferTones: true });
  return createHarnessFactory(harness, { synth, clock: new ManualClock(), noopWaitMs: 1_000, providers: config(env).providers });
}

describe('provider configuration', () => {
  it('reads every provider setting through the schema and lists it in .env.example with its default', () => {
    const example = readFileSync('.env.example', 'utf8');
    for (const key of PROVIDER_KEYS) {
      expect(configKeys()).toContain(key);
      expect(example).toMatch(new RegExp(`^${key}=`, 'm'));
    }
    expect(example).toMatch(/^MIVAS_OPENAI_MODEL=gpt-realtime-2\.1$/m);
    expect(example).toMatch(/^MIVAS_QWEN_MODEL=qwen3\.5-omni-plus-realtime$/m);
    const docs = readFileSync('docs/providers.md', 'utf8');
    for (const key of PROVIDER_KEYS) expect(docs, key).toMatch(new RegExp(`^\\| \`${key}\` \\|`, 'm'));
    expect(example).toMatch(/^MIVAS_OPENAI_VOICE=ash$/m);
  });

  it('has the documented defaults', () => {
    const { providers } = config({});
    expect(providers.openai).toEqual({ apiKey: undefined, model: 'gpt-realtime-2.1', voice: 'ash', baseUrl: 'wss://api.openai.com/v1', transcriptionModel: 'gpt-4o-mini-transcribe' });
    expect(providers.turnDetection).toBe('semantic_vad');
    expect(providers.azure.baseUrl).toBeUndefined();
    expect(providers.azure).toMatchObject({ transcriptionDeployment: undefined, auth: { kind: 'api-key', apiKey: undefined } });
    expect(providers.xai).toMatchObject({ model: 'grok-voice-think-fast-2.0', voice: 'eve', baseUrl: 'wss://api.x.ai/v1', transcriptionModel: 'grok-transcribe' });
    expect(providers.qwen).toMatchObject({ model: 'qwen3.5-omni-plus-realtime', voice: 'Tina', baseUrl: 'wss://dashscope-intl.aliyuncs.com/api-ws/v1' });
  });

  it('builds the Azure auth the settings choose, and refuses entra without a token source', async () => {
    const base = { MIVAS_AZURE_BASE_URL: 'wss://r.openai.azure.com/openai/v1' };
    expect(config({ ...base, MIVAS_AZURE_AUTH: 'entra', AZURE_OPENAI_AD_TOKEN: 't' }).providers.azure.auth).toEqual({ kind: 'entra', token: 't', tokenCommand: undefined });
    await expect(factory('azure/realtime', { ...base, MIVAS_AZURE_AUTH: 'entra' })).rejects.toThrow(/AZURE_OPENAI_AD_TOKEN or MIVAS_AZURE_TOKEN_COMMAND/);
    expect((await factory('azure/realtime', { ...base, MIVAS_AZURE_AUTH: 'entra', AZURE_OPENAI_AD_TOKEN: 't' })).name).toBe('azure/realtime');
    expect(loadConfig({ MIVAS_AZURE_AUTH: 'oauth' }).ok).toBe(false);
  });

  it('refuses a base URL that is not ws:// or wss://, and a bad turn detection', () => {
    const bad = loadConfig({ MIVAS_OPENAI_BASE_URL: 'https://api.openai.com/v1', MIVAS_TURN_DETECTION: 'push_to_talk' });
    expect(bad.ok).toBe(false);
    if (!bad.ok) expect(bad.problems.join('\n')).toMatch(/MIVAS_OPENAI_BASE_URL[\s\S]*MIVAS_TURN_DETECTION|MIVAS_TURN_DETECTION[\s\S]*MIVAS_OPENAI_BASE_URL/);
  });
});

describe('createHarnessFactory', () => {
  it.each([
    ['openai/realtime', {}, 'OPENAI_API_KEY'],
    ['azure/realtime', { AZURE_OPENAI_API_KEY: 'k' }, 'MIVAS_AZURE_BASE_URL'],
    ['azure/realtime', { MIVAS_AZURE_BASE_URL: 'wss://r.openai.azure.com/openai/v1' }, 'AZURE_OPENAI_API_KEY'],
    ['xai/grok-voice', {}, 'XAI_API_KEY'],
    ['qwen/omni-realtime', {}, 'DASHSCOPE_API_KEY'],
    ['cascaded', {}, 'MIVAS_CASCADE_STT_BASE_URL'],
    ['google/gemini-live', {}, 'GEMINI_API_KEY'],
    ['relay/twilio-ms', {}, 'MIVAS_RELAY_TWILIO_URL'],
    ['relay/elevenlabs', {}, 'MIVAS_RELAY_ELEVENLABS_AGENT_ID'],
    ['cascaded', { MIVAS_CASCADE_STT_BASE_URL: 'http://s/v1', MIVAS_CASCADE_TTS_BASE_URL: 'http://t/v1', MIVAS_CASCADE_LLM_BASE_URL: 'http://l/v1' }, 'MIVAS_CASCADE_LLM_MODEL'],
  ])('%s without %s fails with a ConfigError naming the variable', async (harness, env, variable) => {
    const attempt = factory(harness, env);
    await expect(attempt).rejects.toBeInstanceOf(ConfigError);
    await expect(attempt).rejects.toThrow(variable);
  });

  it('builds every known harness when its settings are present', async () => {
    const env = {
      OPENAI_API_KEY: 'a',
      AZURE_OPENAI_API_KEY: 'b',
      MIVAS_AZURE_BASE_URL: 'wss://r/openai/v1',
      XAI_API_KEY: 'c',
      DASHSCOPE_API_KEY: 'd',
      MIVAS_CASCADE_STT_BASE_URL: 'http://s/v1',
      MIVAS_CASCADE_LLM_BASE_URL: 'http://l/v1',
      MIVAS_CASCADE_LLM_MODEL: 'm',
      MIVAS_CASCADE_TTS_BASE_URL: 'http://t/v1',
      GEMINI_API_KEY: 'g',
      PHONIC_API_KEY: 'p',
      MIVAS_RELAY_TWILIO_URL: 'wss://bot.example/media-stream',
      MIVAS_RELAY_ELEVENLABS_AGENT_ID: 'agent_test',
    };
    for (const name of HARNESS_NAMES) expect((await factory(name, env)).name).toBe(name);
    await expect(factory('gemini/live', env)).rejects.toThrow(/unknown harness/);
  });

  it('keeps the keyless harnesses keyless', async () => {
    expect((await factory('scripted', {})).offeredTools).toBeUndefined();
    expect((await factory('noop', {})).name).toBe('noop');
  });
});

describe('GA dialect', () => {
  const agent: AgentSetup = { name: 'a', instructions: 'x', tools: [{ name: 't', description: 'd', parameters: { type: 'object', properties: { flag: { type: 'boolean' } }, required: ['flag'], additionalProperties: false } }] };
  const options = { provider: 'openai', baseUrl: 'wss://api.openai.com/v1/', model: 'gpt-realtime-2.1', voice: 'marin', transcriptionModel: 'tm', auth: { kind: 'bearer', key: 'k' } } as const;

  it('configures server_vad with interrupt_response when asked', () => {
    const update = gaDialect({ ...options, turnDetection: 'server_vad' }).sessionUpdate(agent);
    expect(update).toMatchObject({
      session: { audio: { input: { turn_detection: { type: 'server_vad', threshold: 0.5, prefix_padding_ms: 300, silence_duration_ms: 500, create_response: true, interrupt_response: true } } } },
    });
  });

  it('passes tool parameters through unchanged (a boolean stays a boolean, wire.md §2.3)', () => {
    const dialect = gaDialect({ ...options, turnDetection: 'semantic_vad' });
    expect(dialect.tools(agent)).toEqual([{ type: 'function', name: 't', description: 'd', parameters: agent.tools[0]?.parameters }]);
    expect(dialect.url).toBe('wss://api.openai.com/v1/realtime?model=gpt-realtime-2.1');
    expect(dialect.agentUpdate(agent)).toEqual({ type: 'session.update', session: { type: 'realtime', instructions: 'x', tools: dialect.tools(agent) } });
  });
});
