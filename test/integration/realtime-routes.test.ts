import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { renderScoreTable } from '../../src/report/index.ts';
import { azureEventsCheck, openaiEventsCheck, qwenOmniEventsCheck, xaiEventsCheck } from '../support/realtime-client-events.ts';
import { RealtimeStandIn, type ClientEventCheck, type StandInDialect } from '../support/realtime-server.ts';
import { playRealtimeRoutes } from '../support/realtime-routes.ts';
import { expectCosted, expectSeedsHoldEarlierResults, scoreCalls, scoreSnapshots, startRouteServer } from '../support/route-scoring.ts';

/**
 * The realtime family (issue 28 acceptance 2 and 4): each of `openai/realtime`, `azure/realtime`,
 * `xai/grok-voice` and `qwen/omni-realtime` plays three healthcare tasks' reference routes
 * (greeting, handoffs as session.update swaps on one socket, tool calls answered by
 * function_call_output items, the goodbye with end_call) through the realtime stand-in made strict
 * by its vendor's client events (test/support/realtime-client-events.ts: OpenAI's from the
 * `openai` package's types, the others from their references), scores PASS, holds every earlier
 * tool result in the conversation a later specialist takes over, and refuses nothing. Every call
 * is priced from prices.json except Qwen-Omni-Realtime, whose vendor publishes no USD price.
 */

const PACK = 'healthcare';
const AZURE_TRANSCRIPTION_DEPLOYMENT = 'standin-transcribe';
const FIXTURES = join(import.meta.dirname, '../fixtures/providers');

interface Case {
  readonly harness: string;
  readonly dialect: StandInDialect;
  readonly check: ClientEventCheck;
  readonly env: (standIn: RealtimeStandIn) => Record<string, string>;
  /** The upgrade each call must make: its path and the header that carries the key. */
  readonly url: string;
  readonly authHeader: readonly [string, string];
  readonly outputRateHz: number;
  readonly handoffKeys: readonly string[];
  readonly priced: boolean;
}

const CASES: readonly Case[] = [
  {
    harness: 'openai/realtime',
    dialect: 'ga',
    check: openaiEventsCheck,
    env: (s) => ({ OPENAI_API_KEY: 'sk-routes', MIVAS_OPENAI_BASE_URL: s.baseUrl('/v1') }),
    url: '/v1/realtime?model=gpt-realtime-2.1',
    authHeader: ['authorization', 'Bearer sk-routes'],
    outputRateHz: 24_000,
    handoffKeys: ['instructions', 'tools', 'type'],
    priced: true,
  },
  {
    harness: 'azure/realtime',
    dialect: 'ga',
    check: azureEventsCheck([AZURE_TRANSCRIPTION_DEPLOYMENT]),
    // A deployment named after its model, so its row in prices.json prices the call.
    env: (s) => ({ AZURE_OPENAI_API_KEY: 'az-routes', MIVAS_AZURE_BASE_URL: s.baseUrl('/openai/v1'), MIVAS_AZURE_TRANSCRIPTION_DEPLOYMENT: AZURE_TRANSCRIPTION_DEPLOYMENT }),
    url: '/openai/v1/realtime?model=gpt-realtime-2.1',
    authHeader: ['api-key', 'az-routes'],
    outputRateHz: 24_000,
    handoffKeys: ['instructions', 'tools', 'type'],
    priced: true,
  },
  {
    harness: 'xai/grok-voice',
    dialect: 'ga',
    check: xaiEventsCheck,
    env: (s) => ({ XAI_API_KEY: 'xai-routes', MIVAS_XAI_BASE_URL: s.baseUrl('/v1') }),
    url: '/v1/realtime?model=grok-voice-think-fast-2.0',
    authHeader: ['authorization', 'Bearer xai-routes'],
    outputRateHz: 16_000,
    handoffKeys: ['instructions', 'tools'],
    priced: true,
  },
  {
    harness: 'qwen/omni-realtime',
    dialect: 'beta',
    check: qwenOmniEventsCheck,
    env: (s) => ({ DASHSCOPE_API_KEY: 'ds-routes', MIVAS_QWEN_BASE_URL: s.baseUrl('/api-ws/v1') }),
    url: '/api-ws/v1/realtime?model=qwen3.5-omni-plus-realtime',
    authHeader: ['authorization', 'Bearer ds-routes'],
    outputRateHz: 24_000,
    handoffKeys: ['instructions', 'tools'],
    priced: false,
  },
];

describe('healthcare reference routes through the realtime family, each stand-in strict by its vendor (issue 28)', () => {
  for (const c of CASES) {
    it(`${c.harness}: three tasks PASS, every later specialist holding the earlier tool results`, async () => {
      const standIn = await RealtimeStandIn.start({ dialect: c.dialect, check: c.check });
      const { server, synth, tasks } = await startRouteServer(PACK, { MIVAS_HARNESS: c.harness, ...c.env(standIn) });
      try {
        const label = c.harness.replace(/\W/g, '_');
        const { ids, seeds } = await playRealtimeRoutes(standIn, server, synth, tasks, { label, outputRateHz: c.outputRateHz, handoffKeys: c.handoffKeys });
        // One socket per call, every one dialed and authenticated as the vendor's reference says.
        expect(standIn.connections).toHaveLength(tasks.length);
        for (const conn of standIn.connections) {
          expect(conn.url).toBe(c.url);
          expect(conn.headers[c.authHeader[0]]).toBe(c.authHeader[1]);
        }
        const verdicts = await scoreCalls(server, PACK, ids);
        expect(Object.values(verdicts).map((v) => [v.status, v.reward])).toEqual(ids.map(() => ['PASS', 1]));
        if (c.priced) expectCosted(verdicts);
        else {
          // No USD price is published: the cost cell and the run's summary line say so, and why.
          for (const v of Object.values(verdicts)) expect(v.cost).toMatch(/^unpriced: no USD price published for qwen3\.5-omni-plus-realtime/);
          expect(renderScoreTable(await scoreSnapshots(server, PACK))).toMatch(/; cost unpriced: no USD price published for qwen3\.5-omni-plus-realtime[^;]*; transcript WER/);
        }
        expectSeedsHoldEarlierResults(seeds);
        expect(standIn.connections.flatMap((conn) => conn.violations)).toEqual([]);
      } finally {
        await server.close();
        await standIn.close();
      }
    }, 90_000);
  }
});

interface SessionFixture {
  readonly documented_fields: readonly string[];
  readonly expected: { readonly session: Readonly<Record<string, unknown>> };
}

/** The value at a dotted path, or undefined. */
function valueAt(root: unknown, path: string): unknown {
  return path.split('.').reduce<unknown>((at, key) => (typeof at === 'object' && at !== null ? (at as Record<string, unknown>)[key] : undefined), root);
}

/** A session.update setting every field a provider's fixture documents: the value mivas sends where it sends one, else null. */
function documentedUpdate(provider: string): unknown {
  const fixture = JSON.parse(readFileSync(join(FIXTURES, `${provider}.session-update.json`), 'utf8')) as SessionFixture;
  const session: Record<string, unknown> = {};
  for (const path of fixture.documented_fields) {
    const keys = path.split('.');
    let at = session;
    for (const key of keys.slice(0, -1)) at = (at[key] ??= {}) as Record<string, unknown>;
    at[keys.at(-1) ?? path] = valueAt(fixture.expected.session, path) ?? null;
  }
  return { type: 'session.update', session };
}

describe('the realtime stand-ins refuse what their vendor refuses', () => {
  it('xAI and Qwen-Omni accept every session field their fixture documents (test/fixtures/providers)', () => {
    expect(xaiEventsCheck(documentedUpdate('xai'), [])).toBeNull();
    expect(qwenOmniEventsCheck(documentedUpdate('qwen'), [])).toBeNull();
  });

  const functionOutput = { type: 'conversation.item.create', item: { type: 'function_call_output', call_id: 'call_1', output: '{}' } };

  it('OpenAI: an unknown event, an unknown field at any depth, a missing required field', () => {
    expect(openaiEventsCheck(functionOutput, [])).toBeNull();
    expect(openaiEventsCheck({ type: 'conversation.item.truncate', item_id: 'i', content_index: 0, audio_end_ms: 10 }, [])).toBeNull();
    expect(openaiEventsCheck({ type: 'session.create' }, [])).toContain('is not one of');
    expect(openaiEventsCheck({ type: 'session.update', session: { type: 'realtime', voice: 'ash' } }, [])).toContain('event.session.voice: unknown field');
    expect(openaiEventsCheck({ type: 'session.update', session: { type: 'realtime', audio: { output: { format: { type: 'audio/pcm', rate: 24000, channels: 1 } } } } }, [])).toContain('event.session.audio.output.format.channels: unknown field');
    expect(openaiEventsCheck({ type: 'session.update', session: { instructions: 'x' } }, [])).toContain('event.session.type');
    expect(openaiEventsCheck({ type: 'conversation.item.create', item: { type: 'function_call_output', output: '{}' } }, [])).toContain('event.item.call_id: missing');
  });

  it('Azure: the GA events, and a transcription model that is no deployment of the resource', () => {
    const azure = azureEventsCheck(['my-transcribe']);
    const withModel = (model: string): unknown => ({ type: 'session.update', session: { type: 'realtime', audio: { input: { transcription: { model } } } } });
    expect(azure(withModel('my-transcribe'), [])).toBeNull();
    expect(azure(withModel('gpt-4o-mini-transcribe'), [])).toContain('is not a deployment');
    expect(azure({ type: 'session.update', session: { type: 'realtime', modalities: ['audio'] } }, [])).toContain('unknown field');
  });

  it('xAI: no truncate, no GA session type or tool_choice, PCM at its listed rates only', () => {
    expect(xaiEventsCheck(functionOutput, [])).toBeNull();
    expect(xaiEventsCheck({ type: 'conversation.item.truncate', item_id: 'i', content_index: 0, audio_end_ms: 10 }, [])).toContain('is not one of');
    expect(xaiEventsCheck({ type: 'session.update', session: { type: 'realtime', instructions: 'x' } }, [])).toContain('event.session.type: unknown field');
    expect(xaiEventsCheck({ type: 'session.update', session: { tool_choice: 'auto' } }, [])).toContain('unknown field');
    expect(xaiEventsCheck({ type: 'session.update', session: { audio: { input: { format: { type: 'audio/pcm', rate: 12000 } } } } }, [])).toContain('not an xAI PCM rate');
  });

  it('Qwen-Omni: beta shapes only, and no response.create on an empty conversation', () => {
    const seed = { type: 'conversation.item.create', item: { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'hi' }] } };
    expect(qwenOmniEventsCheck({ type: 'response.create' }, [])).toContain('empty conversation');
    expect(qwenOmniEventsCheck({ type: 'response.create', response: { modalities: ['audio', 'text'] } }, [seed])).toBeNull();
    expect(qwenOmniEventsCheck({ type: 'session.update', session: { tools: [{ type: 'function', name: 'flat' }] } }, [])).toContain('unknown field');
    expect(qwenOmniEventsCheck({ type: 'session.update', session: { tool_choice: 'auto' } }, [])).toContain('event.session.tool_choice: unknown field');
    expect(qwenOmniEventsCheck({ type: 'conversation.item.truncate', item_id: 'i', content_index: 0, audio_end_ms: 10 }, [])).toContain('is not one of');
  });
});
