import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSpeechSynth, type SpeechSynth } from '../../src/audio/index.ts';
import { SPEECH_PROTOCOLS, type SpeechProtocol } from '../../src/episodes/index.ts';
import { RealtimeStandIn, type StandInConnection } from '../support/realtime-server.ts';
import { request } from '../support/rl-clients.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

/**
 * Issue 26: a speech rollout dials a URL the request names, so it must carry the request's
 * credentials only. The server below holds a secret for every provider (and for its own routes);
 * the listener records everything a rollout sends it: the upgrade's path and query, every upgrade
 * header, and every event on the socket up to the first session.update.
 */
const RL_TOKEN = 'secret-rl-token-7f1d';
const SERVER_SECRETS = {
  OPENAI_API_KEY: 'secret-openai-key-1a2b',
  AZURE_OPENAI_API_KEY: 'secret-azure-key-3c4d',
  XAI_API_KEY: 'secret-xai-key-5e6f',
  DASHSCOPE_API_KEY: 'secret-dashscope-key-7a8b',
  MIVAS_QWEN_WORKSPACE: 'secret-qwen-workspace-9c0d',
  GEMINI_API_KEY: 'secret-gemini-key-1e2f',
  MIVAS_CALLER_API_KEY: 'secret-caller-key-3a4b',
  MIVAS_CALLER_STT_API_KEY: 'secret-caller-stt-5c6d',
  MIVAS_CALLER_TTS_API_KEY: 'secret-caller-tts-7e8f',
  MIVAS_POLICY_API_KEY: 'secret-policy-key-9a0b',
  MIVAS_CASCADE_STT_API_KEY: 'secret-cascade-stt-1c2d',
  MIVAS_CASCADE_LLM_API_KEY: 'secret-cascade-llm-3e4f',
  MIVAS_CASCADE_TTS_API_KEY: 'secret-cascade-tts-5a6b',
  CHIRP_PASS: 'secret-chirp-pass-7c8d',
  MIVAS_RL_TOKEN: RL_TOKEN,
  MIVAS_TOOLS_TOKEN: 'secret-tools-token-9e0f',
} as const;
const ENTRA_TOKEN = 'secret-entra-token-2b3c';
const ENTRA_COMMAND_TOKEN = 'secret-entra-command-token-4d5e';
const EVERY_SECRET = [...Object.values(SERVER_SECRETS), ENTRA_TOKEN, ENTRA_COMMAND_TOKEN];

const BASE_ENV = { MIVAS_PACK: 'control-industry', MIVAS_RL: '1', MIVAS_FAST: '1', CHIRP_USER: 'mivas', MIVAS_HOST: '127.0.0.1', MIVAS_AZURE_BASE_URL: 'wss://configured-azure.example/openai/v1' };

let synth: SpeechSynth;
let listener: RealtimeStandIn;
const servers: TestServer[] = [];

async function server(env: Record<string, string>): Promise<TestServer> {
  const started = await startTestServer({ ...BASE_ENV, ...SERVER_SECRETS, ...env }, { synth });
  servers.push(started);
  return started;
}

/** Everything one rollout sent the listener, as one text to search. */
function received(conn: StandInConnection): string {
  return [conn.url, JSON.stringify(conn.headers), ...conn.log.filter((e) => e.dir === 'in').map((e) => JSON.stringify(e.event))].join('\n');
}

/** Runs one rollout against the listener up to its first session.update, then drops it; returns what the listener got. */
async function rolloutSends(target: TestServer, protocol: SpeechProtocol, apiKey?: string): Promise<{ text: string; conn: StandInConnection }> {
  const auth = { authorization: `Bearer ${RL_TOKEN}` };
  const policy = { url: listener.baseUrl('/v1'), protocol, model: 'trainer-model', ...(apiKey ? { api_key: apiKey } : {}) };
  const started = await request(`${target.httpUrl}/rl/rollouts`, { task_id: 'S-E1', policy, wait: false }, auth);
  expect(started.status, JSON.stringify(started.body)).toBe(202);
  const conn = await listener.nextConnection();
  await conn.next('session.update');
  conn.drop();
  const id = String(started.body.rollout_id);
  for (let i = 0; i < 300; i++) {
    const polled = await request(`${target.httpUrl}/rl/rollouts/${id}`, undefined, auth);
    if (polled.body.status !== 'running') break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { text: received(conn), conn };
}

function leaked(text: string): string[] {
  return EVERY_SECRET.filter((secret) => text.includes(secret));
}

beforeAll(async () => {
  synth = await createSpeechSynth(16_000, { preferTones: true });
  listener = await RealtimeStandIn.start();
}, 60_000);

afterAll(async () => {
  for (const s of servers) await s.close();
  await listener.close();
});

describe('speech rollouts send the server\'s credentials nowhere (issue 26)', () => {
  it('sends no server secret to the request\'s URL, for every rollout protocol, with and without the request\'s own key', async () => {
    const target = await server({});
    expect(SPEECH_PROTOCOLS).toEqual(['openai/realtime', 'azure/realtime', 'xai/grok-voice', 'qwen/omni-realtime']);
    for (const protocol of SPEECH_PROTOCOLS) {
      const bare = await rolloutSends(target, protocol);
      expect(leaked(bare.text), `${protocol} without a key`).toEqual([]);
      expect(bare.conn.url).toMatch(/^\/ng-rollout\/ro_[0-9a-f]{24}\/v1\/realtime\?model=trainer-model$/);
      expect(bare.conn.headers['x-dashscope-workspace'], protocol).toBeUndefined();

      const own = `trainer-key-${protocol.replace(/\W/g, '-')}`;
      const keyed = await rolloutSends(target, protocol, own);
      expect(leaked(keyed.text), `${protocol} with its own key`).toEqual([]);
      // Exactly the request's key, in the header its protocol authenticates with.
      const header = protocol === 'azure/realtime' ? keyed.conn.headers['api-key'] : keyed.conn.headers.authorization;
      expect(header, protocol).toBe(protocol === 'azure/realtime' ? own : `Bearer ${own}`);
      expect(keyed.text.split(own).length - 1, `${protocol}: the key appears once`).toBe(1);
    }
  }, 120_000);

  it('sends no Entra token, fixed or printed by the token command, to the request\'s URL', async () => {
    const fixed = await server({ MIVAS_AZURE_AUTH: 'entra', AZURE_OPENAI_AD_TOKEN: ENTRA_TOKEN });
    const command = await server({ MIVAS_AZURE_AUTH: 'entra', MIVAS_AZURE_TOKEN_COMMAND: `printf ${ENTRA_COMMAND_TOKEN}` });
    for (const target of [fixed, command]) {
      const keyed = await rolloutSends(target, 'azure/realtime', 'trainer-azure-key');
      expect(leaked(keyed.text)).toEqual([]);
      expect(keyed.conn.headers['api-key']).toBe('trainer-azure-key');
      expect(keyed.conn.headers.authorization).toBeUndefined();
      const bare = await rolloutSends(target, 'azure/realtime');
      expect(leaked(bare.text)).toEqual([]);
      expect(bare.conn.headers.authorization).toBeUndefined();
    }
  }, 120_000);
});
